/**
 * `authbroker/server`: the service's server and admin APIs for trusted code (Node, edge functions,
 * scripts). Secret server keys and super secret admin keys belong here, never in a browser.
 *
 * @module authbroker/server
 */
import {
  checkKeyText,
  checkProjectId,
  refuseProtocolHeaders,
  refusePublishableAsSecret,
  refuseSecretsInBrowserOptions,
} from './credentials.js';
import { createAccessTokenVerifier } from './server/accessTokens.js';
import { createRequestVerifier } from './server/requestTokens.js';
import { serverPayments } from './server/payments.js';
import { requireNonEmptyString, requireObject } from './args.js';
import { trimBaseUrl } from './diagnostics.js';
import * as admin from './endpoints/admin.js';
import * as contactChannels from './endpoints/contactChannels.js';
import * as connectedAccounts from './endpoints/connectedAccounts.js';
import * as invitations from './endpoints/invitations.js';
import * as misc from './endpoints/misc.js';
import * as notificationPreferences from './endpoints/notificationPreferences.js';
import * as oauthProviders from './endpoints/oauthProviders.js';
import * as ownedApiKeys from './endpoints/ownedApiKeys.js';
import * as permissions from './endpoints/permissions.js';
import * as projectPermissions from './endpoints/projectPermissions.js';
import * as projects from './endpoints/projects.js';
import * as sessions from './endpoints/sessions.js';
import * as teams from './endpoints/teams.js';
import * as users from './endpoints/users.js';
import { InvalidArgumentError } from './errors/errors.js';
import { camelEndpoints } from './models.js';
import { assertNotInBrowser } from './environment.js';
import type { AccessType } from './resources/common.js';
import type { ServerAccess } from './resources/views.js';
import type { Clock } from './retry.js';
import {
  createTransport,
  staticTokenSource,
  type TokenSource,
  type Transport,
  type TransportObserver,
} from './transport.js';

type Endpoint<A extends AccessType> = (t: Transport<A>, ...args: never[]) => unknown;
type Bound<F> = F extends (t: never, ...args: infer P) => infer R ? (...args: P) => R : never;
/** Endpoint functions with their transport argument already given. */
export type BoundEndpoints<E> = { [K in keyof E]: Bound<E[K]> };

/** Fixes the transport argument of each endpoint function. */
export function bindEndpoints<A extends AccessType, E extends Record<string, Endpoint<A>>>(
  t: Transport<A>,
  endpoints: E,
): BoundEndpoints<E> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(endpoints)) bound[name] = (...args: never[]) => fn(t, ...args);
  return bound as BoundEndpoints<E>;
}

/** What every server-side app takes: which service, which project, and how to reach it. */
export interface CommonAppOptions {
  /** The service's base URL: `https://api.stack-auth.com`, a self-hosted one, or the emulator's. */
  baseUrl: string;
  /** The project's id (a UUID, or `internal`). */
  projectId: string;
  /** The `fetch` to use (default: the global one), e.g. to add tracing. */
  fetch?: typeof fetch;
  /** Time, timers and randomness (default: the system's); tests pass a fake one. */
  clock?: Clock;
  /** Headers added to every request (never ones that carry keys or tokens). */
  extraRequestHeaders?: Record<string, string>;
  /** Told about every attempt, retry and network failure (for logging and metrics). */
  observer?: TransportObserver;
}

/** The options of {@link createServerApp}. */
export interface ServerAppOptions extends CommonAppOptions {
  /** The project's secret server key (`ssk_…`): keep it on your server. */
  secretServerKey: string;
}

/**
 * The options of {@link createAdminApp}: one of a super secret admin key, an admin access token or a renewable admin
 * session.
 */
export type AdminAppOptions = CommonAppOptions &
  (
    | { superSecretAdminKey: string; adminAccessToken?: never; adminTokens?: never }
    /** An access token of the `internal` project whose user owns this project. */
    | { adminAccessToken: string; superSecretAdminKey?: never; adminTokens?: never }
    /** A renewable admin session, e.g. `createRefreshingTokenSource` against project `internal`. */
    | { adminTokens: TokenSource; superSecretAdminKey?: never; adminAccessToken?: never }
  );

