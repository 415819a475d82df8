import { createKnownError } from '../../protocol/errors/create.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { issueTokens, requireSecondFactor } from '../auth/issue.js';
import { createCode, linkWithCode, redeemCode } from '../codes.js';
import { hashPassword, sha256Hex as sha, verifyPassword } from '../crypto.js';
import { requireAccess, requireUserBySchema } from '../http/access.js';
import { signUpCountryOf } from '../http/endUser.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { botChallengeFields, code45, email, nonEmpty, obj, strictEmail, url, validate, yup } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';
import { revokeSessionsOfUser } from '../state/sessions.js';
import { signUpOrUpgrade } from '../state/anonymous.js';
import { authChannelByEmail, findUser, primaryChannel } from '../state/users.js';

export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 70;

export function trustPolicy(p: ProjectRecord) {
  return { allowLocalhost: p.config.allow_localhost, domains: p.config.domains };
}

function requirePasswordAuth(p: ProjectRecord): void {
  if (!p.config.credential_enabled) throw createKnownError('PASSWORD_AUTHENTICATION_NOT_ENABLED');
}

function requireLongEnough(password: string): void {
  if (password.length < MIN_PASSWORD) throw createKnownError('PASSWORD_TOO_SHORT', { min_length: MIN_PASSWORD });
}

/** E-mails a verification link for the user's primary e-mail, when the callback URL is trusted. */
export function sendVerificationEmail(
  req: ApiRequest,
  p: ProjectRecord,
  userId: string,
  channelId: string,
  value: string,
  callbackUrl: string,
): void {
  const code = createCode(
    p,
    'contact_channel_verification',
    { user_id: userId, channel_id: channelId, email: value },
    req.now,
  );
  const link = linkWithCode(callbackUrl, code.code);
  const user = findUser(p, userId);
  req.env.mailbox.sendTemplate(
    p,
    'email_verification',
    value,
    { emailVerificationLink: link, userDisplayName: user?.display_name ?? '' },
    link,
  );
  req.env.stats.email();
}

/** Password sign-up, sign-in, reset, update and set (PROTOCOL.md §5.2). */
export function registerPasswordRoutes(router: Router): void {
  registerPasswordSignInRoutes(router);
  registerPasswordChangeRoutes(router);
}

/** Signing up and in with a password. */
function registerPasswordSignInRoutes(router: Router): void {
  router.add('POST', '/auth/password/sign-up', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        email: strictEmail().defined(),
        password: yup.string().max(MAX_PASSWORD).defined(),
        // Without it the user is made and no verification e-mail is sent.
        verification_callback_url: url(),
        ...botChallengeFields(),
      }).defined(),
    });
    const p = auth.project;
    requirePasswordAuth(p);
    // The service refuses an untrusted verification link before it makes the user (v2.7 made the user and sent no
    // e-mail).
    if (
      body.verification_callback_url !== undefined &&
      !isTrustedRedirectUrl(body.verification_callback_url, trustPolicy(p))
    )
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    if (!p.config.sign_up_enabled) throw createKnownError('SIGN_UP_NOT_ENABLED');
    requireLongEnough(body.password);
    const hash = await hashPassword(body.password);
    if (authChannelByEmail(p, body.email))
      throw createKnownError('USER_EMAIL_ALREADY_EXISTS', {
        email: body.email,
        would_work_if_email_was_verified: false,
      });
    // Made with an anonymous user's token, the sign-up upgrades that user (same id) instead.
    const user = signUpOrUpgrade(
      p,
      auth.user,
      {
        primary_email: body.email,
        primary_email_verified: false,
        primary_email_auth_enabled: true,
        password_hash: hash,
        login_method: 'password',
        country_code: signUpCountryOf(req.headers),
      },
      req.now,
    );
    const tokens = await issueTokens(req.env, p, user, req.now, { method: 'password' });
    // Sent after the fact, like the service's asynchronous e-mail.
    const channel = primaryChannel(p, user.id);
    if (channel && body.verification_callback_url !== undefined) {
      sendVerificationEmail(req, p, user.id, channel.id, channel.value, body.verification_callback_url);
    }
    return json({ access_token: tokens.access_token, refresh_token: tokens.refresh_token, user_id: user.id });
  });

  router.add('POST', '/auth/password/sign-in', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ email: nonEmpty(email()).defined(), password: yup.string().max(MAX_PASSWORD).defined() }).defined(),
    });
    const p = auth.project;
    requirePasswordAuth(p);
    const channel = authChannelByEmail(p, body.email);
    const candidate = channel ? findUser(p, channel.user_id) : undefined;
    // The hash comparison always runs, so timing does not tell whether the e-mail exists.
    const ok = await verifyPassword(body.password, candidate?.password_hash ?? null);
    const user = channel ? findUser(p, channel.user_id) : undefined;
    if (!ok || !user || user !== candidate) throw createKnownError('EMAIL_PASSWORD_MISMATCH');
    requireSecondFactor(p, user, req.now, false);
    const tokens = await issueTokens(req.env, p, user, req.now, { method: 'password' });
    return json({ access_token: tokens.access_token, refresh_token: tokens.refresh_token, user_id: user.id });
  });
}

