/**
 * The `details` each known error carries on the wire (PROTOCOL.md §8.3), for the codes that carry
 * any: all that code which parses or makes error bodies needs at run time (the broker, the
 * emulator). The full catalogue (catalogue.ts: which codes the service emits, message-only
 * arguments) takes its details from here.
 */
import type { KnownErrorCode } from './lineage.js';
import type { Shape } from './shape.js';

export const knownErrorDetails = {
  UNSUPPORTED_ERROR: { originalErrorCode: 'string' },
  SCHEMA_ERROR: { message: 'string' },
  ALL_OVERLOADS_FAILED: { overload_errors: 'unknown[]' },
  ACCESS_TYPE_WITHOUT_PROJECT_ID: { request_type: 'string' },
  INSUFFICIENT_ACCESS_TYPE: { actual_access_type: 'string', allowed_access_types: 'string[]' },
  INVALID_PUBLISHABLE_CLIENT_KEY: { project_id: 'string' },
  INVALID_SECRET_SERVER_KEY: { project_id: 'string' },
  INVALID_SUPER_SECRET_ADMIN_KEY: { project_id: 'string' },
  ADMIN_ACCESS_TOKEN_EXPIRED: { expired_at_millis: 'number|null' },
  ACCESS_TOKEN_EXPIRED: { expired_at_millis: 'number|null' },
  USER_ID_DOES_NOT_EXIST: { user_id: 'string' },
  PROJECT_NOT_FOUND: { project_id: 'string' },
  PASSWORD_TOO_SHORT: { min_length: 'number' },
  PASSWORD_TOO_LONG: { maxLength: 'number' },
  EMAIL_IS_NOT_PRIMARY_EMAIL: { email: 'string', primary_email: 'string|null' },
  PASSKEY_WEBAUTHN_ERROR: { message: 'string', code: 'string' },
  PERMISSION_NOT_FOUND: { permission_id: 'string' },
  CONTAINED_PERMISSION_NOT_FOUND: { permission_id: 'string' },
  TEAM_NOT_FOUND: { team_id: 'string' },
  TEAM_ALREADY_EXISTS: { team_id: 'string' },
  TEAM_MEMBERSHIP_NOT_FOUND: { team_id: 'string', user_id: 'string' },
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: { client_id: 'string|null' },
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: { attempt_code: 'string' },
  TEAM_PERMISSION_REQUIRED: { team_id: 'string', user_id: 'string', permission_id: 'string' },
  TEAM_PERMISSION_NOT_FOUND: { team_id: 'string', user_id: 'string', permission_id: 'string' },
  INVALID_SHARED_OAUTH_PROVIDER_ID: { provider_id: 'string' },
  INVALID_STANDARD_OAUTH_PROVIDER_ID: { provider_id: 'string' },
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: { type: 'string', contact_channel_value: 'string|null' },
  USER_EMAIL_ALREADY_EXISTS: { email: 'string', would_work_if_email_was_verified: 'boolean' },
  CURRENT_PROJECT_NOT_FOUND: { project_id: 'string' },
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: { project_id: 'string|null' },
  BRANCH_DOES_NOT_EXIST: { branch_id: 'string' },
  RESTRICTED_USER_NOT_ALLOWED: { restricted_reason: 'object' },
  WRONG_API_KEY_TYPE: { expected_type: 'string', actual_type: 'string' },
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: { restricted_reason: 'object' },
  PERMISSION_ID_ALREADY_EXISTS: { permission_id: 'string' },
  SIGN_UP_REJECTED: { message: 'string' },
  BOT_CHALLENGE_FAILED: { message: 'string' },
} as const satisfies Partial<Record<KnownErrorCode, Shape>>;

/** The shape of a code's `details`, or null for a code without details. */
export function detailsShapeOf(code: KnownErrorCode): Shape | null {
  return Object.hasOwn(knownErrorDetails, code) ? knownErrorDetails[code as keyof typeof knownErrorDetails] : null;
}
