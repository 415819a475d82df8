import { knownErrorDetails } from './details.js';
import { type KnownErrorCode } from './lineage.js';
import type { Shape, ShapeType } from './shape.js';

/**
 * One concrete known error. `details` is exactly what the service puts in the body's `details`
 * (absent when the code has none); `args` are extra inputs that only shape the message (see messages.ts).
 */
export interface CatalogueEntry<D extends Shape = Shape, A extends Shape = Shape> {
  /** Whether the v2.7.27 service can actually send it (false: defined for clients only). */
  readonly emitted: boolean;
  readonly details: D | null;
  readonly args: A;
}

type EntryInput<D extends Shape, A extends Shape> = {
  emitted: boolean;
  details?: D;
  args?: A;
};

// `{}` as a default keeps "no details" distinct from "details with no fields" in the types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type None = {};

function entry<const D extends Shape = None, const A extends Shape = None>(
  input: EntryInput<D, A>,
): CatalogueEntry<D, A> {
  return { emitted: input.emitted, details: input.details ?? null, args: input.args ?? ({} as A) };
}

/**
 * Every concrete known error of the service (PROTOCOL.md §8.3), in the order of that table: what
 * its body carries. Its status and family are in lineage.ts. Entries are pure, so bundles that only
 * read errors (the tab side) leave this table out.
 */
