/**
 * What the API modules need, each as narrow as it can be. The broker passes its real parts; these
 * interfaces say which of their members the modules may touch.
 */
import type { BrokerApi } from '../../contract/api.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { SessionEnd } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import type { TokenEndpointOptions } from '../../protocol/tokens.js';
import type { Transport } from '../../protocol/transport.js';
import type { QueryFilter } from '../cache/queryClient.js';
import type { StoredOAuthFlow } from '../storage/types.js';
import type { AppRequestsContext } from '../appRequests/appRequestsContext.js';

export type ApiSessionState =
  { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; userId: string | null };

/** A slot's session as the API modules use it. */
export interface ApiSession {
  readonly sessionKey: string | null;
  state(): ApiSessionState;
  start(): Promise<void>;
  getAccessToken(): Promise<string | null>;
  /** The access token if it can be used as is, without renewing it. */
  currentAccessToken(): Promise<string | null>;
  getRefreshToken(): Promise<string | null>;
  signIn(tokens: { access_token: string; refresh_token: string }, userId?: string | null): Promise<void>;
  end(end: SessionEnd, expectedKey?: string): Promise<void>;
}

/** Every way the broker reaches the service; all share one pipeline (worker/transports.ts). */
export interface ApiTransports {
  /** The user's calls (client access, the session's tokens). */
  readonly client: Transport<'client'>;
  /** The `internal` project's calls with the project owner's session (to list and create projects). */
  internal(): Transport<'client'>;
  /** The `internal` project without a session: where project owners sign in. */
  internalSignIn(): Transport<'client'>;
  /** Admin calls for a project (default: the broker's), with the owner's session or the dev key. */
  admin(projectId?: string): Transport<'admin'>;
  /** The user's calls made with exactly this token, never renewed (to end a session). */
  withAccessToken(token: string): Transport<'client'>;
  tokenEndpoint(slot: 'user' | 'admin'): TokenEndpointOptions;
}

/** Mutations write their answers into the shared cache, or mark what they changed stale. */
export interface CacheWriter {
  setQueryData(spec: QuerySpec, value: unknown): void;
  invalidate(filter: QueryFilter): void;
}

export interface OAuthFlowStore {
  putOAuthFlow(flow: StoredOAuthFlow): Promise<void>;
  takeOAuthFlow(state: string): Promise<StoredOAuthFlow | null>;
  pruneOAuthFlows(olderThanMillis: number): Promise<void>;
}

/** Sign-outs that could not reach the service, kept to send when the network returns. */
export interface SignOutOutbox {
  queueSignOut(refreshToken: string): Promise<void>;
  flush(): Promise<void>;
}

/**
 * A tab's own plumbing, served by worker/tabApi.ts; every other method of BrokerApi is a service method (this folder).
 */
export type PlumbingMethod =
  | 'status'
  | 'subscribe'
  | 'unsubscribe'
  | 'read'
  | 'refetch'
  | 'reportBrowserState'
  | 'goodbye'
  | 'watchLifetime'
  | 'getAccessToken'
  | 'configProblems';

/** What the service-facing methods are, for every tab alike (auth, account, teams, admin…). */
export type ServiceMethods = Omit<BrokerApi, PlumbingMethod>;

export interface ApiContext {
  readonly config: { readonly baseUrl: string; readonly projectId: string; readonly publishableClientKey: string };
  readonly clock: Clock;
  readonly session: ApiSession;
  /** Null when the broker has no `internalPublishableClientKey`. */
  readonly adminSession: ApiSession | null;
  readonly transports: ApiTransports;
  readonly queries: CacheWriter;
  readonly connectivity: { readonly isOffline: boolean };
  readonly oauthFlows: OAuthFlowStore;
  readonly outbox: SignOutOutbox;
  /** The app's own requests: `client.fetch`'s token, and writes kept while offline. */
  readonly appRequests: AppRequestsContext;
}
