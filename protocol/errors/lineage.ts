import { knownErrorFamilies, type KnownErrorFamily } from './families.js';

/**
 * Each known error's HTTP status and parent family (PROTOCOL.md §8.2–8.3): all that code which
 * only reads errors needs (the tab side). Details shapes and messages live in catalogue.ts and
 * messages.ts, for code that parses or produces error bodies.
 */
export const knownErrorLineage = {
  UNSUPPORTED_ERROR: [500, null],
  BODY_PARSING_ERROR: [400, null],
  SCHEMA_ERROR: [400, null],
  ALL_OVERLOADS_FAILED: [400, null],
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: [400, 'INVALID_PROJECT_AUTHENTICATION'],
  INVALID_ACCESS_TYPE: [400, 'INVALID_PROJECT_AUTHENTICATION'],
  ACCESS_TYPE_WITHOUT_PROJECT_ID: [400, 'INVALID_PROJECT_AUTHENTICATION'],
  ACCESS_TYPE_REQUIRED: [400, 'INVALID_PROJECT_AUTHENTICATION'],
  INSUFFICIENT_ACCESS_TYPE: [401, 'INVALID_PROJECT_AUTHENTICATION'],
  INVALID_PUBLISHABLE_CLIENT_KEY: [401, 'INVALID_PROJECT_AUTHENTICATION'],
  INVALID_SECRET_SERVER_KEY: [401, 'INVALID_PROJECT_AUTHENTICATION'],
  INVALID_SUPER_SECRET_ADMIN_KEY: [401, 'INVALID_PROJECT_AUTHENTICATION'],
  UNPARSABLE_ADMIN_ACCESS_TOKEN: [401, 'INVALID_ADMIN_ACCESS_TOKEN'],
  ADMIN_ACCESS_TOKEN_EXPIRED: [401, 'INVALID_ADMIN_ACCESS_TOKEN'],
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: [401, 'INVALID_ADMIN_ACCESS_TOKEN'],
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: [401, 'INVALID_ADMIN_ACCESS_TOKEN'],
  CLIENT_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  SERVER_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  ADMIN_AUTHENTICATION_REQUIRED: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  EXPECTED_INTERNAL_PROJECT: [401, 'PROJECT_AUTHENTICATION_ERROR'],
  UNPARSABLE_ACCESS_TOKEN: [401, 'INVALID_ACCESS_TOKEN'],
  ACCESS_TOKEN_EXPIRED: [401, 'INVALID_ACCESS_TOKEN'],
  INVALID_PROJECT_FOR_ACCESS_TOKEN: [401, 'INVALID_ACCESS_TOKEN'],
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: [401, 'REFRESH_TOKEN_ERROR'],
  CANNOT_DELETE_CURRENT_SESSION: [400, 'REFRESH_TOKEN_ERROR'],
  PROVIDER_REJECTED: [401, 'REFRESH_TOKEN_ERROR'],
  USER_EMAIL_ALREADY_EXISTS: [409, null],
  EMAIL_NOT_VERIFIED: [400, null],
  CANNOT_GET_OWN_USER_WITHOUT_USER: [400, null],
  USER_ID_DOES_NOT_EXIST: [400, null],
  USER_NOT_FOUND: [404, null],
  API_KEY_NOT_FOUND: [404, null],
  PROJECT_NOT_FOUND: [404, null],
  SIGN_UP_NOT_ENABLED: [400, null],
  PASSWORD_AUTHENTICATION_NOT_ENABLED: [400, null],
  PASSKEY_AUTHENTICATION_NOT_ENABLED: [400, null],
  EMAIL_PASSWORD_MISMATCH: [400, null],
  REDIRECT_URL_NOT_WHITELISTED: [400, null],
  PASSWORD_TOO_SHORT: [400, 'PASSWORD_REQUIREMENTS_NOT_MET'],
  PASSWORD_TOO_LONG: [400, 'PASSWORD_REQUIREMENTS_NOT_MET'],
  USER_DOES_NOT_HAVE_PASSWORD: [400, null],
  VERIFICATION_CODE_NOT_FOUND: [404, 'VERIFICATION_ERROR'],
  VERIFICATION_CODE_EXPIRED: [400, 'VERIFICATION_ERROR'],
  VERIFICATION_CODE_ALREADY_USED: [409, 'VERIFICATION_ERROR'],
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: [400, 'VERIFICATION_ERROR'],
  PASSWORD_CONFIRMATION_MISMATCH: [400, null],
  EMAIL_ALREADY_VERIFIED: [409, null],
  EMAIL_NOT_ASSOCIATED_WITH_USER: [400, null],
  EMAIL_IS_NOT_PRIMARY_EMAIL: [400, null],
  PASSKEY_REGISTRATION_FAILED: [400, null],
  PASSKEY_WEBAUTHN_ERROR: [400, null],
  PASSKEY_AUTHENTICATION_FAILED: [400, null],
  PERMISSION_NOT_FOUND: [404, null],
  CONTAINED_PERMISSION_NOT_FOUND: [400, null],
  TEAM_NOT_FOUND: [404, null],
  TEAM_ALREADY_EXISTS: [409, null],
  TEAM_MEMBERSHIP_NOT_FOUND: [404, null],
  EMAIL_TEMPLATE_ALREADY_EXISTS: [409, null],
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: [400, null],
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: [409, null],
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: [400, null],
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: [400, null],
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: [400, null],
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: [400, null],
  INVALID_SCOPE: [400, null],
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: [409, null],
  OUTER_OAUTH_TIMEOUT: [408, null],
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: [400, null],
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: [400, null],
  INVALID_TOTP_CODE: [400, null],
  USER_AUTHENTICATION_REQUIRED: [401, null],
  TEAM_MEMBERSHIP_ALREADY_EXISTS: [409, null],
  TEAM_PERMISSION_REQUIRED: [401, null],
  TEAM_PERMISSION_NOT_FOUND: [401, null],
  INVALID_SHARED_OAUTH_PROVIDER_ID: [400, null],
  INVALID_STANDARD_OAUTH_PROVIDER_ID: [400, null],
  INVALID_AUTHORIZATION_CODE: [400, null],
  OAUTH_PROVIDER_ACCESS_DENIED: [400, null],
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: [409, null],
  INVALID_POLLING_CODE: [400, null],
  // Added by the service after v2.7 (seen on the 2026-04 backend).
  CURRENT_PROJECT_NOT_FOUND: [400, null],
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: [401, 'PROJECT_AUTHENTICATION_REQUIRED'],
  BRANCH_DOES_NOT_EXIST: [400, null],
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: [400, null],
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED: [401, null],
  RESTRICTED_USER_NOT_ALLOWED: [403, null],
  PERMISSION_ID_ALREADY_EXISTS: [400, null],
  SIGN_UP_REJECTED: [403, null],
  BOT_CHALLENGE_REQUIRED: [409, null],
  BOT_CHALLENGE_FAILED: [400, null],
  CLI_AUTH_ERROR: [400, null],
  CLI_AUTH_EXPIRED_ERROR: [400, null],
  CLI_AUTH_USED_ERROR: [400, null],
  // Sent by the 2026-04 backend's user and team API keys, OAuth providers and received invitations.
  API_KEY_EXPIRED: [401, null],
  API_KEY_REVOKED: [401, null],
  WRONG_API_KEY_TYPE: [400, null],
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN: [400, null],
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: [403, null],
} as const satisfies Record<string, readonly [number, KnownErrorFamily | null]>;