export const knownErrorCatalogue = {
  UNSUPPORTED_ERROR: /* @__PURE__ */ entry({ emitted: false, details: knownErrorDetails.UNSUPPORTED_ERROR }),
  BODY_PARSING_ERROR: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
  SCHEMA_ERROR: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.SCHEMA_ERROR }),
  ALL_OVERLOADS_FAILED: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.ALL_OVERLOADS_FAILED }),
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: /* @__PURE__ */ entry({ emitted: true }),
  INVALID_ACCESS_TYPE: /* @__PURE__ */ entry({ emitted: true, args: { accessType: 'string' } }),
  ACCESS_TYPE_WITHOUT_PROJECT_ID: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.ACCESS_TYPE_WITHOUT_PROJECT_ID,
  }),
  ACCESS_TYPE_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  INSUFFICIENT_ACCESS_TYPE: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INSUFFICIENT_ACCESS_TYPE,
  }),
  INVALID_PUBLISHABLE_CLIENT_KEY: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_PUBLISHABLE_CLIENT_KEY,
  }),
  INVALID_SECRET_SERVER_KEY: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_SECRET_SERVER_KEY,
  }),
  INVALID_SUPER_SECRET_ADMIN_KEY: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_SUPER_SECRET_ADMIN_KEY,
  }),
  UNPARSABLE_ADMIN_ACCESS_TOKEN: /* @__PURE__ */ entry({ emitted: true }),
  ADMIN_ACCESS_TOKEN_EXPIRED: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.ADMIN_ACCESS_TOKEN_EXPIRED,
  }),
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: /* @__PURE__ */ entry({ emitted: true }),
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: /* @__PURE__ */ entry({ emitted: true }),
  CLIENT_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  SERVER_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: false }),
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: false }),
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: false }),
  ADMIN_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  EXPECTED_INTERNAL_PROJECT: /* @__PURE__ */ entry({ emitted: true }),
  UNPARSABLE_ACCESS_TOKEN: /* @__PURE__ */ entry({ emitted: true }),
  ACCESS_TOKEN_EXPIRED: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.ACCESS_TOKEN_EXPIRED }),
  INVALID_PROJECT_FOR_ACCESS_TOKEN: /* @__PURE__ */ entry({ emitted: true }),
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: /* @__PURE__ */ entry({ emitted: true }),
  CANNOT_DELETE_CURRENT_SESSION: /* @__PURE__ */ entry({ emitted: true }),
  PROVIDER_REJECTED: /* @__PURE__ */ entry({ emitted: false }),
  USER_EMAIL_ALREADY_EXISTS: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.USER_EMAIL_ALREADY_EXISTS,
  }),
  EMAIL_NOT_VERIFIED: /* @__PURE__ */ entry({ emitted: false }),
  CANNOT_GET_OWN_USER_WITHOUT_USER: /* @__PURE__ */ entry({ emitted: true }),
  USER_ID_DOES_NOT_EXIST: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.USER_ID_DOES_NOT_EXIST }),
  USER_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true }),
  API_KEY_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true }),
  API_KEY_EXPIRED: /* @__PURE__ */ entry({ emitted: true }),
  API_KEY_REVOKED: /* @__PURE__ */ entry({ emitted: true }),
  WRONG_API_KEY_TYPE: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.WRONG_API_KEY_TYPE }),
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN: /* @__PURE__ */ entry({ emitted: true }),
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED,
  }),
  PROJECT_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.PROJECT_NOT_FOUND }),
  SIGN_UP_NOT_ENABLED: /* @__PURE__ */ entry({ emitted: true }),
  PASSWORD_AUTHENTICATION_NOT_ENABLED: /* @__PURE__ */ entry({ emitted: true }),
  PASSKEY_AUTHENTICATION_NOT_ENABLED: /* @__PURE__ */ entry({ emitted: true }),
  EMAIL_PASSWORD_MISMATCH: /* @__PURE__ */ entry({ emitted: true }),
  REDIRECT_URL_NOT_WHITELISTED: /* @__PURE__ */ entry({ emitted: true }),
  PASSWORD_TOO_SHORT: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.PASSWORD_TOO_SHORT }),
  PASSWORD_TOO_LONG: /* @__PURE__ */ entry({ emitted: false, details: knownErrorDetails.PASSWORD_TOO_LONG }),
  USER_DOES_NOT_HAVE_PASSWORD: /* @__PURE__ */ entry({ emitted: true }),
  VERIFICATION_CODE_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true }),
  VERIFICATION_CODE_EXPIRED: /* @__PURE__ */ entry({ emitted: true }),
  VERIFICATION_CODE_ALREADY_USED: /* @__PURE__ */ entry({ emitted: true }),
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: /* @__PURE__ */ entry({ emitted: true }),
  PASSWORD_CONFIRMATION_MISMATCH: /* @__PURE__ */ entry({ emitted: true }),
  EMAIL_ALREADY_VERIFIED: /* @__PURE__ */ entry({ emitted: true }),
  EMAIL_NOT_ASSOCIATED_WITH_USER: /* @__PURE__ */ entry({ emitted: false }),
  EMAIL_IS_NOT_PRIMARY_EMAIL: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.EMAIL_IS_NOT_PRIMARY_EMAIL,
  }),
  PASSKEY_REGISTRATION_FAILED: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
  PASSKEY_WEBAUTHN_ERROR: /* @__PURE__ */ entry({ emitted: false, details: knownErrorDetails.PASSKEY_WEBAUTHN_ERROR }),
  PASSKEY_AUTHENTICATION_FAILED: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
  PERMISSION_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.PERMISSION_NOT_FOUND }),
  CONTAINED_PERMISSION_NOT_FOUND: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.CONTAINED_PERMISSION_NOT_FOUND,
  }),
  TEAM_NOT_FOUND: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.TEAM_NOT_FOUND }),
  TEAM_ALREADY_EXISTS: /* @__PURE__ */ entry({ emitted: false, details: knownErrorDetails.TEAM_ALREADY_EXISTS }),
  TEAM_MEMBERSHIP_NOT_FOUND: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.TEAM_MEMBERSHIP_NOT_FOUND,
  }),
  EMAIL_TEMPLATE_ALREADY_EXISTS: /* @__PURE__ */ entry({ emitted: false }),
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: /* @__PURE__ */ entry({ emitted: true }),
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_OAUTH_CLIENT_ID_OR_SECRET,
  }),
  INVALID_SCOPE: /* @__PURE__ */ entry({ emitted: false, args: { scope: 'string' } }),
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: /* @__PURE__ */ entry({ emitted: true }),
  OUTER_OAUTH_TIMEOUT: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: /* @__PURE__ */ entry({ emitted: true }),
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.MULTI_FACTOR_AUTHENTICATION_REQUIRED,
  }),
  INVALID_TOTP_CODE: /* @__PURE__ */ entry({ emitted: true }),
  USER_AUTHENTICATION_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  TEAM_MEMBERSHIP_ALREADY_EXISTS: /* @__PURE__ */ entry({ emitted: true }),
  TEAM_PERMISSION_REQUIRED: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.TEAM_PERMISSION_REQUIRED,
  }),
  TEAM_PERMISSION_NOT_FOUND: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.TEAM_PERMISSION_NOT_FOUND,
  }),
  INVALID_SHARED_OAUTH_PROVIDER_ID: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_SHARED_OAUTH_PROVIDER_ID,
  }),
  INVALID_STANDARD_OAUTH_PROVIDER_ID: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.INVALID_STANDARD_OAUTH_PROVIDER_ID,
  }),
  INVALID_AUTHORIZATION_CODE: /* @__PURE__ */ entry({ emitted: true }),
  OAUTH_PROVIDER_ACCESS_DENIED: /* @__PURE__ */ entry({ emitted: true }),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE,
  }),
  INVALID_POLLING_CODE: /* @__PURE__ */ entry({ emitted: true }),
  CURRENT_PROJECT_NOT_FOUND: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.CURRENT_PROJECT_NOT_FOUND,
  }),
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT,
  }),
  BRANCH_DOES_NOT_EXIST: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.BRANCH_DOES_NOT_EXIST }),
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: /* @__PURE__ */ entry({ emitted: true }),
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED: /* @__PURE__ */ entry({ emitted: true }),
  RESTRICTED_USER_NOT_ALLOWED: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.RESTRICTED_USER_NOT_ALLOWED,
  }),
  PERMISSION_ID_ALREADY_EXISTS: /* @__PURE__ */ entry({
    emitted: true,
    details: knownErrorDetails.PERMISSION_ID_ALREADY_EXISTS,
  }),
  SIGN_UP_REJECTED: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.SIGN_UP_REJECTED }),
  BOT_CHALLENGE_REQUIRED: /* @__PURE__ */ entry({ emitted: true }),
  BOT_CHALLENGE_FAILED: /* @__PURE__ */ entry({ emitted: true, details: knownErrorDetails.BOT_CHALLENGE_FAILED }),
  CLI_AUTH_ERROR: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
  CLI_AUTH_EXPIRED_ERROR: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
  CLI_AUTH_USED_ERROR: /* @__PURE__ */ entry({ emitted: true, args: { message: 'string' } }),
} as const;

