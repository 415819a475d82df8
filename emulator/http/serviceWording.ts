import type { KnownError } from '../../protocol/errors/knownError.js';

/**
 * The body of a known-error answer as today's service words it. authbroker's catalogue (protocol/errors) keeps v2.7's
 * sentences and its own for codes added since, which clients only show; the emulator answers with the service's own
 * sentence (and, where the service added details, those too), since tests written against the service compare them.
 */
export function serviceErrorBody(error: KnownError): {
  code: string;
  details?: Record<string, unknown>;
  error: string;
} {
  const body = error.toWire();
  const details = (body.details ?? {}) as Record<string, unknown>;
  const reword = REWORDED[error.code];
  return reword === undefined ? body : { ...body, ...reword(details) };
}

type Reword = (details: Record<string, unknown>) => { error: string; details?: Record<string, unknown> };

const NOT_VERIFIED_YET =
  ' but the email is not verified. Please login to your existing account with the method you used to sign up, and then verify your email to sign in with this login method.';

const REWORDED: Readonly<Record<string, Reword>> = {
  USER_EMAIL_ALREADY_EXISTS: (d) => ({
    error: `A user with email ${JSON.stringify(d.email)} already exists${d.would_work_if_email_was_verified === true ? NOT_VERIFIED_YET : '.'}`,
  }),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: (d) => ({
    error: `This ${String(d.type)} ${typeof d.contact_channel_value === 'string' && d.contact_channel_value !== '' ? `"(${d.contact_channel_value})"` : ''} is already used for authentication by another account.`,
    details: { ...d, would_work_if_email_was_verified: false },
  }),
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: () => ({
    error:
      'The OAuth client ID or secret is invalid. The client ID must be equal to the project ID (potentially with a hash and a branch ID), and the client secret must be a publishable client key.',
  }),
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: () => ({
    error:
      'Publishable client keys are required for this project. Create one in Project Keys, or disable this requirement there to allow keyless client access.',
  }),
  CURRENT_PROJECT_NOT_FOUND: (d) => ({
    error: `The current project with ID ${String(d.project_id)} was not found. Please check the value of the x-stack-project-id header.`,
  }),
  BRANCH_DOES_NOT_EXIST: (d) => ({ error: `The branch with ID ${String(d.branch_id)} does not exist.` }),
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: () => ({ error: 'Anonymous accounts are not enabled for this project.' }),
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED: () => ({
    error:
      "X-Stack-Access-Token is for an anonymous user, but anonymous users are not enabled. Set the X-Stack-Allow-Anonymous-User header of this request to 'true' to allow anonymous users.",
  }),
  RESTRICTED_USER_NOT_ALLOWED: (d) => ({
    error: `The user in the access token is in restricted state. Reason: ${String((d.restricted_reason as { type?: unknown } | undefined)?.type)}. Please pass the X-Stack-Allow-Restricted-User header if this is intended.`,
  }),
  PERMISSION_ID_ALREADY_EXISTS: (d) => ({
    error: `Permission with ID "${String(d.permission_id)}" already exists. Choose a different ID.`,
  }),
  BOT_CHALLENGE_REQUIRED: () => ({ error: 'An additional bot challenge is required before sign-up can continue.' }),
};
