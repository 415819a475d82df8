import type { KnownErrorFamily } from './families.js';
import type { Shape, ShapeType } from './shape.js';

/**
 * One concrete known error. `details` is exactly what the service puts in the body's `details`
 * (absent when the code has none); `args` are extra inputs that only shape the message.
 */
export interface CatalogueEntry<D extends Shape = Shape, A extends Shape = Shape, P extends KnownErrorFamily | null = KnownErrorFamily | null> {
  readonly parent: P;
  readonly status: number;
  /** Whether the v2.7.27 service can actually send it (false: defined for clients only). */
  readonly emitted: boolean;
  readonly details: D | null;
  readonly args: A;
  readonly message: (input: ShapeType<D> & ShapeType<A>) => string;
}

type EntryInput<P extends KnownErrorFamily | null, D extends Shape, A extends Shape> = {
  parent: P;
  status: number;
  emitted: boolean;
  details?: D;
  args?: A;
  message: string | ((input: ShapeType<D> & ShapeType<A>) => string);
};

// `{}` as a default keeps "no details" distinct from "details with no fields" in the types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type None = {};

function entry<const P extends KnownErrorFamily | null, const D extends Shape = None, const A extends Shape = None>(
  input: EntryInput<P, D, A>,
): CatalogueEntry<D, A, P> {
  const { message } = input;
  return {
    parent: input.parent,
    status: input.status,
    emitted: input.emitted,
    details: input.details ?? null,
    args: input.args ?? ({} as A),
    message: typeof message === 'string' ? () => message : message,
  };
}

const quote = (value: string) => JSON.stringify(value);
const REST_AUTH_DOCS = '\n\nFor more information, see the docs on REST API authentication: https://docs.stack-auth.com/rest-api/overview#authentication';
const expiredAt = (millis: number | null) => (millis === null ? '' : ` (The access token expired at ${new Date(millis).toISOString()}.)`);
const permissionMessage = (d: { team_id: string; user_id: string; permission_id: string }) =>
  `User ${d.user_id} does not have permission ${d.permission_id} in team ${d.team_id}.`;

/**
 * Every concrete known error of the service (PROTOCOL.md §8.3), in the order of that table.
 * The client parses responses with it and the emulator produces responses from it.
 */