type MissingEntries = Exclude<KnownErrorCode, keyof typeof knownErrorCatalogue>;
type ExtraEntries = Exclude<keyof typeof knownErrorCatalogue, KnownErrorCode>;
/** Checked by the compiler: this table and lineage.ts name exactly the same codes. */
export const catalogueMatchesLineage: [MissingEntries, ExtraEntries] extends [never, never] ? true : never = true;

type EntryOf<C extends KnownErrorCode> = (typeof knownErrorCatalogue)[C];
type DetailsShapeOf<C extends KnownErrorCode> = NonNullable<EntryOf<C>['details']>;
type ArgsShapeOf<C extends KnownErrorCode> = EntryOf<C>['args'];

/** The `details` object a code carries on the wire, or `undefined` for codes without details. */
export type KnownErrorDetails<C extends KnownErrorCode> = C extends KnownErrorCode
  ? keyof DetailsShapeOf<C> extends never
    ? undefined
    : ShapeType<DetailsShapeOf<C>>
  : never;

/** What it takes to build a code's message: its details plus any message-only arguments. */
export type KnownErrorInput<C extends KnownErrorCode> = ShapeType<DetailsShapeOf<C>> & ShapeType<ArgsShapeOf<C>>;

/** A known error's catalogue entry: its details and message arguments. */
export function catalogueEntry(code: KnownErrorCode): CatalogueEntry {
  return knownErrorCatalogue[code] as unknown as CatalogueEntry;
}

export { isKnownErrorCode, knownErrorCodes, type KnownErrorCode, type ParentOf } from './lineage.js';
