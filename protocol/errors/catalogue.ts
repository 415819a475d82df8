import type { KnownErrorFamily } from './families.js';
import type { Shape, ShapeType } from './shape.js';

/**
 * One concrete known error. `details` is exactly what the service puts in the body's `details`
 * (absent when the code has none); `args` are extra inputs that only shape the message (see messages.ts).
 */
export interface CatalogueEntry<D extends Shape = Shape, A extends Shape = Shape, P extends KnownErrorFamily | null = KnownErrorFamily | null> {
  readonly parent: P;
  readonly status: number;
  /** Whether the v2.7.27 service can actually send it (false: defined for clients only). */
  readonly emitted: boolean;
  readonly details: D | null;
  readonly args: A;
}

type EntryInput<P extends KnownErrorFamily | null, D extends Shape, A extends Shape> = {
  parent: P;
  status: number;
  emitted: boolean;
  details?: D;
  args?: A;
};

// `{}` as a default keeps "no details" distinct from "details with no fields" in the types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type None = {};

function entry<const P extends KnownErrorFamily | null, const D extends Shape = None, const A extends Shape = None>(
  input: EntryInput<P, D, A>,
): CatalogueEntry<D, A, P> {
  return { parent: input.parent, status: input.status, emitted: input.emitted, details: input.details ?? null, args: input.args ?? ({} as A) };
}


/**
 * Every concrete known error of the service (PROTOCOL.md §8.3), in the order of that table.
 * The client parses responses with it and the emulator produces responses from it.
 */
