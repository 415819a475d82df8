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
import type { ProjectRecord, UserRecord } from '../state/model.js';
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

/**
 * The user an OTP for this address signs in, checked when the code is sent and again when it is used, as the service
 * does: a verified sign-in address signs its user in (OTP is switched on for them if it was not); an unverified one
 * must not let whoever types it take the account over; no one: a sign-up, if the project allows them (null).
 */
function userAllowingOtp(p: ProjectRecord, email: string): { user: UserRecord; channelValue: string } | null {
  const channel = authChannelByEmail(p, email);
  if (!channel) {
    if (!p.config.sign_up_enabled) throw createKnownError('SIGN_UP_NOT_ENABLED');
    return null;
  }
  if (!channel.is_verified)
    throw createKnownError('USER_EMAIL_ALREADY_EXISTS', {
      email: channel.value,
      would_work_if_email_was_verified: true,
    });
  const user = findUser(p, channel.user_id);
  if (!user) throw createKnownError('USER_NOT_FOUND');
  user.otp_auth_enabled = true;
  return { user, channelValue: channel.value };
}

/** OTP / magic link (PROTOCOL.md §5.2, §6.3). */
export function registerOtpRoutes(router: Router): void {
  router.add('POST', '/auth/otp/send-sign-in-code', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ email: strictEmail().defined(), callback_url: url().defined(), ...botChallengeFields() }).defined(),
    });
    const p = auth.project;
    if (!p.config.magic_link_enabled) throw new StatusError(403, 'OTP sign-in is not enabled for this project');
    const existing = userAllowingOtp(p, body.email);
    // The user is made from the request that asked for the code, as the service records it.
    const country = existing === null ? signUpCountryOf(req.headers) : null;
    const data = {
      email: existing?.channelValue ?? body.email,
      ...(country === null ? {} : { country_code: country }),
    };
    if (!isTrustedRedirectUrl(body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    const code = createCode(p, 'otp', data, req.now);
    const link = linkWithCode(body.callback_url, code.code);
    const user = existing?.user;
    sendMagicLink(req, p, data.email, link, code.code.slice(0, 6).toUpperCase(), user?.display_name ?? '');
    return json({ nonce: code.code.slice(6) });
  });

  router.add('POST', '/auth/otp/sign-in', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
    const p = auth.project;
    // Redeem and create the user in one synchronous block; signing (issueTokens) comes last.
    const code = redeemCode(p, 'otp', body.code, req.now, 'use');
    const email = String(code.data.email);
    // Who the code is for is decided now, not when it was sent: a second code for a new address signs in the user
    // the first one made.
    const existing = userAllowingOtp(p, email);
    const isNewUser = existing === null;
    // Redeemed with an anonymous user's token, a new user's code upgrades that user (same id) instead.
    const user =
      existing?.user ??
      signUpOrUpgrade(
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
