import { ClientError, NetworkError } from '../protocol/errors/errors.js';
import { assertNotInBrowser } from '../protocol/environment.js';
import type { AccessType } from '../protocol/resources/common.js';
import { systemClock, type Clock } from '../protocol/retry.js';
import type { TokenEndpointOptions } from '../protocol/tokens.js';
import { createTransport, type Transport, type TransportObserver, type TransportOptions } from '../protocol/transport.js';
import { AUTHBROKER_VERSION } from '../protocol/version.js';
import type { BrokerMode, SessionInfo } from './api/types.js';
import { createBus, type Bus } from './bus.js';
import { queryName, scopeOf, type QuerySpec } from './cache/queries.js';
import { QueryCache } from './cache/queryCache.js';
import { systemScheduler, type Scheduler } from './cache/query.js';
import type { ResolvedBrokerConfig } from './config.js';
import { Connectivity } from './connectivity.js';
import { browserLocks, type LockManagerLike } from './locks.js';
import { Session, type SessionState } from './session.js';
import { createIndexedDbStorage } from './storage/indexedDb.js';
import { createMemoryStorage } from './storage/memory.js';
import type { BrokerStorage } from './storage/types.js';

/** What the host supplies: the runtime's facilities, replaceable in tests. */
export interface BrokerHostOptions {
  mode: BrokerMode;
  fetch?: typeof fetch;
  clock?: Clock;
  scheduler?: Scheduler;
  /** Default: IndexedDB, falling back to memory (with a warning) when IndexedDB fails. */
  storage?: BrokerStorage | (() => Promise<BrokerStorage>);
  /** Default: `navigator.locks` where it exists. */
  locks?: LockManagerLike | null;
  bus?: Bus;
  lockTimeoutMillis?: number;
  /**
   * Node and development only: admin calls with a super secret admin key instead of an owner's
   * session. Refused in browsers.
   */
  superSecretAdminKey?: string;
}

/** Everything the API modules share. One per broker. */
export interface BrokerCore {
  readonly brokerId: string;
  readonly config: ResolvedBrokerConfig;
  readonly mode: BrokerMode;
  readonly clock: Clock;
  readonly fetch: typeof fetch;
  readonly storage: BrokerStorage;
  readonly bus: Bus;
  readonly locks: LockManagerLike | null;
  readonly connectivity: Connectivity;
  readonly cache: QueryCache;
  readonly session: Session;
  readonly adminSession: Session | null;
  readonly superSecretAdminKey: string | undefined;
  readonly startedAtMillis: number;
  readonly warnings: string[];
  /** The user's calls (client access, the session's tokens). */
  readonly client: Transport<'client'>;
  /** The `internal` project's calls with the owner's session (to list and create projects). */
  internal(): Transport<'client'>;
  /** Admin calls for a project (default: the broker's), with the owner's session or the dev key. */
  admin(projectId?: string): Transport<'admin'>;
  tokenEndpoint(slot: 'user' | 'admin'): TokenEndpointOptions;
  /** The cache key of a query in the current sessions. */
  keyOf(spec: QuerySpec): string;
  /** A mutation's result: into this broker's cache and every other broker's. */
  setQueryData(spec: QuerySpec, data: unknown): void;
  /** Marks queries stale here and in every other broker; `spec` may name a whole kind. */
  invalidate(spec: QuerySpec | { kind: QuerySpec['kind'] }): void;
  sessionInfo(state: SessionState): SessionInfo;
}

export async function openStorage(option: BrokerHostOptions['storage'], warnings: string[]): Promise<BrokerStorage> {
  if (option !== undefined && typeof option !== 'function') return option;
  try {
    return await (option ?? createIndexedDbStorage)();
  } catch (error) {
    warnings.push(`IndexedDB is not available (${error instanceof Error ? error.message : String(error)}): the session is kept in memory and ends when the broker stops.`);
    return createMemoryStorage();
  }
}

