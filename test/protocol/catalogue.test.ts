import { describe, expect, it } from 'vitest';
import { knownErrorCatalogue, knownErrorCodes, type KnownErrorCode } from '../../protocol/errors/catalogue.js';
import { parentOf, statusOf } from '../../protocol/errors/lineage.js';
import { knownErrorFamilies, type KnownErrorFamily } from '../../protocol/errors/families.js';
import { createKnownError } from '../../protocol/errors/create.js';

/** PROTOCOL.md §8.3 (status, parent family; null = a direct child of the root), in table order. */
const TABLE: Record<string, [number, KnownErrorFamily | null]> = {
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
  // Codes the service added after v2.7 that a client meets (the 2026-04 backend's known-errors).
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
  API_KEY_EXPIRED: [401, null],
  API_KEY_REVOKED: [401, null],
  WRONG_API_KEY_TYPE: [400, null],
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN: [400, null],
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: [403, null],
};

/** PROTOCOL.md §8.2: each abstract family and its parent. */
const FAMILY_TREE: Record<KnownErrorFamily, KnownErrorFamily | null> = {
  PROJECT_AUTHENTICATION_ERROR: null,
  INVALID_PROJECT_AUTHENTICATION: 'PROJECT_AUTHENTICATION_ERROR',
  INVALID_ADMIN_ACCESS_TOKEN: 'INVALID_PROJECT_AUTHENTICATION',
  PROJECT_AUTHENTICATION_REQUIRED: 'PROJECT_AUTHENTICATION_ERROR',
  SESSION_AUTHENTICATION_ERROR: null,
  INVALID_SESSION_AUTHENTICATION: 'SESSION_AUTHENTICATION_ERROR',
  INVALID_ACCESS_TOKEN: 'INVALID_SESSION_AUTHENTICATION',
  REFRESH_TOKEN_ERROR: null,
  PASSWORD_REQUIREMENTS_NOT_MET: null,
  VERIFICATION_ERROR: null,
};

describe('catalogue shape', () => {
  it("has 101 concrete codes (v2.7's 83 and 18 added since) and 10 families, 111 unique codes in all", () => {
    const families = Object.keys(knownErrorFamilies);
    expect(knownErrorCodes).toHaveLength(101);
    expect(families).toHaveLength(10);
    const all = new Set<string>([...knownErrorCodes, ...families]);
    expect(all.size).toBe(111);
    for (const code of all) expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
  });

  it('lists exactly the codes of PROTOCOL.md §8.3, in its order, then those added since', () => {
    expect(knownErrorCodes).toEqual(Object.keys(TABLE));
  });

  it.each(Object.entries(TABLE))('%s has status %j and parent per §8.2/§8.3', (code, [status, parent]) => {
    expect(statusOf(code as KnownErrorCode)).toBe(status);
    expect(parentOf(code as KnownErrorCode)).toBe(parent);
    expect(knownErrorCatalogue[code as KnownErrorCode]).toBeDefined();
  });

  it('has the family tree of §8.2', () => {
    expect(knownErrorFamilies).toEqual(FAMILY_TREE);
  });

  it('spot-checks statuses', () => {
    expect(statusOf('TEAM_PERMISSION_REQUIRED')).toBe(401);
    expect(statusOf('VERIFICATION_CODE_NOT_FOUND')).toBe(404);
    expect(statusOf('VERIFICATION_CODE_ALREADY_USED')).toBe(409);
    expect(statusOf('CANNOT_DELETE_CURRENT_SESSION')).toBe(400);
    expect(statusOf('OUTER_OAUTH_TIMEOUT')).toBe(408);
    expect(statusOf('UNSUPPORTED_ERROR')).toBe(500);
    // No v2.7 known error used 403 (§2.2); three added since do.
    expect(knownErrorCodes.filter((c) => statusOf(c) === 403)).toEqual([
      'RESTRICTED_USER_NOT_ALLOWED',
      'SIGN_UP_REJECTED',
      'TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED',
    ]);
  });

  it('marks the never-sent codes as not emitted', () => {
    const notEmitted = knownErrorCodes.filter((c) => !knownErrorCatalogue[c].emitted);
    expect(notEmitted).toEqual(
      expect.arrayContaining([
        'UNSUPPORTED_ERROR',
        'PROVIDER_REJECTED',
        'EMAIL_NOT_VERIFIED',
        'PASSKEY_WEBAUTHN_ERROR',
        'TEAM_ALREADY_EXISTS',
        'PASSWORD_TOO_LONG',
      ]),
    );
    expect(knownErrorCatalogue.ACCESS_TOKEN_EXPIRED.emitted).toBe(true);
  });
});

