import { requireNonEmptyString, requireObject, requireString, requireUrl } from '../args.js';
import type { Json, SuccessResponse, CodeCheckResponse } from '../resources/common.js';
import type {
  PasskeyAuthenticationOptions,
  PasskeyRegistered,
  PasskeyRegistrationOptions,
} from '../resources/passkey.js';
import type { OtpSent, PasswordAuthResponse, SignInResponse } from '../resources/session.js';
import type { Transport } from '../transport.js';
import { assertValidPassword } from '../validation.js';

/** Verification codes are 45 characters; the service refuses any other length. */
function requireCode(value: unknown, argument = 'code'): string {
  return requireNonEmptyString(value, argument);
}

/**
 * How a sign-up treats the signed-in user: `'none'` (the default) sends no user token, so the
 * service creates a new user; `'optional'` sends the user's token, so that an anonymous user
 * becomes this user (the same id, data and teams) instead of a new one being created.
 */
export interface SignUpOptions {
  user?: 'none' | 'optional';
}

/**
 * `POST /auth/password/sign-up`: creates the user (or upgrades the anonymous one, see SignUpOptions) and signs in; the
 * verification e-mail goes out on its own.
 */
export function signUpWithPassword(
  t: Transport,
  input: { email: string; password: string; verification_callback_url: string },
  options: SignUpOptions = {},
): Promise<PasswordAuthResponse> {
  requireObject(input, 'input');
  const email = requireNonEmptyString(input.email, 'email');
  assertValidPassword(input.password);
  const verification_callback_url = requireUrl(input.verification_callback_url, 'verification_callback_url');
  return t.request({
    method: 'POST',
    path: '/auth/password/sign-up',
    body: { email, password: input.password, verification_callback_url },
    user: options.user ?? 'none',
  });
}

/**
 * `POST /auth/anonymous/sign-up`: a new anonymous user (no e-mail, no way to sign in again once
 * its tokens are gone) and a session for it. Its tokens only work with `x-stack-allow-anonymous-user`
 * (sent on every call that carries a user token); any sign-up made with them upgrades it.
 */
export function signUpAnonymously(t: Transport): Promise<PasswordAuthResponse> {
  return t.request({ method: 'POST', path: '/auth/anonymous/sign-up', body: {}, user: 'none' });
}

/** `POST /auth/password/sign-in`; MULTI_FACTOR_AUTHENTICATION_REQUIRED carries the attempt code. */
export function signInWithPassword(
  t: Transport,
  input: { email: string; password: string },
): Promise<PasswordAuthResponse> {
  requireObject(input, 'input');
  const email = requireNonEmptyString(input.email, 'email');
  const password = requireString(input.password, 'password');
  return t.request({ method: 'POST', path: '/auth/password/sign-in', body: { email, password }, user: 'none' });
}

/** Always answers the same string, whether or not the e-mail exists (so it leaks nothing). */
export function sendPasswordResetCode(
  t: Transport,
  input: { email: string; callback_url: string },
): Promise<{ success: string }> {
  requireObject(input, 'input');
  const email = requireNonEmptyString(input.email, 'email');
  const callback_url = requireUrl(input.callback_url, 'callback_url');
  return t.request({
    method: 'POST',
    path: '/auth/password/send-reset-code',
    body: { email, callback_url },
    user: 'none',
  });
}

/** Sets the new password and revokes every session of the user. A rejected password still burns the code. */
export function resetPassword(t: Transport, input: { code: string; password: string }): Promise<SuccessResponse> {
  requireObject(input, 'input');
  const code = requireCode(input.code);
  assertValidPassword(input.password);
  return t.request({
    method: 'POST',
    path: '/auth/password/reset',
    body: { code, password: input.password },
    user: 'none',
  });
}

/** Whether a password-reset code may still be used (without using it). */
export function checkPasswordResetCode(t: Transport, code: string): Promise<CodeCheckResponse> {
  return t.request({
    method: 'POST',
    path: '/auth/password/reset/check-code',
    body: { code: requireCode(code) },
    user: 'none',
  });
}

/** Needs a signed-in user; every other session of the user is revoked (the current one is kept). */
export function updatePassword(
  t: Transport,
  input: { old_password: string; new_password: string },
): Promise<SuccessResponse> {
  requireObject(input, 'input');
  const old_password = requireString(input.old_password, 'old_password');
  assertValidPassword(input.new_password, 'new_password');
  return t.request({
    method: 'POST',
    path: '/auth/password/update',
    body: { old_password, new_password: input.new_password },
    sendRefreshToken: true,
  });
}