function checkCommon(options: CommonAppOptions): void {
  requireObject(options, 'options');
  try {
    const url = new URL(requireNonEmptyString(options.baseUrl, 'baseUrl'));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw error;
    throw new InvalidArgumentError(
      'baseUrl',
      `baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}.`,
    );
  }
  checkProjectId(options.projectId, 'projectId');
}

function serverEndpoints<A extends ServerAccess>() {
  return {
    /** One page of the project's users. */
    listUsers: users.listUsers,
    /** Every user of the project, page after page, as an async iterator. */
    iterateUsers: users.iterateUsers,
    /** Creates a user (e-mail, password or imported password hash, metadata…). */
    createUser: users.createUser,
    /** One user by id, with server-only fields (`serverMetadata`). */
    getUser: users.getUser,
    /** Changes a user's fields; only the fields given are written. */
    updateUser: users.updateUser,
    /** Deletes a user and their sessions for good. */
    deleteUser: users.deleteUser,
    /** The project's teams, or those of one user with `{ userId }`. */
    listTeams: teams.listTeams<A>,
    /** Creates a team; `creatorUserId` makes that user its first member. */
    createTeam: teams.createTeam<A>,
    /** One team by id. */
    getTeam: teams.getTeam<A>,
    /** Changes a team's display name, image or metadata. */
    updateTeam: teams.updateTeam<A>,
    /** Deletes a team, its memberships and its invitations. */
    deleteTeam: teams.deleteTeam,
    /** Adds a user to a team (no invitation). */
    addTeamMember: teams.addTeamMember,
    /** Removes a user from a team. */
    removeTeamMember: teams.removeTeamMember,
    /** How each member appears in a team (display name, image), for one team or one user. */
    listTeamMemberProfiles: teams.listTeamMemberProfiles<A>,
    /** How one member appears in one team. */
    getTeamMemberProfile: teams.getTeamMemberProfile<A>,
    /** Changes how a member appears in a team. */
    updateTeamMemberProfile: teams.updateTeamMemberProfile<A>,
    /** E-mails an invitation to join a team; the link leads to `callbackUrl` with a code. */
    sendTeamInvitation: invitations.sendTeamInvitation,
    /** The invitations of a team not yet accepted. */
    listTeamInvitations: invitations.listTeamInvitations,
    /** Withdraws an invitation (`{ teamId, invitationId }`), so its link no longer works. */
    revokeTeamInvitation: invitations.revokeTeamInvitation,
    /** The permissions users hold in teams, filtered by team, user or permission. */
    listTeamPermissions: permissions.listTeamPermissions,
    /** Grants a user a permission in a team. */
    grantTeamPermission: permissions.grantTeamPermission,
    /** Takes a permission from a user in a team. */
    revokeTeamPermission: permissions.revokeTeamPermission,
    /** Adds an e-mail address to a user, optionally usable for sign-in. */
    createContactChannel: contactChannels.createContactChannel,
    /** A user's e-mail addresses (`{ userId }`). */
    listContactChannels: contactChannels.listContactChannels,
    /** One contact channel of a user. */
    getContactChannel: contactChannels.getContactChannel,
    /** Changes a contact channel (address, primary, used for sign-in, verified). */
    updateContactChannel: contactChannels.updateContactChannel,
    /** Removes a contact channel from a user. */
    deleteContactChannel: contactChannels.deleteContactChannel,
    /** E-mails a verification link for a contact channel. */
    sendContactChannelVerificationCode: contactChannels.sendContactChannelVerificationCode,
    /** An OAuth provider's access token for a user's connected account, covering the scopes asked. */
    getConnectedAccountAccessToken: connectedAccounts.getConnectedAccountAccessToken,
    /** A user's linked provider accounts the app may get provider tokens for, oldest first. */
    listConnectedAccounts: connectedAccounts.listConnectedAccounts,
    /** A user's OAuth providers (linked accounts, with their ids at the provider), or every user's without `userId`. */
    listOAuthProviders: oauthProviders.listOAuthProviders<A>,
    /** One of a user's OAuth providers by its id. */
    getOAuthProvider: oauthProviders.getOAuthProvider<A>,
    /** Links a provider account to a user without an OAuth flow (e.g. a second account of one provider). */
    createOAuthProvider: oauthProviders.createOAuthProvider,
    /** Whether a linked account signs its user in and serves provider tokens; its account id or e-mail. */
    updateOAuthProvider: oauthProviders.updateOAuthProvider<A>,
    /** Unlinks a provider account from its user. */
    deleteOAuthProvider: oauthProviders.deleteOAuthProvider,
    /** Makes an API key for a user (when the project allows user API keys); its whole value is in this answer only. */
    createUserApiKey: ownedApiKeys.createUserApiKey,
    /** A user's API keys, newest first (never their values). */
    listUserApiKeys: ownedApiKeys.listUserApiKeys,
    /** Renames or revokes (`{ revoked: true }`, for good) a user's API key. */
    updateUserApiKey: ownedApiKeys.updateUserApiKey,
    /** Whose user API key a key is: API_KEY_NOT_FOUND, API_KEY_REVOKED or API_KEY_EXPIRED when it may not be used. */
    checkUserApiKey: ownedApiKeys.checkUserApiKey,
    /** Makes an API key for a team (when the project allows team API keys); its whole value is in this answer only. */
    createTeamApiKey: ownedApiKeys.createTeamApiKey,
    /** A team's API keys, newest first. */
    listTeamApiKeys: ownedApiKeys.listTeamApiKeys,
    /** Renames or revokes a team's API key. */
    updateTeamApiKey: ownedApiKeys.updateTeamApiKey,
    /** Whose team API key a key is, as `checkUserApiKey` says of users' keys. */
    checkTeamApiKey: ownedApiKeys.checkTeamApiKey,
    /** The pending invitations sent to a user's verified e-mail addresses. */
    listReceivedTeamInvitations: invitations.listReceivedTeamInvitations,
    /** Accepts a received invitation by its id for the user it was sent to (`userId`, or `me`). */
    acceptTeamInvitationById: invitations.acceptTeamInvitationById,
    /** The project permissions users hold (outside any team), filtered by user or permission. */
    listProjectPermissions: projectPermissions.listProjectPermissions,
    /** Grants a user a project permission (idempotent). */
    grantProjectPermission: projectPermissions.grantProjectPermission,
    /** Takes a project permission from a user. */
    revokeProjectPermission: projectPermissions.revokeProjectPermission,
    /** A user's notification categories and whether they get each one's e-mails. */
    listNotificationPreferences: notificationPreferences.listNotificationPreferences,
    /** Turns one notification category on or off for a user. */
    updateNotificationPreference: notificationPreferences.updateNotificationPreference,
    /** Signs a user in from your server: a new session's access and refresh tokens. */
    createSession: sessions.createSession,
    /** A user's open sessions. */
    listSessions: sessions.listSessions,
    /** Ends one session (its refresh token stops working). */
    deleteSession: sessions.deleteSession,
    /** The project's public settings (sign-in methods, OAuth providers…). */
    getCurrentProject: projects.getCurrentProject<A>,
  };
}