/** The code of any known error of the service (PROTOCOL.md §8), e.g. `USER_EMAIL_ALREADY_EXISTS`. */
export type KnownErrorCode = keyof typeof knownErrorLineage;

/** The direct parent family of a code (null: a child of the root). */
export type ParentOf<C extends KnownErrorCode> = (typeof knownErrorLineage)[C][1];

/** Every known error code. */
export const knownErrorCodes = Object.keys(knownErrorLineage) as KnownErrorCode[];

/** Whether a string is a known error code. */
export function isKnownErrorCode(value: unknown): value is KnownErrorCode {
  return typeof value === 'string' && Object.hasOwn(knownErrorLineage, value);
}

/** The HTTP status the service answers a known error with. */
export function statusOf(code: KnownErrorCode): number {
  return knownErrorLineage[code][0];
}

/** The family a known error belongs to, or null. */
export function parentOf(code: KnownErrorCode): KnownErrorFamily | null {
  return knownErrorLineage[code][1];
}

/** A code followed by its families, most specific first. */
export function lineageOf(code: KnownErrorCode): Array<KnownErrorCode | KnownErrorFamily> {
  const chain: Array<KnownErrorCode | KnownErrorFamily> = [code];
  let family: KnownErrorFamily | null = parentOf(code);
  while (family !== null) {
    chain.push(family);
    family = knownErrorFamilies[family];
  }
  return chain;
}

/** Whether `code` is `codeOrFamily` or belongs to that family. */
export function codeBelongsTo(code: KnownErrorCode, codeOrFamily: KnownErrorCode | KnownErrorFamily): boolean {
  return lineageOf(code).includes(codeOrFamily);
}