/** For a signed-in user without a password (e.g. signed up by magic link). */
export function setPassword(t: Transport, input: { password: string }): Promise<SuccessResponse> {
  requireObject(input, 'input');
  assertValidPassword(input.password);
  return t.request({ method: 'POST', path: '/auth/password/set', body: { password: input.password } });
}

/** E-mails a magic link and a 6-character code; the answer's nonce completes a typed code. */
export function sendOtpSignInCode(t: Transport, input: { email: string; callback_url: string }): Promise<OtpSent> {
  requireObject(input, 'input');
  const email = requireNonEmptyString(input.email, 'email');
  const callback_url = requireUrl(input.callback_url, 'callback_url');
  return t.request({
    method: 'POST',
    path: '/auth/otp/send-sign-in-code',
    body: { email, callback_url },
    user: 'none',
  });
}

/**
 * The code of a magic link, or a typed OTP joined to the nonce: `otpCodeFromTyped(otp, nonce)`.
 * A code for an e-mail no user has signs up (upgrading the anonymous user with `user: 'optional'`).
 */
export function signInWithOtp(t: Transport, code: string, options: SignUpOptions = {}): Promise<SignInResponse> {
  return t.request({
    method: 'POST',
    path: '/auth/otp/sign-in',
    body: { code: requireCode(code) },
    user: options.user ?? 'none',
  });
}

/** Whether a magic-link or one-time code may still be used (without using it). */
export function checkOtpCode(t: Transport, code: string): Promise<CodeCheckResponse> {
  return t.request({
    method: 'POST',
    path: '/auth/otp/sign-in/check-code',
    body: { code: requireCode(code) },
    user: 'none',
  });
}

/** The 45-character code for a typed 6-character OTP: the OTP followed by the nonce, lower-cased. */
export function otpCodeFromTyped(otp: string, nonce: string): string {
  const typed = requireNonEmptyString(otp, 'otp').trim();
  return `${typed}${requireNonEmptyString(nonce, 'nonce')}`.toLowerCase();
}

/** Completes a sign-in that answered MULTI_FACTOR_AUTHENTICATION_REQUIRED. */
export function signInWithMfa(t: Transport, input: { attempt_code: string; totp: string }): Promise<SignInResponse> {
  requireObject(input, 'input');
  const code = requireCode(input.attempt_code, 'attempt_code');
  const totp = requireNonEmptyString(input.totp, 'totp').replace(/\s+/g, '');
  return t.request({ method: 'POST', path: '/auth/mfa/sign-in', body: { code, type: 'totp', totp }, user: 'none' });
}

/** Starts registering a passkey: the WebAuthn options and the code that finishes it. */
export function initiatePasskeyRegistration(t: Transport): Promise<PasskeyRegistrationOptions> {
  return t.request({ method: 'POST', path: '/auth/passkey/initiate-passkey-registration', body: {} });
}

/** `credential` is the browser's RegistrationResponseJSON. */
export function registerPasskey(t: Transport, input: { credential: Json; code: string }): Promise<PasskeyRegistered> {
  requireObject(input, 'input');
  requireObject(input.credential, 'credential');
  return t.request({
    method: 'POST',
    path: '/auth/passkey/register',
    body: { credential: input.credential, code: requireString(input.code, 'code') },
  });
}

/** Starts a passkey sign-in: the WebAuthn options and the code that finishes it. */
export function initiatePasskeyAuthentication(t: Transport): Promise<PasskeyAuthenticationOptions> {
  return t.request({ method: 'POST', path: '/auth/passkey/initiate-passkey-authentication', body: {}, user: 'none' });
}

/** `authentication_response` is the browser's AuthenticationResponseJSON. */
export function signInWithPasskey(
  t: Transport,
  input: { authentication_response: Json; code: string },
): Promise<SignInResponse> {
  requireObject(input, 'input');
  requireObject(input.authentication_response, 'authentication_response');
  return t.request({
    method: 'POST',
    path: '/auth/passkey/sign-in',
    body: { authentication_response: input.authentication_response, code: requireString(input.code, 'code') },
    user: 'none',
  });
}
