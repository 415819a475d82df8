import { createKnownError } from '../../protocol/errors/create.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { issueTokens, requireSecondFactor } from '../auth/issue.js';
import { createCode, linkWithCode, redeemCode } from '../codes.js';
import { requireAccess } from '../http/access.js';
import { signUpCountryOf } from '../http/endUser.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest } from '../http/types.js';
import { botChallengeFields, code45, obj, strictEmail, url, validate } from '../http/validate.js';
import { renderTemplate } from '../mailbox.js';
import type { ProjectRecord } from '../state/model.js';
import { signUpOrUpgrade } from '../state/anonymous.js';
import { authChannelByEmail, findUser } from '../state/users.js';
import { trustPolicy } from './password.js';

/** Old SDKs (`@stackframe/stack` ≤ 2.5.37) get the magic-link e-mail without the typed code (PROTOCOL.md §12.3). */
function isLegacyClient(version: string | undefined): boolean {
  const match = /^\w+\s+@stackframe\/stack@(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return major < 2 || (major === 2 && (minor < 5 || (minor === 5 && patch <= 37)));
}

function sendMagicLink(
  req: ApiRequest,
  p: ProjectRecord,
  to: string,
  link: string,
  otp: string,
  userDisplayName: string,
): void {
  if (isLegacyClient(req.headers['x-stack-client-version'])) {
    const vars = { projectDisplayName: p.display_name, magicLink: link };
    const body = renderTemplate('Sign in to {{ projectDisplayName }} with this link:\n{{ magicLink }}', vars);
    req.env.mailbox.deliver({
      project_id: p.id,
      to,
      subject: renderTemplate('Sign in to {{ projectDisplayName }}', vars),
      text: body,
      html: `<p>${body.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\n/g, '<br>')}</p>`,
      template: 'magic_link',
      link,
    });
  } else {
    req.env.mailbox.sendTemplate(p, 'magic_link', to, { magicLink: link, otp, userDisplayName }, link);
  }
  req.env.stats.email();
}

/** OTP / magic link (PROTOCOL.md §5.2, §6.3). */
export function registerOtpRoutes(router: Router): void {
  router.add('POST', '/auth/otp/send-sign-in-code', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ email: strictEmail().defined(), callback_url: url().defined(), ...botChallengeFields() }).defined(),
    });
    const p = auth.project;
    if (!p.config.magic_link_enabled) throw new StatusError(403, 'Magic link is not enabled for this project');
    const channel = authChannelByEmail(p, body.email);
    let data: { user_id: string | null; email: string; is_new_user: boolean; country_code?: string };
    if (channel) {
      // An unverified e-mail must not let whoever types it in take the account over.
      if (!channel.is_verified)
        throw createKnownError('USER_EMAIL_ALREADY_EXISTS', {
          email: channel.value,
          would_work_if_email_was_verified: true,
        });
      data = { user_id: channel.user_id, email: channel.value, is_new_user: false };
    } else {
      if (!p.config.sign_up_enabled) throw createKnownError('SIGN_UP_NOT_ENABLED');
      // The user is created only when the code is redeemed.
      // The user is made from the request that asked for the code, as the service records it.
      const country = signUpCountryOf(req.headers);
      data = {
        user_id: null,
        email: body.email,
        is_new_user: true,
        ...(country === null ? {} : { country_code: country }),
      };
    }
    if (!isTrustedRedirectUrl(body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    const code = createCode(p, 'otp', data, req.now);
    const link = linkWithCode(body.callback_url, code.code);
    const user = data.user_id === null ? undefined : findUser(p, data.user_id);
    sendMagicLink(req, p, data.email, link, code.code.slice(0, 6).toUpperCase(), user?.display_name ?? '');
    return json({ nonce: code.code.slice(6) });
  });

  router.add('POST', '/auth/otp/sign-in', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
    const p = auth.project;
    // Redeem and create the user in one synchronous block; signing (issueTokens) comes last.
    const code = redeemCode(p, 'otp', body.code, req.now, 'use');
    const isNewUser = code.data.is_new_user === true;
    const email = String(code.data.email);
    let user;
    if (isNewUser) {
      // Someone may have signed up with this e-mail since the code was sent.
      if (authChannelByEmail(p, email))
        throw createKnownError('USER_EMAIL_ALREADY_EXISTS', { email, would_work_if_email_was_verified: false });
      // Redeemed with an anonymous user's token, the code upgrades that user (same id) instead.
      user = signUpOrUpgrade(
        p,
        auth.user,
        {
          primary_email: email,
          primary_email_verified: true,
          primary_email_auth_enabled: true,
          otp_auth_enabled: true,
          login_method: 'otp',
          country_code: typeof code.data.country_code === 'string' ? code.data.country_code : null,
        },
        req.now,
      );
    } else {
      user = findUser(p, String(code.data.user_id));
      if (!user) throw createKnownError('USER_NOT_FOUND');
    }
    requireSecondFactor(p, user, req.now, isNewUser);
    const tokens = await issueTokens(req.env, p, user, req.now, { method: 'otp' });
    return json({
      refresh_token: tokens.refresh_token,
      access_token: tokens.access_token,
      is_new_user: isNewUser,
      user_id: user.id,
    });
  });

  router.add(
    'POST',
    '/auth/otp/sign-in/check-code',
    (req) => {
      const auth = requireAccess(req);
      const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
      redeemCode(auth.project, 'otp', body.code, req.now, 'check');
      return json({ is_code_valid: true });
    },
    // Checking counts an attempt against the code.
    { write: true },
  );
}
