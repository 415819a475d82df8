import type { KnownErrorCode, KnownErrorInput } from './catalogue.js';

/**
 * The service's message for each known error (PROTOCOL.md §8.3), apart from the catalogue so that
 * code which only reads errors (the tab side) does not carry them. Exhaustive by type.
 */
export type MessageTemplate<C extends KnownErrorCode> = string | ((input: KnownErrorInput<C>) => string);

const quote = (value: string) => JSON.stringify(value);
const REST_AUTH_DOCS =
  '\n\nFor more information, see the docs on REST API authentication: https://docs.stack-auth.com/rest-api/overview#authentication';
const expiredAt = (millis: number | null) =>
  millis === null ? '' : ` (The access token expired at ${new Date(millis).toISOString()}.)`;
const permissionMessage = (d: { team_id: string; user_id: string; permission_id: string }) =>
  `User ${d.user_id} does not have permission ${d.permission_id} in team ${d.team_id}.`;

/** Templates the broker also needs for its own checks, exported alone so the rest can be left out of bundles. */
export const passwordTooShortMessage: MessageTemplate<'PASSWORD_TOO_SHORT'> = (d) =>
  `Password too short. Minimum length is ${d.min_length}.`;
export const passwordTooLongMessage: MessageTemplate<'PASSWORD_TOO_LONG'> = (d) =>
  `Password too long. Maximum length is ${d.maxLength}.`;
export const passwordConfirmationMismatchMessage: MessageTemplate<'PASSWORD_CONFIRMATION_MISMATCH'> =
  'Passwords do not match.';
export const redirectUrlNotWhitelistedMessage: MessageTemplate<'REDIRECT_URL_NOT_WHITELISTED'> =
  'Redirect URL not whitelisted. Did you forget to add this domain to the trusted domains list on the Stack Auth dashboard?';
export const passkeyWebAuthnErrorMessage: MessageTemplate<'PASSKEY_WEBAUTHN_ERROR'> = (d) => d.message;