/**
 * Endpoints of `serverEndpoints` and `forUser` whose object argument is an options object of our
 * own (ids for the path or query string, in camelCase), not a wire body to snake_case.
 */
const OWN_OPTIONS = ['listTeams', 'listTeamMemberProfiles', 'listContactChannels', 'revokeTeamInvitation', 'signOut'];

const adminOnlyEndpoints = {
  /** Changes the project's name, description or configuration. */
  updateCurrentProject: projects.updateCurrentProject,
  /** Deletes the project for good. */
  deleteCurrentProject: projects.deleteCurrentProject,
  /** The project's API key sets (never their secrets). */
  listApiKeys: admin.listApiKeys,
  /** Creates an API key set; its secrets are in this answer only. */
  createApiKey: admin.createApiKey,
  /** One API key set (without its secrets). */
  getApiKey: admin.getApiKey,
  /** Changes an API key set's description. */
  updateApiKey: admin.updateApiKey,
  /** Revokes an API key set: its keys stop working at once. */
  revokeApiKey: admin.revokeApiKey,
  /** The project's e-mail templates. */
  listEmailTemplates: admin.listEmailTemplates,
  /** One e-mail template by type. */
  getEmailTemplate: admin.getEmailTemplate,
  /** Changes an e-mail template's subject or content. */
  updateEmailTemplate: admin.updateEmailTemplate,
  /** Puts an e-mail template back to the service's default. */
  resetEmailTemplate: admin.resetEmailTemplate,
  /** A token for the webhook dashboard (Svix) of the project. */
  createSvixToken: admin.createSvixToken,
  /** The project's sign-up and activity figures. */
  getProjectMetrics: admin.getProjectMetrics,
  /** Sends a test e-mail through an SMTP configuration, to check it. */
  sendTestEmail: admin.sendTestEmail,
  /** The e-mails the project sent lately. */
  listSentEmails: admin.listSentEmails,
  /** The team permissions the project defines. */
  listPermissionDefinitions: permissions.listPermissionDefinitions,
  /** Defines a team permission (optionally containing others). */
  createPermissionDefinition: permissions.createPermissionDefinition,
  /** Changes a permission definition (id, description, contained permissions). */
  updatePermissionDefinition: permissions.updatePermissionDefinition,
  /** Deletes a permission definition and every grant of it. */
  deletePermissionDefinition: permissions.deletePermissionDefinition,
  /** The project permissions the project defines (held outside any team). */
  listProjectPermissionDefinitions: projectPermissions.listProjectPermissionDefinitions,
  /** Defines a project permission (optionally containing others); ids share one space with team permissions. */
  createProjectPermissionDefinition: projectPermissions.createProjectPermissionDefinition,
  /** Rewrites a project permission definition: fields left out are reset, as the service does. */
  updateProjectPermissionDefinition: projectPermissions.updateProjectPermissionDefinition,
  /** Deletes a project permission definition and every grant of it. */
  deleteProjectPermissionDefinition: projectPermissions.deleteProjectPermissionDefinition,
};