describe('messages', () => {
  it('INSUFFICIENT_ACCESS_TYPE lists the allowed types', () => {
    expect(
      createKnownError('INSUFFICIENT_ACCESS_TYPE', {
        actual_access_type: 'client',
        allowed_access_types: ['server', 'admin'],
      }).message,
    ).toBe("The x-stack-access-type header must be 'server' or 'admin', but was 'client'.");
    expect(
      createKnownError('INSUFFICIENT_ACCESS_TYPE', { actual_access_type: 'server', allowed_access_types: ['admin'] })
        .message,
    ).toBe("The x-stack-access-type header must be 'admin', but was 'server'.");
  });

  it('ACCESS_TOKEN_EXPIRED and ADMIN_ACCESS_TOKEN_EXPIRED add the date when known', () => {
    expect(createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: 1738374988000 }).message).toBe(
      'Access token has expired. Please refresh it and try again. (The access token expired at 2025-02-01T01:56:28.000Z.)',
    );
    expect(createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: null }).message).toBe(
      'Access token has expired. Please refresh it and try again.',
    );
    expect(createKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', { expired_at_millis: 0 }).message).toBe(
      'Admin access token has expired. Please refresh it and try again. (The access token expired at 1970-01-01T00:00:00.000Z.)',
    );
  });

  it('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE with and without the value', () => {
    expect(
      createKnownError('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', {
        type: 'email',
        contact_channel_value: 'a@b.test',
      }).message,
    ).toBe('The email (a@b.test) is already used for authentication by another account.');
    expect(
      createKnownError('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', {
        type: 'email',
        contact_channel_value: null,
      }).message,
    ).toBe('This email is already used for authentication by another account.');
  });

  it('password, key, team and permission messages', () => {
    expect(createKnownError('PASSWORD_TOO_SHORT', { min_length: 8 }).message).toBe(
      'Password too short. Minimum length is 8.',
    );
    expect(createKnownError('PASSWORD_TOO_LONG', { maxLength: 70 }).message).toBe(
      'Password too long. Maximum length is 70.',
    );
    expect(createKnownError('INVALID_PUBLISHABLE_CLIENT_KEY', { project_id: 'internal' }).message).toBe(
      'The publishable key is not valid for the project "internal". Does the project and/or the key exist?',
    );
    expect(createKnownError('TEAM_MEMBERSHIP_NOT_FOUND', { team_id: 't', user_id: 'u' }).message).toBe(
      'User u is not found in team t.',
    );
    expect(
      createKnownError('TEAM_PERMISSION_REQUIRED', { team_id: 't', user_id: 'u', permission_id: '$read_members' })
        .message,
    ).toBe('User u does not have permission $read_members in team t.');
    expect(createKnownError('PERMISSION_NOT_FOUND', { permission_id: 'p' }).message).toBe(
      'Permission "p" not found. Make sure you created it on the dashboard.',
    );
    expect(
      createKnownError('EMAIL_IS_NOT_PRIMARY_EMAIL', { email: 'a@b.test', primary_email: 'c@d.test' }).message,
    ).toBe("The given e-mail (a@b.test) must equal the user's primary e-mail (c@d.test).");
  });

  it('messages built from arguments and the access-type family', () => {
    expect(createKnownError('INVALID_ACCESS_TYPE', { accessType: 'root' }).message).toBe(
      "The x-stack-access-type header must be 'client', 'server', or 'admin', but was 'root'.",
    );
    expect(createKnownError('INVALID_SCOPE', { scope: 'openid' }).message).toBe(
      'The scope "openid" is not a valid OAuth scope for Stack.',
    );
    expect(createKnownError('ACCESS_TYPE_WITHOUT_PROJECT_ID', { request_type: 'client' }).message).toBe(
      "The x-stack-access-type header was 'client', but the x-stack-project-id header was not provided.\n\nFor more information, see the docs on REST API authentication: https://docs.stack-auth.com/rest-api/overview#authentication",
    );
    expect(createKnownError('UNSUPPORTED_ERROR', { originalErrorCode: 'NEW_CODE' }).message).toBe(
      'An error occurred that is not currently supported (possibly because it was added in a version of Stack that is newer than this client). The original unsupported error code was: NEW_CODE',
    );
    const overloads = createKnownError('ALL_OVERLOADS_FAILED', {
      overload_errors: [{ code: 'A' }, { code: 'B' }],
    }).message;
    expect(
      overloads.startsWith(
        'This endpoint has multiple overloads, but they all failed to process the request.\n\n  Overload ',
      ),
    ).toBe(true);
    expect(overloads.match(/\n {2}Overload \d+: \{/g)).toHaveLength(2);
  });

  it('constant messages', () => {
    expect(createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER').message).toBe(
      "You have specified 'me' as a userId, but did not provide authentication for a user.",
    );
    expect(createKnownError('OUTER_OAUTH_TIMEOUT').message).toBe('The OAuth flow has timed out. Please sign in again.');
    expect(createKnownError('VERIFICATION_CODE_ALREADY_USED').message).toBe(
      'The verification link has already been used.',
    );
    expect(createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED').message).toBe(
      'Refresh token not found for this project, or the session has expired/been revoked.',
    );
    expect(createKnownError('MULTI_FACTOR_AUTHENTICATION_REQUIRED', { attempt_code: 'abc' }).message).toBe(
      'Multi-factor authentication is required for this user.',
    );
  });
});