export const knownErrorMessages: { [C in KnownErrorCode]: MessageTemplate<C> } = {
  UNSUPPORTED_ERROR: (d) =>
    `An error occurred that is not currently supported (possibly because it was added in a version of Stack that is newer than this client). The original unsupported error code was: ${d.originalErrorCode}`,
  BODY_PARSING_ERROR: (a) => a.message,
  SCHEMA_ERROR: (d) => d.message,
  ALL_OVERLOADS_FAILED: (d) =>
    [
      'This endpoint has multiple overloads, but they all failed to process the request.',
      '',
      ...d.overload_errors.map(
        (error, i) => `  Overload ${i}: ${JSON.stringify(error, null, 2).replace(/\n/g, '\n  ')}`,
      ),
    ].join('\n'),
  PROJECT_KEY_WITHOUT_ACCESS_TYPE:
    "Either an API key or an admin access token was provided, but the x-stack-access-type header is missing. Set it to 'client', 'server', or 'admin' as appropriate.",
  INVALID_ACCESS_TYPE: (a) =>
    `The x-stack-access-type header must be 'client', 'server', or 'admin', but was '${a.accessType}'.`,
  ACCESS_TYPE_WITHOUT_PROJECT_ID: (d) =>
    `The x-stack-access-type header was '${d.request_type}', but the x-stack-project-id header was not provided.${REST_AUTH_DOCS}`,
  // A function rather than a template literal: bundlers cannot prove a top-level `${…}` pure, and
  // this table must drop out of bundles that do not use it.
  ACCESS_TYPE_REQUIRED: () =>
    `You must specify an access level for this Stack project. Make sure project API keys are provided (eg. x-stack-publishable-client-key) and you set the x-stack-access-type header to 'client', 'server', or 'admin'.${REST_AUTH_DOCS}`,
  INSUFFICIENT_ACCESS_TYPE: (d) =>
    `The x-stack-access-type header must be ${d.allowed_access_types.map((t) => `'${t}'`).join(' or ')}, but was '${d.actual_access_type}'.`,
  INVALID_PUBLISHABLE_CLIENT_KEY: (d) =>
    `The publishable key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  INVALID_SECRET_SERVER_KEY: (d) =>
    `The secret server key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  INVALID_SUPER_SECRET_ADMIN_KEY: (d) =>
    `The super secret admin key is not valid for the project ${quote(d.project_id)}. Does the project and/or the key exist?`,
  UNPARSABLE_ADMIN_ACCESS_TOKEN: 'Admin access token is not parsable.',
  ADMIN_ACCESS_TOKEN_EXPIRED: (d) =>
    `Admin access token has expired. Please refresh it and try again.${expiredAt(d.expired_at_millis)}`,
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: 'Admin access tokens must be created on the internal project.',
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: 'Admin access token does not have the required permissions to access this project.',
  CLIENT_AUTHENTICATION_REQUIRED: 'The publishable client key must be provided.',
  SERVER_AUTHENTICATION_REQUIRED: 'The secret server key must be provided.',
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED:
    'Either the publishable client key or the secret server key must be provided.',
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED:
    'Either the publishable client key or the super secret admin key must be provided.',
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED:
    'Either the publishable client key, the secret server key, or the super secret admin key must be provided.',
  ADMIN_AUTHENTICATION_REQUIRED: 'The super secret admin key must be provided.',
  EXPECTED_INTERNAL_PROJECT: 'The project ID is expected to be internal.',
  UNPARSABLE_ACCESS_TOKEN: 'Access token is not parsable.',
  ACCESS_TOKEN_EXPIRED: (d) =>
    `Access token has expired. Please refresh it and try again.${expiredAt(d.expired_at_millis)}`,
  INVALID_PROJECT_FOR_ACCESS_TOKEN: 'Access token not valid for this project.',
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED:
    'Refresh token not found for this project, or the session has expired/been revoked.',
  CANNOT_DELETE_CURRENT_SESSION: 'Cannot delete the current session.',
  PROVIDER_REJECTED:
    'The provider refused to refresh their token. This usually means that the provider used to authenticate the user no longer regards this session as valid, and the user must re-authenticate.',
  USER_EMAIL_ALREADY_EXISTS: 'User email already exists.',
  EMAIL_NOT_VERIFIED: 'The email is not verified.',
  CANNOT_GET_OWN_USER_WITHOUT_USER:
    "You have specified 'me' as a userId, but did not provide authentication for a user.",
  USER_ID_DOES_NOT_EXIST: (d) => `The given user with the ID ${d.user_id} does not exist.`,
  USER_NOT_FOUND: 'User not found.',
  API_KEY_NOT_FOUND: 'API key not found.',
  API_KEY_EXPIRED: 'API key has expired.',
  API_KEY_REVOKED: 'API key has been revoked.',
  WRONG_API_KEY_TYPE: (d) =>
    `This endpoint is for ${d.expected_type} API keys, but a ${d.actual_type} API key was provided.`,
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN:
    'A provider with the same account ID is already used for signing in.',
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: (d) =>
    `Restricted users cannot accept team invitations. Reason: ${String((d.restricted_reason as { type?: unknown }).type ?? 'unknown')}. Please complete the onboarding process before accepting team invitations.`,
  PROJECT_NOT_FOUND: (d) => `Project ${d.project_id} not found or is not accessible with the current user.`,
  SIGN_UP_NOT_ENABLED:
    'Creation of new accounts is not enabled for this project. Please ask the project owner to enable it.',
  PASSWORD_AUTHENTICATION_NOT_ENABLED: 'Password authentication is not enabled for this project.',
  PASSKEY_AUTHENTICATION_NOT_ENABLED: 'Passkey authentication is not enabled for this project.',
  EMAIL_PASSWORD_MISMATCH: 'Wrong e-mail or password.',
  REDIRECT_URL_NOT_WHITELISTED: redirectUrlNotWhitelistedMessage,
  PASSWORD_TOO_SHORT: passwordTooShortMessage,
  PASSWORD_TOO_LONG: passwordTooLongMessage,
  USER_DOES_NOT_HAVE_PASSWORD: 'This user does not have password authentication enabled.',
  VERIFICATION_CODE_NOT_FOUND: 'The verification code does not exist for this project.',
  VERIFICATION_CODE_EXPIRED: 'The verification code has expired.',
  VERIFICATION_CODE_ALREADY_USED: 'The verification link has already been used.',
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED:
    'The verification code nonce has reached the maximum number of attempts. This code is not valid anymore.',
  PASSWORD_CONFIRMATION_MISMATCH: passwordConfirmationMismatchMessage,
  EMAIL_ALREADY_VERIFIED: 'The e-mail is already verified.',
  EMAIL_NOT_ASSOCIATED_WITH_USER: 'The e-mail is not associated with a user that could log in with that e-mail.',
  EMAIL_IS_NOT_PRIMARY_EMAIL: (d) =>
    `The given e-mail (${d.email}) must equal the user's primary e-mail (${String(d.primary_email)}).`,
  PASSKEY_REGISTRATION_FAILED: (a) => a.message,
  PASSKEY_WEBAUTHN_ERROR: passkeyWebAuthnErrorMessage,
  PASSKEY_AUTHENTICATION_FAILED: (a) => a.message,
  PERMISSION_NOT_FOUND: (d) => `Permission "${d.permission_id}" not found. Make sure you created it on the dashboard.`,
  CONTAINED_PERMISSION_NOT_FOUND: (d) =>
    `Contained permission with ID "${d.permission_id}" not found. Make sure you created it on the dashboard.`,
  TEAM_NOT_FOUND: (d) => `Team ${d.team_id} not found.`,
  TEAM_ALREADY_EXISTS: (d) => `Team ${d.team_id} already exists.`,
  TEAM_MEMBERSHIP_NOT_FOUND: (d) => `User ${d.user_id} is not found in team ${d.team_id}.`,
  EMAIL_TEMPLATE_ALREADY_EXISTS: 'Email template already exists.',
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: 'The OAuth connection is not connected to any user.',
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: 'The OAuth connection is already connected to another user.',
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: 'The OAuth connection does not have the required scope.',
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS:
    'Extra scopes are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use extra scopes.',
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS:
    'Access tokens are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use access tokens.',
  INVALID_OAUTH_CLIENT_ID_OR_SECRET:
    'The OAuth client ID or secret is invalid. The client ID must be equal to the project ID, and the client secret must be a publishable client key.',
  INVALID_SCOPE: (a) => `The scope "${a.scope}" is not a valid OAuth scope for Stack.`,
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION:
    'The user is already connected to another OAuth account. Did you maybe selected the wrong account?',
  OUTER_OAUTH_TIMEOUT: 'The OAuth flow has timed out. Please sign in again.',
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: 'The OAuth provider is not found or not enabled.',
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: 'Multi-factor authentication is required for this user.',
  INVALID_TOTP_CODE: 'The TOTP code is invalid. Please try again.',
  USER_AUTHENTICATION_REQUIRED: 'User authentication required for this endpoint.',
  TEAM_MEMBERSHIP_ALREADY_EXISTS: 'Team membership already exists.',
  TEAM_PERMISSION_REQUIRED: permissionMessage,
  TEAM_PERMISSION_NOT_FOUND: permissionMessage,
  INVALID_SHARED_OAUTH_PROVIDER_ID: (d) => `The shared OAuth provider with ID ${d.provider_id} is not valid.`,
  INVALID_STANDARD_OAUTH_PROVIDER_ID: (d) => `The standard OAuth provider with ID ${d.provider_id} is not valid.`,
  INVALID_AUTHORIZATION_CODE: 'The given authorization code is invalid.',
  OAUTH_PROVIDER_ACCESS_DENIED: 'The OAuth provider denied access to the user.',
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: (d) =>
    d.contact_channel_value === null
      ? `This ${d.type} is already used for authentication by another account.`
      : `The ${d.type} (${d.contact_channel_value}) is already used for authentication by another account.`,
  INVALID_POLLING_CODE: 'The polling code is invalid or does not exist.',
  CURRENT_PROJECT_NOT_FOUND: (d) => `No project has the ID ${d.project_id}: check the x-stack-project-id header.`,
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: 'This project requires a publishable client key for client access.',
  BRANCH_DOES_NOT_EXIST: (d) => `There is no branch ${d.branch_id}.`,
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: 'This project does not allow anonymous accounts.',
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED:
    "The access token is an anonymous user's; send X-Stack-Allow-Anonymous-User: true to accept anonymous users on this request.",
  RESTRICTED_USER_NOT_ALLOWED: (d) =>
    `The user of the access token is restricted (${String((d.restricted_reason as { type?: unknown }).type ?? 'unknown')}); send X-Stack-Allow-Restricted-User: true if that is intended.`,
  PERMISSION_ID_ALREADY_EXISTS: (d) => `A permission with the ID ${quote(d.permission_id)} exists already.`,
  SIGN_UP_REJECTED: (d) => d.message,
  BOT_CHALLENGE_REQUIRED: 'The sign-up needs a bot challenge first.',
  BOT_CHALLENGE_FAILED: (d) => d.message,
  CLI_AUTH_ERROR: (a) => a.message,
  CLI_AUTH_EXPIRED_ERROR: (a) => a.message,
  CLI_AUTH_USED_ERROR: (a) => a.message,
};

export function renderKnownErrorMessage<C extends KnownErrorCode>(code: C, input: KnownErrorInput<C>): string {
  return renderTemplate(knownErrorMessages[code] as MessageTemplate<C>, input);
}

export function renderTemplate<C extends KnownErrorCode>(
  template: MessageTemplate<C>,
  input: KnownErrorInput<C>,
): string {
  return typeof template === 'string' ? template : template(input);
}