export const knownErrorCatalogue = {
  UNSUPPORTED_ERROR: entry({ parent: null, status: 500, emitted: false, details: { originalErrorCode: 'string' } }),
  BODY_PARSING_ERROR: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' } }),
  SCHEMA_ERROR: entry({ parent: null, status: 400, emitted: true, details: { message: 'string' } }),
  ALL_OVERLOADS_FAILED: entry({ parent: null, status: 400, emitted: true, details: { overload_errors: 'unknown[]' } }),
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 400, emitted: true }),
  INVALID_ACCESS_TYPE: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 400, emitted: true, args: { accessType: 'string' } }),
  ACCESS_TYPE_WITHOUT_PROJECT_ID: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 400, emitted: true, details: { request_type: 'string' } }),
  ACCESS_TYPE_REQUIRED: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 400, emitted: true }),
  INSUFFICIENT_ACCESS_TYPE: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 401,
    emitted: true,
    details: { actual_access_type: 'string', allowed_access_types: 'string[]' },
  }),
  INVALID_PUBLISHABLE_CLIENT_KEY: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 401, emitted: true, details: { project_id: 'string' } }),
  INVALID_SECRET_SERVER_KEY: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 401, emitted: true, details: { project_id: 'string' } }),
  INVALID_SUPER_SECRET_ADMIN_KEY: entry({ parent: 'INVALID_PROJECT_AUTHENTICATION', status: 401, emitted: true, details: { project_id: 'string' } }),
  UNPARSABLE_ADMIN_ACCESS_TOKEN: entry({ parent: 'INVALID_ADMIN_ACCESS_TOKEN', status: 401, emitted: true }),
  ADMIN_ACCESS_TOKEN_EXPIRED: entry({ parent: 'INVALID_ADMIN_ACCESS_TOKEN', status: 401, emitted: true, details: { expired_at_millis: 'number|null' } }),
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: entry({ parent: 'INVALID_ADMIN_ACCESS_TOKEN', status: 401, emitted: true }),
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: entry({ parent: 'INVALID_ADMIN_ACCESS_TOKEN', status: 401, emitted: true }),
  CLIENT_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: true }),
  SERVER_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: true }),
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: false }),
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: false }),
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: false }),
  ADMIN_AUTHENTICATION_REQUIRED: entry({ parent: 'PROJECT_AUTHENTICATION_REQUIRED', status: 401, emitted: true }),
  EXPECTED_INTERNAL_PROJECT: entry({ parent: 'PROJECT_AUTHENTICATION_ERROR', status: 401, emitted: true }),
  UNPARSABLE_ACCESS_TOKEN: entry({ parent: 'INVALID_ACCESS_TOKEN', status: 401, emitted: true }),
  ACCESS_TOKEN_EXPIRED: entry({ parent: 'INVALID_ACCESS_TOKEN', status: 401, emitted: true, details: { expired_at_millis: 'number|null' } }),
  INVALID_PROJECT_FOR_ACCESS_TOKEN: entry({ parent: 'INVALID_ACCESS_TOKEN', status: 401, emitted: true }),
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: entry({ parent: 'REFRESH_TOKEN_ERROR', status: 401, emitted: true }),
  CANNOT_DELETE_CURRENT_SESSION: entry({ parent: 'REFRESH_TOKEN_ERROR', status: 400, emitted: true }),
  PROVIDER_REJECTED: entry({ parent: 'REFRESH_TOKEN_ERROR', status: 401, emitted: false }),
  USER_EMAIL_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: true }),
  EMAIL_NOT_VERIFIED: entry({ parent: null, status: 400, emitted: false }),
  CANNOT_GET_OWN_USER_WITHOUT_USER: entry({ parent: null, status: 400, emitted: true }),
  USER_ID_DOES_NOT_EXIST: entry({ parent: null, status: 400, emitted: true, details: { user_id: 'string' } }),
  USER_NOT_FOUND: entry({ parent: null, status: 404, emitted: true }),
  API_KEY_NOT_FOUND: entry({ parent: null, status: 404, emitted: true }),
  PROJECT_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, details: { project_id: 'string' } }),
  SIGN_UP_NOT_ENABLED: entry({ parent: null, status: 400, emitted: true }),
  PASSWORD_AUTHENTICATION_NOT_ENABLED: entry({ parent: null, status: 400, emitted: true }),
  PASSKEY_AUTHENTICATION_NOT_ENABLED: entry({ parent: null, status: 400, emitted: true }),
  EMAIL_PASSWORD_MISMATCH: entry({ parent: null, status: 400, emitted: true }),
  REDIRECT_URL_NOT_WHITELISTED: entry({ parent: null, status: 400, emitted: true }),
  PASSWORD_TOO_SHORT: entry({ parent: 'PASSWORD_REQUIREMENTS_NOT_MET', status: 400, emitted: true, details: { min_length: 'number' } }),
  PASSWORD_TOO_LONG: entry({ parent: 'PASSWORD_REQUIREMENTS_NOT_MET', status: 400, emitted: false, details: { maxLength: 'number' } }),
  USER_DOES_NOT_HAVE_PASSWORD: entry({ parent: null, status: 400, emitted: true }),
  VERIFICATION_CODE_NOT_FOUND: entry({ parent: 'VERIFICATION_ERROR', status: 404, emitted: true }),
  VERIFICATION_CODE_EXPIRED: entry({ parent: 'VERIFICATION_ERROR', status: 400, emitted: true }),
  VERIFICATION_CODE_ALREADY_USED: entry({ parent: 'VERIFICATION_ERROR', status: 409, emitted: true }),
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: entry({ parent: 'VERIFICATION_ERROR', status: 400, emitted: true }),
  PASSWORD_CONFIRMATION_MISMATCH: entry({ parent: null, status: 400, emitted: true }),
  EMAIL_ALREADY_VERIFIED: entry({ parent: null, status: 409, emitted: true }),
  EMAIL_NOT_ASSOCIATED_WITH_USER: entry({ parent: null, status: 400, emitted: false }),
  EMAIL_IS_NOT_PRIMARY_EMAIL: entry({ parent: null, status: 400, emitted: true, details: { email: 'string', primary_email: 'string|null' } }),
  PASSKEY_REGISTRATION_FAILED: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' } }),
  PASSKEY_WEBAUTHN_ERROR: entry({ parent: null, status: 400, emitted: false, details: { message: 'string', code: 'string' } }),
  PASSKEY_AUTHENTICATION_FAILED: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' } }),
  PERMISSION_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, details: { permission_id: 'string' } }),
  CONTAINED_PERMISSION_NOT_FOUND: entry({ parent: null, status: 400, emitted: true, details: { permission_id: 'string' } }),
  TEAM_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, details: { team_id: 'string' } }),
  TEAM_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: false, details: { team_id: 'string' } }),
  TEAM_MEMBERSHIP_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, details: { team_id: 'string', user_id: 'string' } }),
  EMAIL_TEMPLATE_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: false }),
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: entry({ parent: null, status: 400, emitted: true }),
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: entry({ parent: null, status: 409, emitted: true }),
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: entry({ parent: null, status: 400, emitted: true }),
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: entry({ parent: null, status: 400, emitted: true }),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: entry({ parent: null, status: 400, emitted: true }),
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: entry({ parent: null, status: 400, emitted: true, details: { client_id: 'string|null' } }),
  INVALID_SCOPE: entry({ parent: null, status: 400, emitted: false, args: { scope: 'string' } }),
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: entry({ parent: null, status: 409, emitted: true }),
  OUTER_OAUTH_TIMEOUT: entry({ parent: null, status: 408, emitted: true }),
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: entry({ parent: null, status: 400, emitted: true }),
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: entry({ parent: null, status: 400, emitted: true, details: { attempt_code: 'string' } }),
  INVALID_TOTP_CODE: entry({ parent: null, status: 400, emitted: true }),
  USER_AUTHENTICATION_REQUIRED: entry({ parent: null, status: 401, emitted: true }),
  TEAM_MEMBERSHIP_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: true }),
  TEAM_PERMISSION_REQUIRED: entry({ parent: null, status: 401, emitted: true, details: { team_id: 'string', user_id: 'string', permission_id: 'string' } }),
  TEAM_PERMISSION_NOT_FOUND: entry({ parent: null, status: 401, emitted: true, details: { team_id: 'string', user_id: 'string', permission_id: 'string' } }),
  INVALID_SHARED_OAUTH_PROVIDER_ID: entry({ parent: null, status: 400, emitted: true, details: { provider_id: 'string' } }),
  INVALID_STANDARD_OAUTH_PROVIDER_ID: entry({ parent: null, status: 400, emitted: true, details: { provider_id: 'string' } }),
  INVALID_AUTHORIZATION_CODE: entry({ parent: null, status: 400, emitted: true }),
  OAUTH_PROVIDER_ACCESS_DENIED: entry({ parent: null, status: 400, emitted: true }),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: entry({
    parent: null,
    status: 409,
    emitted: true,
    details: { type: 'string', contact_channel_value: 'string|null' },
  }),
  INVALID_POLLING_CODE: entry({ parent: null, status: 400, emitted: true }),
} as const;

