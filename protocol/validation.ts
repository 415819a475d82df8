import { InvalidArgumentError } from './errors/errors.js';
import { knownErrorWithTemplate, type KnownError } from './errors/knownError.js';
import { passwordConfirmationMismatchMessage, passwordTooLongMessage, passwordTooShortMessage, redirectUrlNotWhitelistedMessage } from './errors/messages.js';
import type { TrustedDomain } from './resources/project.js';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 70;
/** How close to expiry an access token is renewed before use (PROTOCOL.md §9.1). */
export const DEFAULT_TOKEN_MARGIN_MILLIS = 20_000;
/** Margins this long would renew nearly every token; the service's SDK refuses them too. */
export const MAX_TOKEN_MARGIN_MILLIS = 60_000;

export type PasswordProblem = KnownError<'PASSWORD_TOO_SHORT'> | KnownError<'PASSWORD_TOO_LONG'>;

/** The service's password rules, checked before anything is sent. Returns null when acceptable. */
export function passwordProblem(password: string): PasswordProblem | null {
  if (password.length < MIN_PASSWORD_LENGTH) return knownErrorWithTemplate('PASSWORD_TOO_SHORT', passwordTooShortMessage, { min_length: MIN_PASSWORD_LENGTH });
  if (password.length > MAX_PASSWORD_LENGTH) return knownErrorWithTemplate('PASSWORD_TOO_LONG', passwordTooLongMessage, { maxLength: MAX_PASSWORD_LENGTH });
  return null;
}

export function assertValidPassword(password: unknown, argument = 'password'): asserts password is string {
  if (typeof password !== 'string') throw new InvalidArgumentError(argument, `${argument} must be a string.`);
  const problem = passwordProblem(password);
  if (problem !== null) throw problem;
}

/** A repeated password that differs from the first is refused with the service's own error. */
export function assertPasswordConfirmed(password: string, confirmation: string): void {
  if (password !== confirmation) throw knownErrorWithTemplate('PASSWORD_CONFIRMATION_MISMATCH', passwordConfirmationMismatchMessage);
}

/** Catches the classic `${undefined}` bug before it reaches the service as a token. */
export function assertUsableAccessToken(token: unknown, argument = 'accessToken'): asserts token is string {
  if (typeof token !== 'string' || token.trim() === '') throw new InvalidArgumentError(argument, `${argument} must be a non-empty string.`);
  if (token === 'undefined' || token === 'null') {
    throw new InvalidArgumentError(argument, `${argument} is the string ${JSON.stringify(token)}, which usually means a missing value was turned into text.`);
  }
}

export function assertTokenMargin(margin: unknown, argument = 'tokenMarginMillis'): asserts margin is number {
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0) {
    throw new InvalidArgumentError(argument, `${argument} must be a non-negative number of milliseconds.`);
  }
  if (margin >= MAX_TOKEN_MARGIN_MILLIS) {
    throw new InvalidArgumentError(argument, `${argument} must be less than ${MAX_TOKEN_MARGIN_MILLIS} ms (got ${margin}).`);
  }
}

export interface TrustPolicy {
  allowLocalhost: boolean;
  domains: readonly TrustedDomain[];
}

function isLocalHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * The service's redirect-URL trust rule (PROTOCOL.md §10): localhost when allowed, otherwise same
 * protocol and hostname as a trusted domain (port ignored) with a path that starts with its path.
 */
export function isTrustedRedirectUrl(url: string | URL, policy: TrustPolicy): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (policy.allowLocalhost && isLocalHostname(parsed.hostname)) return true;
  return policy.domains.some(({ domain }) => {
    try {
      const trusted = new URL(domain);
      return trusted.protocol === parsed.protocol && trusted.hostname === parsed.hostname && parsed.pathname.startsWith(trusted.pathname);
    } catch {
      return false;
    }
  });
}

/** Refuses an untrusted redirect URL before the service does, when its trust list is known. */
export function assertTrustedRedirectUrl(url: string, policy: TrustPolicy | null): void {
  if (policy !== null && !isTrustedRedirectUrl(url, policy)) throw knownErrorWithTemplate('REDIRECT_URL_NOT_WHITELISTED', redirectUrlNotWhitelistedMessage);
}

export { stripOAuthCallbackParams } from './urls.js';
