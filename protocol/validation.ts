import { InvalidArgumentError } from './errors/errors.js';
import { type KnownError } from './errors/knownError.js';
import { knownErrorWithTemplate } from './errors/create.js';
import {
  passwordConfirmationMismatchMessage,
  passwordTooLongMessage,
  passwordTooShortMessage,
  redirectUrlNotWhitelistedMessage,
} from './errors/messages.js';
import type { TrustedDomain } from './resources/project.js';

/** The shortest password the service accepts. */
export const MIN_PASSWORD_LENGTH = 8;
/** The longest password the service accepts. */
export const MAX_PASSWORD_LENGTH = 70;
/** What is wrong with a password, if anything. */
export type PasswordProblem = KnownError<'PASSWORD_TOO_SHORT'> | KnownError<'PASSWORD_TOO_LONG'>;

/** The service's password rules, checked before anything is sent. Returns null when acceptable. */
export function passwordProblem(password: string): PasswordProblem | null {
  if (password.length < MIN_PASSWORD_LENGTH)
    return knownErrorWithTemplate('PASSWORD_TOO_SHORT', passwordTooShortMessage, { min_length: MIN_PASSWORD_LENGTH });
  if (password.length > MAX_PASSWORD_LENGTH)
    return knownErrorWithTemplate('PASSWORD_TOO_LONG', passwordTooLongMessage, { maxLength: MAX_PASSWORD_LENGTH });
  return null;
}

/**
 * Checks a password's length as the service would, with the service's own known error (`PASSWORD_TOO_SHORT`,
 * `PASSWORD_TOO_LONG`).
 */
export function assertValidPassword(password: unknown, argument = 'password'): asserts password is string {
  if (typeof password !== 'string') throw new InvalidArgumentError(argument, `${argument} must be a string.`);
  const problem = passwordProblem(password);
  if (problem !== null) throw problem;
}

/** A repeated password that differs from the first is refused with the service's own error. */
export function assertPasswordConfirmed(password: string, confirmation: string): void {
  if (password !== confirmation)
    throw knownErrorWithTemplate('PASSWORD_CONFIRMATION_MISMATCH', passwordConfirmationMismatchMessage);
}

/** Which redirect URLs the project trusts (its domains, and localhost when allowed). */
export interface TrustPolicy {
  allowLocalhost: boolean;
  domains: readonly TrustedDomain[];
}

function isLocalHostname(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
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
      return (
        trusted.protocol === parsed.protocol &&
        trusted.hostname === parsed.hostname &&
        parsed.pathname.startsWith(trusted.pathname)
      );
    } catch {
      return false;
    }
  });
}

/** Refuses an untrusted redirect URL before the service does, when its trust list is known. */
export function assertTrustedRedirectUrl(url: string, policy: TrustPolicy | null): void {
  if (policy !== null && !isTrustedRedirectUrl(url, policy))
    throw knownErrorWithTemplate('REDIRECT_URL_NOT_WHITELISTED', redirectUrlNotWhitelistedMessage);
}

export { stripOAuthCallbackParams } from './urls.js';
export {
  assertTokenMargin,
  assertUsableAccessToken,
  DEFAULT_TOKEN_MARGIN_MILLIS,
  MAX_TOKEN_MARGIN_MILLIS,
} from './tokenRules.js';