export type KnownErrorCode = keyof typeof knownErrorCatalogue;

type EntryOf<C extends KnownErrorCode> = (typeof knownErrorCatalogue)[C];
type DetailsShapeOf<C extends KnownErrorCode> = NonNullable<EntryOf<C>['details']>;
type ArgsShapeOf<C extends KnownErrorCode> = EntryOf<C>['args'];
/** The direct parent family of a code (null: a child of the root). */
export type ParentOf<C extends KnownErrorCode> = EntryOf<C>['parent'];

/** The `details` object a code carries on the wire, or `undefined` for codes without details. */
export type KnownErrorDetails<C extends KnownErrorCode> = C extends KnownErrorCode
  ? keyof DetailsShapeOf<C> extends never
    ? undefined
    : ShapeType<DetailsShapeOf<C>>
  : never;

/** What it takes to build a code's message: its details plus any message-only arguments. */
export type KnownErrorInput<C extends KnownErrorCode> = ShapeType<DetailsShapeOf<C>> & ShapeType<ArgsShapeOf<C>>;

export const knownErrorCodes = Object.keys(knownErrorCatalogue) as KnownErrorCode[];

export function isKnownErrorCode(value: unknown): value is KnownErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(knownErrorCatalogue, value);
}

export function catalogueEntry(code: KnownErrorCode): CatalogueEntry {
  return knownErrorCatalogue[code] as unknown as CatalogueEntry;
}
