import type { RestrictedReason } from '../protocol/resources/user.js';

/** A plain (non-known) error: the status and a text/plain body holding exactly the message (PROTOCOL.md §2.3). */
export class StatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A known error of today's service whose code authbroker's catalogue (protocol/errors, v2.7's table) does not hold,
 * such as `API_KEY_EXPIRED` or `WRONG_PERMISSION_SCOPE`: answered with the same body and header as a catalogued one.
 */
export class ServiceKnownError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }

  /** The body the service sends for it. */
  toWire(): { code: string; details?: Record<string, unknown>; error: string } {
    return this.details === undefined
      ? { code: this.code, error: this.message }
      : { code: this.code, details: { ...this.details }, error: this.message };
  }
}

/** The service's known errors that the catalogue lacks, worded as the service words them. */
export const serviceErrors = {
  apiKeyExpired: () => new ServiceKnownError('API_KEY_EXPIRED', 401, 'API key has expired.'),
  apiKeyRevoked: () => new ServiceKnownError('API_KEY_REVOKED', 401, 'API key has been revoked.'),
  teamInvitationRestrictedUserNotAllowed: (reason: RestrictedReason) =>
    new ServiceKnownError(
      'TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED',
      403,
      `Restricted users cannot accept team invitations. Reason: ${reason.type}. Please complete the onboarding process before accepting team invitations.`,
      { restricted_reason: reason },
    ),
  oauthProviderAccountIdAlreadyUsedForSignIn: () =>
    new ServiceKnownError(
      'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN',
      400,
      'A provider with the same account ID is already used for signing in.',
    ),
  wrongPermissionScope: (permissionId: string, expected: 'team' | 'project', actual: 'team' | 'project') =>
    new ServiceKnownError(
      'WRONG_PERMISSION_SCOPE',
      404,
      `Permission ${JSON.stringify(permissionId)} not found. (It was found for a different scope ${JSON.stringify(actual)}, but scope ${JSON.stringify(expected)} was expected.)`,
      { permission_id: permissionId, expected_scope: expected, actual_scope: actual },
    ),
  wrongApiKeyType: (expected: 'user' | 'team', actual: 'user' | 'team') =>
    new ServiceKnownError(
      'WRONG_API_KEY_TYPE',
      400,
      `This endpoint is for ${expected} API keys, but a ${actual} API key was provided.`,
      { expected_type: expected, actual_type: actual },
    ),
};