function common<A extends ServerAccess>(t: Transport<A>, options: CommonAppOptions) {
  const verifyAccessToken = createAccessTokenVerifier({
    baseUrl: trimBaseUrl(options.baseUrl),
    projectId: options.projectId,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return {
    /** The wire-level transport (snake_case objects), for calls this app does not bind. */
    transport: t,
    ...camelEndpoints(bindEndpoints(t, serverEndpoints<A>()), OWN_OPTIONS),
    // Payments: items, products, grants and checkout URLs, in their own models (server/payments.ts).
    ...serverPayments(t),
    /**
     * Checks a user's access token (e.g. from a request to your API) against the project's keys.
     * Refusals are the service's known errors: UNPARSABLE_ACCESS_TOKEN, ACCESS_TOKEN_EXPIRED and
     * INVALID_PROJECT_FOR_ACCESS_TOKEN (family INVALID_ACCESS_TOKEN); an anonymous user's token
     * ANONYMOUS_AUTHENTICATION_NOT_ALLOWED and a restricted user's RESTRICTED_USER_NOT_ALLOWED,
     * unless `{ allowAnonymous: true }` or `{ allowRestricted: true }` accepts them.
     */
    verifyAccessToken,
    /**
     * Checks the user of a request to your own server (a `Request`, Node's `IncomingMessage`, or
     * `{ headers }`): its token in `x-stack-auth` (what `client.getAuthHeaders()` and the official
     * SDK send), `Authorization: Bearer`, or `x-stack-access-token`, checked as `verifyAccessToken`
     * checks one. Null when the request carries none; an unreadable header is UNPARSABLE_ACCESS_TOKEN.
     */
    verifyRequest: createRequestVerifier(verifyAccessToken),
    /** The same app acting as the user of `accessToken` (their `me`), with server access. */
    forUser(accessToken: string) {
      return camelEndpoints(
        bindEndpoints(t.withUserTokens(staticTokenSource(accessToken)), {
          /** The user of the access token. */
          getCurrentUser: users.getCurrentUser<A>,
          /** Changes the user of the access token. */
          updateCurrentUser: users.updateCurrentUser<A>,
          /** The teams the user of the access token belongs to. */
          listTeams: teams.listTeams<A>,
          /** The e-mail addresses of the user of the access token. */
          listContactChannels: contactChannels.listContactChannels,
          /** The team permissions of the user of the access token. */
          listTeamPermissions: permissions.listTeamPermissions,
          /** The project permissions of the user of the access token (outside any team). */
          listProjectPermissions: projectPermissions.listProjectPermissions,
          /** The notification categories of the user of the access token, and whether they get each one's e-mails. */
          listNotificationPreferences: notificationPreferences.listNotificationPreferences,
          /** Turns one notification category on or off for the user of the access token. */
          updateNotificationPreference: notificationPreferences.updateNotificationPreference,
          /** The linked provider accounts of the user of the access token, oldest first. */
          listConnectedAccounts: connectedAccounts.listConnectedAccounts,
          /** Ends the session of the access token. */
          signOut: sessions.signOutCurrentSession,
        }),
        OWN_OPTIONS,
      );
    },
  };
}

/** The server API with a secret server key. */
export function createServerApp(options: ServerAppOptions) {
  checkCommon(options);
  requireNonEmptyString(options.secretServerKey, 'secretServerKey');
  refusePublishableAsSecret(options.secretServerKey, 'secretServerKey');
  checkKeyText(options.secretServerKey, 'secretServerKey');
  assertNotInBrowser('A secret server key');
  refuseProtocolHeaders(options.extraRequestHeaders, '');
  const t = createTransport({
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    accessType: 'server',
    secretServerKey: options.secretServerKey,
    fetch: options.fetch,
    clock: options.clock,
    extraRequestHeaders: options.extraRequestHeaders,
    observer: options.observer,
  });
  return common(t, options);
}

/** What {@link createServerApp} returns: the server API, camelCase in and out. */
export type ServerApp = ReturnType<typeof createServerApp>;

/** The admin API, with a super secret admin key (server only) or an admin access token. */
export function createAdminApp(options: AdminAppOptions) {
  checkCommon(options);
  let adminTokens: TokenSource | undefined;
  if (options.superSecretAdminKey !== undefined) {
    requireNonEmptyString(options.superSecretAdminKey, 'superSecretAdminKey');
    refusePublishableAsSecret(options.superSecretAdminKey, 'superSecretAdminKey');
    checkKeyText(options.superSecretAdminKey, 'superSecretAdminKey');
    assertNotInBrowser('A super secret admin key');
  } else if (options.adminAccessToken !== undefined || options.adminTokens !== undefined) {
    // The forms a browser may use: no secret key may ride along, as the token or as a header.
    refuseSecretsInBrowserOptions(
      { adminAccessToken: options.adminAccessToken, extraRequestHeaders: options.extraRequestHeaders },
      '',
    );
    adminTokens =
      options.adminAccessToken !== undefined ? staticTokenSource(options.adminAccessToken) : options.adminTokens;
  } else {
    throw new InvalidArgumentError(
      'options',
      'createAdminApp needs superSecretAdminKey, adminAccessToken or adminTokens.',
    );
  }
  refuseProtocolHeaders(options.extraRequestHeaders, '');
  const t = createTransport({
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    accessType: 'admin',
    superSecretAdminKey: options.superSecretAdminKey,
    adminTokens,
    fetch: options.fetch,
    clock: options.clock,
    extraRequestHeaders: options.extraRequestHeaders,
    observer: options.observer,
  });
  return { ...common(t, options), ...camelEndpoints(bindEndpoints(t, adminOnlyEndpoints)) };
}

/** What {@link createAdminApp} returns: the server API plus project administration. */
export type AdminApp = ReturnType<typeof createAdminApp>;

/** Endpoints outside any area: the API's banner, the version check, a project's signing keys. */
export { misc };
export { assertNotInBrowser };
export {
  createAccessTokenVerifier,
  type AccessTokenAllowance,
  type AccessTokenRejection,
  type AccessTokenVerifierOptions,
  type VerifiedAccessToken,
} from './server/accessTokens.js';
export { ACCESS_TOKEN_ISSUER } from './server/tokenClaims.js';
export {
  accessTokenOfRequest,
  createRequestVerifier,
  type RequestHeaders,
  type RequestLike,
} from './server/requestTokens.js';
export {
  CLI_CONFIRM_PATH,
  promptCliLogin,
  startCliLogin,
  type CliLogin,
  type CliLoginOptions,
  type CliSession,
} from './server/cliLogin.js';
export { createRefreshingTokenSource, type RefreshingTokenSourceOptions } from './tokenSource.js';
export * from './index.js';