export const knownErrorCatalogue = {
  UNSUPPORTED_ERROR: entry({
    parent: null,
    status: 500,
    emitted: false,
    details: { originalErrorCode: 'string' },
    message: (d) =>
      `An error occurred that is not currently supported (possibly because it was added in a version of Stack that is newer than this client). The original unsupported error code was: ${d.originalErrorCode}`,
  }),
  BODY_PARSING_ERROR: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' }, message: (a) => a.message }),
  SCHEMA_ERROR: entry({ parent: null, status: 400, emitted: true, details: { message: 'string' }, message: (d) => d.message }),
  ALL_OVERLOADS_FAILED: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { overload_errors: 'unknown[]' },
    message: (d) =>
      [
        'This endpoint has multiple overloads, but they all failed to process the request.',
        '',
        ...d.overload_errors.map((error, i) => `  Overload ${i}: ${JSON.stringify(error, null, 2).replace(/\n/g, '\n  ')}`),
      ].join('\n'),
  }),
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 400,
    emitted: true,
    message:
      "Either an API key or an admin access token was provided, but the x-stack-access-type header is missing. Set it to 'client', 'server', or 'admin' as appropriate.",
  }),
  INVALID_ACCESS_TYPE: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 400,
    emitted: true,
    args: { accessType: 'string' },
    message: (a) => `The x-stack-access-type header must be 'client', 'server', or 'admin', but was '${a.accessType}'.`,
  }),
  ACCESS_TYPE_WITHOUT_PROJECT_ID: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 400,
    emitted: true,
    details: { request_type: 'string' },
    message: (d) => `The x-stack-access-type header was '${d.request_type}', but the x-stack-project-id header was not provided.${REST_AUTH_DOCS}`,
  }),
  ACCESS_TYPE_REQUIRED: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 400,
    emitted: true,
    message: `You must specify an access level for this Stack project. Make sure project API keys are provided (eg. x-stack-publishable-client-key) and you set the x-stack-access-type header to 'client', 'server', or 'admin'.${REST_AUTH_DOCS}`,
  }),
  INSUFFICIENT_ACCESS_TYPE: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 401,
    emitted: true,
    details: { actual_access_type: 'string', allowed_access_types: 'string[]' },
    message: (d) =>
      `The x-stack-access-type header must be ${d.allowed_access_types.map((t) => `'${t}'`).join(' or ')}, but was '${d.actual_access_type}'.`,
  }),
  INVALID_PUBLISHABLE_CLIENT_KEY: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 401,
    emitted: true,
    details: { project_id: 'string' },
    message: (d) => `The publishable key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  }),
  INVALID_SECRET_SERVER_KEY: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 401,
    emitted: true,
    details: { project_id: 'string' },
    message: (d) => `The secret server key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  }),
  INVALID_SUPER_SECRET_ADMIN_KEY: entry({
    parent: 'INVALID_PROJECT_AUTHENTICATION',
    status: 401,
    emitted: true,
    details: { project_id: 'string' },
    message: (d) => `The super secret admin key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  }),
  UNPARSABLE_ADMIN_ACCESS_TOKEN: entry({ parent: 'INVALID_ADMIN_ACCESS_TOKEN', status: 401, emitted: true, message: 'Admin access token is not parsable.' }),
  ADMIN_ACCESS_TOKEN_EXPIRED: entry({
    parent: 'INVALID_ADMIN_ACCESS_TOKEN',
    status: 401,
    emitted: true,
    details: { expired_at_millis: 'number|null' },
    message: (d) => `Admin access token has expired. Please refresh it and try again.${expiredAt(d.expired_at_millis)}`,
  }),
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: entry({
    parent: 'INVALID_ADMIN_ACCESS_TOKEN',
    status: 401,
    emitted: true,
    message: 'Admin access tokens must be created on the internal project.',
  }),
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: entry({
    parent: 'INVALID_ADMIN_ACCESS_TOKEN',
    status: 401,
    emitted: true,
    message: 'Admin access token does not have the required permissions to access this project.',
  }),
  CLIENT_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: true,
    message: 'The publishable client key must be provided.',
  }),
  SERVER_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: true,
    message: 'The secret server key must be provided.',
  }),
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: false,
    message: 'Either the publishable client key or the secret server key must be provided.',
  }),
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: false,
    message: 'Either the publishable client key or the super secret admin key must be provided.',
  }),
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: false,
    message: 'Either the publishable client key, the secret server key, or the super secret admin key must be provided.',
  }),
  ADMIN_AUTHENTICATION_REQUIRED: entry({
    parent: 'PROJECT_AUTHENTICATION_REQUIRED',
    status: 401,
    emitted: true,
    message: 'The super secret admin key must be provided.',
  }),
  EXPECTED_INTERNAL_PROJECT: entry({
    parent: 'PROJECT_AUTHENTICATION_ERROR',
    status: 401,
    emitted: true,
    message: 'The project ID is expected to be internal.',
  }),
  UNPARSABLE_ACCESS_TOKEN: entry({ parent: 'INVALID_ACCESS_TOKEN', status: 401, emitted: true, message: 'Access token is not parsable.' }),
  ACCESS_TOKEN_EXPIRED: entry({
    parent: 'INVALID_ACCESS_TOKEN',
    status: 401,
    emitted: true,
    details: { expired_at_millis: 'number|null' },
    message: (d) => `Access token has expired. Please refresh it and try again.${expiredAt(d.expired_at_millis)}`,
  }),
  INVALID_PROJECT_FOR_ACCESS_TOKEN: entry({
    parent: 'INVALID_ACCESS_TOKEN',
    status: 401,
    emitted: true,
    message: 'Access token not valid for this project.',
  }),
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: entry({
    parent: 'REFRESH_TOKEN_ERROR',
    status: 401,
    emitted: true,
    message: 'Refresh token not found for this project, or the session has expired/been revoked.',
  }),
  CANNOT_DELETE_CURRENT_SESSION: entry({ parent: 'REFRESH_TOKEN_ERROR', status: 400, emitted: true, message: 'Cannot delete the current session.' }),
  PROVIDER_REJECTED: entry({
    parent: 'REFRESH_TOKEN_ERROR',
    status: 401,
    emitted: false,
    message:
      'The provider refused to refresh their token. This usually means that the provider used to authenticate the user no longer regards this session as valid, and the user must re-authenticate.',
  }),
  USER_EMAIL_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: true, message: 'User email already exists.' }),
  EMAIL_NOT_VERIFIED: entry({ parent: null, status: 400, emitted: false, message: 'The email is not verified.' }),
  CANNOT_GET_OWN_USER_WITHOUT_USER: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: "You have specified 'me' as a userId, but did not provide authentication for a user.",
  }),
  USER_ID_DOES_NOT_EXIST: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { user_id: 'string' },
    message: (d) => `The given user with the ID ${d.user_id} does not exist.`,
  }),
  USER_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, message: 'User not found.' }),
  API_KEY_NOT_FOUND: entry({ parent: null, status: 404, emitted: true, message: 'API key not found.' }),
  PROJECT_NOT_FOUND: entry({
    parent: null,
    status: 404,
    emitted: true,
    details: { project_id: 'string' },
    message: (d) => `Project ${d.project_id} not found or is not accessible with the current user.`,
  }),
  SIGN_UP_NOT_ENABLED: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'Creation of new accounts is not enabled for this project. Please ask the project owner to enable it.',
  }),
  PASSWORD_AUTHENTICATION_NOT_ENABLED: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'Password authentication is not enabled for this project.',
  }),
  PASSKEY_AUTHENTICATION_NOT_ENABLED: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'Passkey authentication is not enabled for this project.',
  }),
  EMAIL_PASSWORD_MISMATCH: entry({ parent: null, status: 400, emitted: true, message: 'Wrong e-mail or password.' }),
  REDIRECT_URL_NOT_WHITELISTED: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'Redirect URL not whitelisted. Did you forget to add this domain to the trusted domains list on the Stack Auth dashboard?',
  }),
  PASSWORD_TOO_SHORT: entry({
    parent: 'PASSWORD_REQUIREMENTS_NOT_MET',
    status: 400,
    emitted: true,
    details: { min_length: 'number' },
    message: (d) => `Password too short. Minimum length is ${d.min_length}.`,
  }),
  PASSWORD_TOO_LONG: entry({
    parent: 'PASSWORD_REQUIREMENTS_NOT_MET',
    status: 400,
    emitted: false,
    details: { maxLength: 'number' },
    message: (d) => `Password too long. Maximum length is ${d.maxLength}.`,
  }),
  USER_DOES_NOT_HAVE_PASSWORD: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'This user does not have password authentication enabled.',
  }),
  VERIFICATION_CODE_NOT_FOUND: entry({
    parent: 'VERIFICATION_ERROR',
    status: 404,
    emitted: true,
    message: 'The verification code does not exist for this project.',
  }),
  VERIFICATION_CODE_EXPIRED: entry({ parent: 'VERIFICATION_ERROR', status: 400, emitted: true, message: 'The verification code has expired.' }),
  VERIFICATION_CODE_ALREADY_USED: entry({
    parent: 'VERIFICATION_ERROR',
    status: 409,
    emitted: true,
    message: 'The verification link has already been used.',
  }),
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: entry({
    parent: 'VERIFICATION_ERROR',
    status: 400,
    emitted: true,
    message: 'The verification code nonce has reached the maximum number of attempts. This code is not valid anymore.',
  }),
  PASSWORD_CONFIRMATION_MISMATCH: entry({ parent: null, status: 400, emitted: true, message: 'Passwords do not match.' }),
  EMAIL_ALREADY_VERIFIED: entry({ parent: null, status: 409, emitted: true, message: 'The e-mail is already verified.' }),
  EMAIL_NOT_ASSOCIATED_WITH_USER: entry({
    parent: null,
    status: 400,
    emitted: false,
    message: 'The e-mail is not associated with a user that could log in with that e-mail.',
  }),
  EMAIL_IS_NOT_PRIMARY_EMAIL: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { email: 'string', primary_email: 'string|null' },
    message: (d) => `The given e-mail (${d.email}) must equal the user's primary e-mail (${String(d.primary_email)}).`,
  }),
  PASSKEY_REGISTRATION_FAILED: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' }, message: (a) => a.message }),
  PASSKEY_WEBAUTHN_ERROR: entry({
    parent: null,
    status: 400,
    emitted: false,
    details: { message: 'string', code: 'string' },
    message: (d) => d.message,
  }),
  PASSKEY_AUTHENTICATION_FAILED: entry({ parent: null, status: 400, emitted: true, args: { message: 'string' }, message: (a) => a.message }),
  PERMISSION_NOT_FOUND: entry({
    parent: null,
    status: 404,
    emitted: true,
    details: { permission_id: 'string' },
    message: (d) => `Permission "${d.permission_id}" not found. Make sure you created it on the dashboard.`,
  }),
  CONTAINED_PERMISSION_NOT_FOUND: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { permission_id: 'string' },
    message: (d) => `Contained permission with ID "${d.permission_id}" not found. Make sure you created it on the dashboard.`,
  }),
  TEAM_NOT_FOUND: entry({
    parent: null,
    status: 404,
    emitted: true,
    details: { team_id: 'string' },
    message: (d) => `Team ${d.team_id} not found.`,
  }),
  TEAM_ALREADY_EXISTS: entry({
    parent: null,
    status: 409,
    emitted: false,
    details: { team_id: 'string' },
    message: (d) => `Team ${d.team_id} already exists.`,
  }),
  TEAM_MEMBERSHIP_NOT_FOUND: entry({
    parent: null,
    status: 404,
    emitted: true,
    details: { team_id: 'string', user_id: 'string' },
    message: (d) => `User ${d.user_id} is not found in team ${d.team_id}.`,
  }),
  EMAIL_TEMPLATE_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: false, message: 'Email template already exists.' }),
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'The OAuth connection is not connected to any user.',
  }),
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: entry({
    parent: null,
    status: 409,
    emitted: true,
    message: 'The OAuth connection is already connected to another user.',
  }),
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'The OAuth connection does not have the required scope.',
  }),
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: entry({
    parent: null,
    status: 400,
    emitted: true,
    message:
      'Extra scopes are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use extra scopes.',
  }),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: entry({
    parent: null,
    status: 400,
    emitted: true,
    message:
      'Access tokens are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use access tokens.',
  }),
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { client_id: 'string|null' },
    message:
      'The OAuth client ID or secret is invalid. The client ID must be equal to the project ID, and the client secret must be a publishable client key.',
  }),
  INVALID_SCOPE: entry({
    parent: null,
    status: 400,
    emitted: false,
    args: { scope: 'string' },
    message: (a) => `The scope "${a.scope}" is not a valid OAuth scope for Stack.`,
  }),
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: entry({
    parent: null,
    status: 409,
    emitted: true,
    message: 'The user is already connected to another OAuth account. Did you maybe selected the wrong account?',
  }),
  OUTER_OAUTH_TIMEOUT: entry({ parent: null, status: 408, emitted: true, message: 'The OAuth flow has timed out. Please sign in again.' }),
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: entry({
    parent: null,
    status: 400,
    emitted: true,
    message: 'The OAuth provider is not found or not enabled.',
  }),
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { attempt_code: 'string' },
    message: 'Multi-factor authentication is required for this user.',
  }),
  INVALID_TOTP_CODE: entry({ parent: null, status: 400, emitted: true, message: 'The TOTP code is invalid. Please try again.' }),
  USER_AUTHENTICATION_REQUIRED: entry({ parent: null, status: 401, emitted: true, message: 'User authentication required for this endpoint.' }),
  TEAM_MEMBERSHIP_ALREADY_EXISTS: entry({ parent: null, status: 409, emitted: true, message: 'Team membership already exists.' }),
  TEAM_PERMISSION_REQUIRED: entry({
    parent: null,
    status: 401,
    emitted: true,
    details: { team_id: 'string', user_id: 'string', permission_id: 'string' },
    message: permissionMessage,
  }),
  TEAM_PERMISSION_NOT_FOUND: entry({
    parent: null,
    status: 401,
    emitted: true,
    details: { team_id: 'string', user_id: 'string', permission_id: 'string' },
    message: permissionMessage,
  }),
  INVALID_SHARED_OAUTH_PROVIDER_ID: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { provider_id: 'string' },
    message: (d) => `The shared OAuth provider with ID ${d.provider_id} is not valid.`,
  }),
  INVALID_STANDARD_OAUTH_PROVIDER_ID: entry({
    parent: null,
    status: 400,
    emitted: true,
    details: { provider_id: 'string' },
    message: (d) => `The standard OAuth provider with ID ${d.provider_id} is not valid.`,
  }),
  INVALID_AUTHORIZATION_CODE: entry({ parent: null, status: 400, emitted: true, message: 'The given authorization code is invalid.' }),
  OAUTH_PROVIDER_ACCESS_DENIED: entry({ parent: null, status: 400, emitted: true, message: 'The OAuth provider denied access to the user.' }),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: entry({
    parent: null,
    status: 409,
    emitted: true,
    details: { type: 'string', contact_channel_value: 'string|null' },
    message: (d) =>
      d.contact_channel_value === null
        ? `This ${d.type} is already used for authentication by another account.`
        : `The ${d.type} (${d.contact_channel_value}) is already used for authentication by another account.`,
  }),
  INVALID_POLLING_CODE: entry({ parent: null, status: 400, emitted: true, message: 'The polling code is invalid or does not exist.' }),
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
