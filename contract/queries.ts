/**
 * The query registry: every kind of data a tab can watch, defined once — its parameters, its
 * scope (whose data it is) and how it is fetched. The data type a tab sees is inferred from the
 * fetch. Adding a kind is one entry here plus its hook.
 *
 * The broker uses the whole registry; a tab imports only its types (and `hashQueryKey`), so none of
 * the fetching code reaches the tab's bundle.
 */
import * as endpoints from '../protocol/endpoints/index.js';
import { ClientError } from '../protocol/errors/errors.js';
import { camelize } from '../protocol/models.js';
import type { Transport } from '../protocol/transport.js';
import type { PendingChange } from './appRequests.js';
import type { BrokerFacts, CacheEntryFacts } from './diagnostics.js';
import type * as PaymentQueries from './paymentQueries.js';
import type { partialUserOfAccessToken } from '../protocol/partialUser.js';
import type { Watchable } from './events.js';
import { bool, fields, finiteNumber, oneOf, optional, segment, uuid, type Output, type Rule } from './schema.js';
import type { BrokerStatus, ConnectivitySnapshot, SessionInfo } from './state.js';

import type { QueryScope } from './scope.js';

export type { QueryScope };

/** What a fetch may use. */
export interface FetchContext {
  /** The user's calls (client access, the session's tokens). */
  readonly client: Transport<'client'>;
  isSignedIn(): boolean;
  /** The `internal` project's calls with the project owner's session. */
  internal(): Transport<'client'>;
  /** Admin calls for a project (default: the broker's). */
  admin(projectId?: string): Transport<'admin'>;
  /**
   * The fetches few pages need (payments, the partial user's reader). The broker loads them with its service methods,
   * so that they share that chunk's copy of the protocol: a chunk of their own would cut the up-front chunk in two, and
   * an import() here would put one in every host's bundle (an extension's background may not import()).
   */
  lazyFetches(): Promise<LazyFetches>;
}

/** The broker's own values that tabs can watch. */
export interface LiveContext {
  readonly session: Watchable<SessionInfo>;
  readonly adminSession: Watchable<SessionInfo>;
  readonly connectivity: Watchable<ConnectivitySnapshot>;
  readonly status: Watchable<BrokerStatus>;
  readonly diagnostics: Watchable<BrokerDiagnostics>;
  /** The writes waiting out an outage, and those refused or dropped (`offlineWrites`). */
  readonly pendingChanges: Watchable<PendingChange[]>;
}

type ParamsSchema = Rule<Record<string, unknown>>;
/** The payments queries' fetches, by name. */
export type PaymentFetches = typeof PaymentQueries;
/** What `FetchContext.lazyFetches` loads. */
export type LazyFetches = PaymentFetches & { partialUserOfAccessToken: typeof partialUserOfAccessToken };

export interface FetchedQueryDefinition<S extends ParamsSchema = ParamsSchema, D = unknown> {
  readonly scope: 'user' | 'admin' | 'project';
  readonly params: S;
  fetch(context: FetchContext, params: Output<S>): Promise<D>;
}

export interface LiveQueryDefinition<D = unknown, S extends ParamsSchema = ParamsSchema> {
  readonly scope: 'broker';
  readonly params: S;
  watch(context: LiveContext): Watchable<D>;
}

export type QueryDefinition = FetchedQueryDefinition | LiveQueryDefinition;

const fetched = <S extends ParamsSchema, D>(definition: FetchedQueryDefinition<S, D>) => definition;
const live = <D>(watch: (context: LiveContext) => Watchable<D>): LiveQueryDefinition<D> => ({
  scope: 'broker',
  params: none,
  watch,
});

const none = fields({});
const team = fields({ teamId: uuid() });
const ofProject = fields({ projectId: optional(segment()) });
/** A payments customer's fields; `types` those the service serves for the query. */
const customer = <const T extends readonly [string, ...string[]]>(types: T) => ({
  customerType: oneOf(types),
  customerId: segment(),
});
const page = { cursor: optional(segment()), limit: optional(finiteNumber()) };
/**
 * A payments query of the signed-in user: its fetch loads on the first one (`FetchContext.lazyFetches`), so a
 * broker whose tabs show no payments and do nothing never loads it.
 */
const payments = <S extends ParamsSchema, N extends keyof PaymentFetches>(params: S, name: N) =>
  fetched({
    scope: 'user',
    params,
    fetch: async (context, query: Output<S>): Promise<Awaited<ReturnType<PaymentFetches[N]>>> =>
      (await context.lazyFetches())[name](context.client, context.isSignedIn(), query as never) as never,
  });