export async function createCore(config: ResolvedBrokerConfig, host: BrokerHostOptions): Promise<BrokerCore> {
  if (host.superSecretAdminKey !== undefined) assertNotInBrowser('A super secret admin key');
  const warnings: string[] = [];
  const clock = host.clock ?? systemClock;
  const fetchFn = host.fetch ?? globalThis.fetch.bind(globalThis);
  const storage = await openStorage(host.storage, warnings);
  const bus = host.bus ?? createBus(config.projectId);
  const locks = host.locks === undefined ? browserLocks() : host.locks;
  const connectivity = new Connectivity({ baseUrl: config.baseUrl, fetch: fetchFn, clock });
  const cache = new QueryCache(host.scheduler ?? systemScheduler);
  const brokerId = crypto.randomUUID();

  const observer: TransportObserver = {
    onResponse: ({ status }) => connectivity.recordResponse(status),
    onNetworkError: ({ error }) => connectivity.recordNetworkFailure(error),
  };
  /** Reads wait out an outage; writes fail at once (they are not retried on network errors anyway). */
  const beforeAttempt = async ({ method }: { method: string }, signal: AbortSignal | undefined) => {
    if (!connectivity.isOffline) return;
    if (method === 'GET') return connectivity.waitUntilOnline(signal);
    throw new NetworkError('NETWORK_OFFLINE', 'You are offline: this change was not sent. Try again when the connection is back.', connectivity.snapshot().diagnostics, 0);
  };
  const onStorageError = (error: unknown) => {
    const warning = `The session could not be saved (${error instanceof Error ? error.message : String(error)}); it lasts until the broker stops.`;
    if (!warnings.includes(warning)) warnings.push(warning);
  };

  const tokenEndpoint = (slot: 'user' | 'admin'): TokenEndpointOptions => ({
    baseUrl: config.baseUrl,
    projectId: slot === 'user' ? config.projectId : 'internal',
    publishableClientKey: slot === 'user' ? config.publishableClientKey : (config.internalPublishableClientKey ?? ''),
    fetch: fetchFn,
    clock,
    observer,
    beforeAttempt: (signal) => connectivity.waitUntilOnline(signal),
    navigatorOnline: () => connectivity.snapshot().browserOnline,
  });

  const newSession = (slot: string, kind: 'user' | 'admin') =>
    new Session({ slot, storage, bus, locks, clock, marginMillis: config.tokenMarginMillis, lockTimeoutMillis: host.lockTimeoutMillis ?? 10_000, tokenEndpoint: tokenEndpoint(kind), onStorageError });
  const session = newSession(config.projectId, 'user');
  const adminSession = config.internalPublishableClientKey === undefined ? null : newSession(`admin:${config.projectId}`, 'admin');

  const transport = <A extends AccessType>(accessType: A, projectId: string, extra: Partial<TransportOptions<A>>) =>
    createTransport<A>({
      baseUrl: config.baseUrl,
      projectId,
      accessType,
      fetch: fetchFn,
      clock,
      observer,
      beforeAttempt,
      extraRequestHeaders: config.extraRequestHeaders,
      navigatorOnline: () => connectivity.snapshot().browserOnline,
      ...extra,
    });
  const client = transport('client', config.projectId, { publishableClientKey: config.publishableClientKey, userTokens: session });
  const adminTransports = new Map<string, Transport<'admin'>>();

  const scopeKey = (spec: QuerySpec): string => {
    switch (scopeOf(spec)) {
      case 'user':
        return `user:${session.sessionKey ?? 'anonymous'}`;
      case 'admin':
        return `admin:${adminSession?.sessionKey ?? (host.superSecretAdminKey ? 'key' : 'anonymous')}`;
      default:
        return 'project';
    }
  };

  const core: BrokerCore = {
    brokerId,
    config,
    mode: host.mode,
    clock,
    fetch: fetchFn,
    storage,
    bus,
    locks,
    connectivity,
    cache,
    session,
    adminSession,
    superSecretAdminKey: host.superSecretAdminKey,
    startedAtMillis: clock.now(),
    warnings,
    client,
    internal: () => transport('client', 'internal', { publishableClientKey: config.internalPublishableClientKey, userTokens: requireAdminSession(core) }),
    admin(projectId = config.projectId) {
      if (host.superSecretAdminKey === undefined && requireAdminSession(core).sessionKey === null) {
        throw new ClientError('NOT_SIGNED_IN', 'Sign in as a project owner (adminSignInWithPassword) before administering a project.');
      }
      let t = adminTransports.get(projectId);
      if (!t) {
        t = host.superSecretAdminKey !== undefined && adminSession?.sessionKey == null
          ? transport('admin', projectId, { superSecretAdminKey: host.superSecretAdminKey })
          : transport('admin', projectId, { adminTokens: requireAdminSession(core) });
        adminTransports.set(projectId, t);
      }
      return t;
    },
    tokenEndpoint,
    keyOf: (spec) => `${scopeKey(spec)}|${queryName(spec)}`,
    setQueryData(spec, data) {
      const key = core.keyOf(spec);
      cache.setData(key, data);
      bus.post({ type: 'cache-set', key, value: data });
    },
    invalidate(spec) {
      const prefix = 'teamId' in spec || 'projectId' in spec ? core.keyOf(spec as QuerySpec) : `${scopeKey(spec as QuerySpec)}|${spec.kind}`;
      cache.invalidate(prefix);
      bus.post({ type: 'cache-invalidate', prefix });
    },
    sessionInfo: (state) => (state.status === 'signed-in' ? { status: 'signed-in', userId: state.userId } : state),
  };

  // Mutations in other brokers (other deploys, in-page brokers of other tabs) reach this cache too.
  bus.onMessage((message) => {
    if (message.type === 'cache-set') cache.setData(message.key, message.value);
    if (message.type === 'cache-invalidate') cache.invalidate(message.prefix);
  });
  // Admin transports hold the session they were made with; a new admin sign-in makes new ones.
  adminSession?.subscribe(() => adminTransports.clear());
  return core;
}

export function requireAdminSession(core: Pick<BrokerCore, 'adminSession'>): Session {
  if (core.adminSession === null) {
    throw new ClientError('NOT_SIGNED_IN', 'Admin calls need internalPublishableClientKey in the broker config (project owners sign in to the internal project).');
  }
  return core.adminSession;
}

export const BROKER_VERSION = AUTHBROKER_VERSION;