/** Resetting, updating and setting a password. */
function registerPasswordChangeRoutes(router: Router): void {
  router.add('POST', '/auth/password/send-reset-code', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ email: email().defined(), callback_url: url().defined() }).defined(),
    });
    const p = auth.project;
    requirePasswordAuth(p);
    const channel = authChannelByEmail(p, body.email);
    if (!channel) {
      // The service waits 2–3 s here so the answer's timing does not reveal unknown e-mails.
      await new Promise((resolve) => setTimeout(resolve, req.env.unknownEmailDelayMillis()));
      return json({ success: 'maybe, only if user with e-mail exists' });
    }
    if (!isTrustedRedirectUrl(body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    const code = createCode(p, 'password_reset', { user_id: channel.user_id, email: channel.value }, req.now);
    const link = linkWithCode(body.callback_url, code.code);
    req.env.mailbox.sendTemplate(
      p,
      'password_reset',
      channel.value,
      { passwordResetLink: link, userDisplayName: findUser(p, channel.user_id)?.display_name ?? '' },
      link,
    );
    req.env.stats.email();
    return json({ success: 'maybe, only if user with e-mail exists' });
  });

  router.add(
    'POST',
    '/auth/password/reset/check-code',
    (req) => {
      const auth = requireAccess(req);
      const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
      redeemCode(auth.project, 'password_reset', body.code, req.now, 'check');
      return json({ is_code_valid: true });
    },
    { write: true },
  );

  router.add('POST', '/auth/password/reset', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ code: code45().defined(), password: yup.string().max(MAX_PASSWORD).defined() }).defined(),
    });
    const p = auth.project;
    // Hash first (the only await); then redeem and apply in one synchronous block.
    const hash = await hashPassword(body.password);
    // Quirk kept from the service: the code is consumed before the checks below.
    const code = redeemCode(p, 'password_reset', body.code, req.now, 'use');
    requirePasswordAuth(p);
    requireLongEnough(body.password);
    const user = findUser(p, String(code.data.user_id));
    if (!user) throw createKnownError('USER_NOT_FOUND');
    user.password_hash = hash;
    revokeSessionsOfUser(p, user.id);
    return success();
  });

  router.add('POST', '/auth/password/update', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        old_password: yup.string().max(MAX_PASSWORD).defined(),
        new_password: yup.string().max(MAX_PASSWORD).defined(),
      }).defined(),
    });
    const user = requireUserBySchema(req, auth);
    const p = auth.project;
    requirePasswordAuth(p);
    requireLongEnough(body.new_password);
    if (user.password_hash === null) throw createKnownError('USER_DOES_NOT_HAVE_PASSWORD');
    const [ok, hash] = await Promise.all([
      verifyPassword(body.old_password, user.password_hash),
      hashPassword(body.new_password),
    ]);
    if (!ok) throw createKnownError('PASSWORD_CONFIRMATION_MISMATCH');
    user.password_hash = hash;
    const refresh = req.headers['x-stack-refresh-token'];
    const keep =
      refresh === undefined
        ? undefined
        : Object.values(p.sessions).find((s) => s.user_id === user.id && s.refresh_token_hash === sha(refresh))?.id;
    revokeSessionsOfUser(p, user.id, keep);
    return success();
  });

  router.add('POST', '/auth/password/set', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ password: yup.string().max(MAX_PASSWORD).defined() }).defined() });
    const user = requireUserBySchema(req, auth);
    requirePasswordAuth(auth.project);
    requireLongEnough(body.password);
    if (user.password_hash !== null) throw new StatusError(400, 'User already has a password set.');
    const hash = await hashPassword(body.password);
    if (user.password_hash !== null) throw new StatusError(400, 'User already has a password set.');
    user.password_hash = hash;
    return success();
  });
}