/** Lists of a signed-out user are empty without asking the service. */
const whenSignedIn =
  <P, D>(empty: D, fetch: (context: FetchContext, params: P) => Promise<D>) =>
  (context: FetchContext, params: P): Promise<D> =>
    context.isSignedIn() ? fetch(context, params) : Promise.resolve(empty);

function requireSignedIn(context: FetchContext, what: string): void {
  if (!context.isSignedIn()) throw new ClientError('NOT_SIGNED_IN', `Sign in to see ${what}.`);
}

/** Wire objects become camelCase models here, once per fetch. */
export const queries = {
  currentUser: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn(null, async ({ client }) => camelize(await endpoints.getCurrentUser(client))),
  }),
  teams: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listTeams(client, { userId: 'me' }))),
  }),
  team: fetched({
    scope: 'user',
    params: team,
    fetch: async (context, { teamId }) => {
      requireSignedIn(context, 'a team');
      return camelize(await endpoints.getTeam(context.client, teamId));
    },
  }),
  teamMembers: fetched({
    scope: 'user',
    params: team,
    fetch: whenSignedIn([], async ({ client }, { teamId }: { teamId: string }) =>
      camelize(await endpoints.listTeamMemberProfiles(client, { teamId })),
    ),
  }),
  /** The signed-in user's own profile in a team (needs no `$read_members`). */
  teamProfile: fetched({
    scope: 'user',
    params: team,
    fetch: async (context, { teamId }) => {
      requireSignedIn(context, 'your team profile');
      return camelize(await endpoints.getTeamMemberProfile(context.client, teamId, 'me'));
    },
  }),
  teamInvitations: fetched({
    scope: 'user',
    params: team,
    fetch: whenSignedIn([], async ({ client }, { teamId }: { teamId: string }) =>
      camelize(await endpoints.listTeamInvitations(client, teamId)),
    ),
  }),
  permissions: fetched({
    scope: 'user',
    params: fields({ teamId: uuid(), recursive: optional(bool()) }),
    fetch: whenSignedIn(
      [],
      async ({ client }, { teamId, recursive }: { teamId: string; recursive?: boolean | undefined }) =>
        camelize(
          await endpoints.listTeamPermissions(client, { team_id: teamId, user_id: 'me', recursive: recursive ?? true }),
        ),
    ),
  }),
  /**
   * The user's project permissions (outside teams), with those reached through contained ones unless `recursive:
   * false`.
   */
  projectPermissions: fetched({
    scope: 'user',
    params: fields({ recursive: optional(bool()) }),
    fetch: whenSignedIn([], async ({ client }, { recursive }: { recursive?: boolean | undefined }) =>
      camelize(await endpoints.listProjectPermissions(client, { user_id: 'me', recursive: recursive ?? true })),
    ),
  }),
  /** Each notification category, and whether the user gets its e-mails. */
  notificationPreferences: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listNotificationPreferences(client, 'me'))),
  }),
  /** The user's linked provider accounts that the app may get provider tokens for. */
  connectedAccounts: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listConnectedAccounts(client, 'me'))),
  }),
  /** The signed-in user's own API keys, newest first (never the keys themselves: their last four characters). */
  userApiKeys: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listUserApiKeys(client, 'me'))),
  }),
  /** A team's API keys, newest first (needs `$manage_api_keys` in the team). */
  teamApiKeys: fetched({
    scope: 'user',
    params: team,
    fetch: whenSignedIn([], async ({ client }, { teamId }: { teamId: string }) =>
      camelize(await endpoints.listTeamApiKeys(client, teamId)),
    ),
  }),
  /** The user's OAuth providers: each linked provider account, whether it signs in and whether it gives tokens. */
  oauthProviders: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listOAuthProviders(client, 'me'))),
  }),
  /** Pending invitations sent to the user's verified e-mail addresses, to accept by id. */
  receivedTeamInvitations: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listReceivedTeamInvitations(client, 'me'))),
  }),
  contactChannels: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) =>
      camelize(await endpoints.listContactChannels(client, { userId: 'me' })),
    ),
  }),
  sessions: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn([], async ({ client }) => camelize(await endpoints.listSessions(client, 'me'))),
  }),
  /**
   * The user as the session's access token names it (its claims), read by the broker without a
   * request; null when signed out. Anonymous users are in it: the hook leaves them out unless asked.
   */
  partialUser: fetched({
    scope: 'user',
    params: none,
    fetch: whenSignedIn(null, async ({ client, lazyFetches }) => {
      const token = (await client.options.userTokens?.getAccessToken()) ?? null;
      // Its reader loads with the first read: most pages never ask for the partial user.
      return token === null ? null : (await lazyFetches()).partialUserOfAccessToken(token);
    }),
  }),
  project: fetched({
    scope: 'project',
    params: none,
    fetch: async ({ client }) => camelize(await endpoints.getCurrentProject(client)),
  }),
  // ── payments: a customer (`customerType`: user, team or custom; `customerId`) as the signed-in user may see it.
  /** A customer's quantity of an item (`{ id, displayName, quantity, nonNegativeQuantity }`); null signed out. */
  item: payments(fields({ ...customer(['user', 'team', 'custom']), itemId: segment() }), 'fetchItem'),
  /** A page of the products a customer owns, with their prices, subscriptions and plans to switch to. */
  products: payments(fields({ ...customer(['user', 'team', 'custom']), ...page }), 'fetchProducts'),
  /** Whether a user or team has a Stripe customer, and its card on file; null signed out. */
  billing: payments(fields(customer(['user', 'team'])), 'fetchBilling'),
  /** A page of a user's or team's subscription invoices, newest first. */
  invoices: payments(fields({ ...customer(['user', 'team']), ...page }), 'fetchInvoices'),
  'admin.ownedProjects': fetched({
    scope: 'admin',
    params: none,
    fetch: async (context) => camelize(await endpoints.listOwnedProjects(context.internal())),
  }),
  'admin.project': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) => camelize(await endpoints.getCurrentProject(context.admin(projectId))),
  }),
  'admin.apiKeys': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) => camelize(await endpoints.listApiKeys(context.admin(projectId))),
  }),
  'admin.apiKey': fetched({
    scope: 'admin',
    params: fields({ apiKeyId: uuid(), projectId: optional(segment()) }),
    fetch: async (context, { apiKeyId, projectId }) =>
      camelize(await endpoints.getApiKey(context.admin(projectId), apiKeyId)),
  }),
  'admin.emailTemplates': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) => camelize(await endpoints.listEmailTemplates(context.admin(projectId))),
  }),
  'admin.permissionDefinitions': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) =>
      camelize(await endpoints.listPermissionDefinitions(context.admin(projectId))),
  }),
  'admin.metrics': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) => camelize(await endpoints.getProjectMetrics(context.admin(projectId))),
  }),
  'admin.sentEmails': fetched({
    scope: 'admin',
    params: ofProject,
    fetch: async (context, { projectId }) => camelize(await endpoints.listSentEmails(context.admin(projectId))),
  }),
  /** Whether someone is signed in, and why the last session ended. */
  session: live((context) => context.session),
  adminSession: live((context) => context.adminSession),
  connectivity: live((context) => context.connectivity),
  status: live((context) => context.status),
  /** The writes waiting out an outage (what, since when, where), and those refused or dropped: `usePendingChanges()`. */
  pendingChanges: live((context) => context.pendingChanges),
  /**
   * What the broker is doing, for devtools: read only and token-free (contract/diagnostics.ts).
   * `panel` names the devtools panel watching, so that it can find its own tab in the list.
   */
  diagnostics: {
    scope: 'broker',
    params: fields({ panel: optional(segment()) }),
    watch: (context): Watchable<BrokerDiagnostics> => context.diagnostics,
  },
} satisfies Record<string, QueryDefinition>;

