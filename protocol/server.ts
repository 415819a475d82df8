/**
 * `authbroker/server`: the service's server and admin APIs for trusted code (Node, edge functions,
 * scripts). Secret server keys and super secret admin keys belong here, never in a browser.
 */
import { checkKeyText, checkProjectId, refuseProtocolHeaders, refusePublishableAsSecret, refuseSecretsInBrowserOptions } from './credentials.js';
import { createAccessTokenVerifier } from './accessTokens.js';
import { requireNonEmptyString, requireObject } from './args.js';
import { trimBaseUrl } from './diagnostics.js';
import * as admin from './endpoints/admin.js';
import * as contactChannels from './endpoints/contactChannels.js';
import * as connectedAccounts from './endpoints/connectedAccounts.js';
import * as invitations from './endpoints/invitations.js';
import * as misc from './endpoints/misc.js';
import * as permissions from './endpoints/permissions.js';
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
import { createTransport, staticTokenSource, type TokenSource, type Transport, type TransportObserver } from './transport.js';

type Endpoint<A extends AccessType> = (t: Transport<A>, ...args: never[]) => unknown;
type Bound<F> = F extends (t: never, ...args: infer P) => infer R ? (...args: P) => R : never;
export type BoundEndpoints<E> = { [K in keyof E]: Bound<E[K]> };

/** Fixes the transport argument of each endpoint function. */
export function bindEndpoints<A extends AccessType, E extends Record<string, Endpoint<A>>>(t: Transport<A>, endpoints: E): BoundEndpoints<E> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(endpoints)) bound[name] = (...args: never[]) => fn(t, ...args);
  return bound as BoundEndpoints<E>;
}

export interface CommonAppOptions {
  baseUrl: string;
  projectId: string;
  fetch?: typeof fetch;
  clock?: Clock;
  extraRequestHeaders?: Record<string, string>;
  observer?: TransportObserver;
}

export interface ServerAppOptions extends CommonAppOptions {
  secretServerKey: string;
}

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
    throw new InvalidArgumentError('baseUrl', `baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}.`);
  }
  checkProjectId(options.projectId, 'projectId');
}

function serverEndpoints<A extends ServerAccess>() {
  return {
    listUsers: users.listUsers,
    iterateUsers: users.iterateUsers,
    createUser: users.createUser,
    getUser: users.getUser,
    updateUser: users.updateUser,
    deleteUser: users.deleteUser,
    listTeams: teams.listTeams<A>,
    createTeam: teams.createTeam<A>,
    getTeam: teams.getTeam<A>,
    updateTeam: teams.updateTeam<A>,
    deleteTeam: teams.deleteTeam,
    addTeamMember: teams.addTeamMember,
    removeTeamMember: teams.removeTeamMember,
    listTeamMemberProfiles: teams.listTeamMemberProfiles<A>,
    getTeamMemberProfile: teams.getTeamMemberProfile<A>,
    updateTeamMemberProfile: teams.updateTeamMemberProfile<A>,
    sendTeamInvitation: invitations.sendTeamInvitation,
    listTeamInvitations: invitations.listTeamInvitations,
    revokeTeamInvitation: invitations.revokeTeamInvitation,
    listTeamPermissions: permissions.listTeamPermissions,
    grantTeamPermission: permissions.grantTeamPermission,
    revokeTeamPermission: permissions.revokeTeamPermission,
    createContactChannel: contactChannels.createContactChannel,
    listContactChannels: contactChannels.listContactChannels,
    getContactChannel: contactChannels.getContactChannel,
    updateContactChannel: contactChannels.updateContactChannel,
    deleteContactChannel: contactChannels.deleteContactChannel,
    sendContactChannelVerificationCode: contactChannels.sendContactChannelVerificationCode,
    getConnectedAccountAccessToken: connectedAccounts.getConnectedAccountAccessToken,
    createSession: sessions.createSession,
    listSessions: sessions.listSessions,
    deleteSession: sessions.deleteSession,
    getCurrentProject: projects.getCurrentProject<A>,
  };
}

/**
 * Endpoints of `serverEndpoints` and `forUser` whose object argument is an options object of our
 * own (ids for the path or query string, in camelCase), not a wire body to snake_case.
 */
const OWN_OPTIONS = ['listTeams', 'listTeamMemberProfiles', 'listContactChannels', 'revokeTeamInvitation', 'signOut'];

const adminOnlyEndpoints = {
  updateCurrentProject: projects.updateCurrentProject,
  deleteCurrentProject: projects.deleteCurrentProject,
  listApiKeys: admin.listApiKeys,
  createApiKey: admin.createApiKey,
  getApiKey: admin.getApiKey,
  updateApiKey: admin.updateApiKey,
  revokeApiKey: admin.revokeApiKey,
  listEmailTemplates: admin.listEmailTemplates,
  getEmailTemplate: admin.getEmailTemplate,
  updateEmailTemplate: admin.updateEmailTemplate,
  resetEmailTemplate: admin.resetEmailTemplate,
  createSvixToken: admin.createSvixToken,
  getProjectMetrics: admin.getProjectMetrics,
  sendTestEmail: admin.sendTestEmail,
  listSentEmails: admin.listSentEmails,
  listPermissionDefinitions: permissions.listPermissionDefinitions,
  createPermissionDefinition: permissions.createPermissionDefinition,
  updatePermissionDefinition: permissions.updatePermissionDefinition,
  deletePermissionDefinition: permissions.deletePermissionDefinition,
};

function common<A extends ServerAccess>(t: Transport<A>, options: CommonAppOptions) {
  return {
    /** The wire-level transport (snake_case objects), for calls this app does not bind. */
    transport: t,
    ...camelEndpoints(bindEndpoints(t, serverEndpoints<A>()), OWN_OPTIONS),
    /**
     * Checks a user's access token (e.g. from a request to your API) against the project's keys.
     * Refusals are the service's known errors: UNPARSABLE_ACCESS_TOKEN, ACCESS_TOKEN_EXPIRED and
     * INVALID_PROJECT_FOR_ACCESS_TOKEN (family INVALID_ACCESS_TOKEN).
     */
    verifyAccessToken: createAccessTokenVerifier({
      baseUrl: trimBaseUrl(options.baseUrl),
      projectId: options.projectId,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    }),
    /** The same app acting as the user of `accessToken` (their `me`), with server access. */
    forUser(accessToken: string) {
      return camelEndpoints(
        bindEndpoints(t.withUserTokens(staticTokenSource(accessToken)), {
          getCurrentUser: users.getCurrentUser<A>,
          updateCurrentUser: users.updateCurrentUser<A>,
          listTeams: teams.listTeams<A>,
          listContactChannels: contactChannels.listContactChannels,
          listTeamPermissions: permissions.listTeamPermissions,
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
    refuseSecretsInBrowserOptions({ adminAccessToken: options.adminAccessToken, extraRequestHeaders: options.extraRequestHeaders }, '');
    adminTokens = options.adminAccessToken !== undefined ? staticTokenSource(options.adminAccessToken) : options.adminTokens;
  } else {
    throw new InvalidArgumentError('options', 'createAdminApp needs superSecretAdminKey, adminAccessToken or adminTokens.');
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

export type AdminApp = ReturnType<typeof createAdminApp>;

export { misc };
export { assertNotInBrowser };
export { ACCESS_TOKEN_ISSUER, createAccessTokenVerifier, type AccessTokenRejection, type AccessTokenVerifierOptions, type VerifiedAccessToken } from './accessTokens.js';
export { createRefreshingTokenSource, type RefreshingTokenSourceOptions } from './tokenSource.js';
export * from './index.js';