export type Queries = typeof queries;
/** The kinds of query a tab can watch (`currentUser`, `teams`, `connectivity`…). */
export type QueryKind = keyof Queries;

type ParamsOfKind<K extends QueryKind> = Output<Queries[K]['params']>;

/** A query: its kind and its parameters, e.g. `{ kind: 'team', teamId }`. */
export type QuerySpec = { [K in QueryKind]: { kind: K } & ParamsOfKind<K> }[QueryKind];

/** What a tab sees of each query kind. */
export type QueryData = {
  [K in QueryKind]: Queries[K] extends FetchedQueryDefinition<ParamsSchema, infer D>
    ? D
    : Queries[K] extends LiveQueryDefinition<infer D>
      ? D
      : never;
};

/** The data a query of kind `Q` gives. */
export type DataOf<Q extends { kind: QueryKind }> = QueryData[Q['kind']];

/** What the `diagnostics` query carries (contract/diagnostics.ts), listing this registry's queries. */
export interface BrokerDiagnostics extends BrokerFacts {
  cache: CacheEntryDiagnostics[];
}

export interface CacheEntryDiagnostics extends CacheEntryFacts {
  query: QuerySpec;
}

export function queryDefinition(kind: QueryKind): QueryDefinition {
  return queries[kind] as QueryDefinition;
}

export function isQueryKind(value: unknown): value is QueryKind {
  return typeof value === 'string' && Object.hasOwn(queries, value);
}
