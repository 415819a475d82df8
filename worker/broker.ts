/**
 * The broker: one project of one service, for every tab of an origin. This file only wires the parts together; each
 * part is a folder of its own (session/, connectivity/, cache/, tabs/, storage/, lazy/, coordination/).
 */
import type { BrokerApi, TabHello, TabListener } from '../contract/api.js';
import type { PendingChange } from '../contract/appRequests.js';
import type { CauseVia } from '../contract/diagnostics.js';
import { Emitter, type Watchable } from '../contract/events.js';
import type { FetchContext, LiveContext, QueryScope, QuerySpec } from '../contract/queries.js';
import type { BrokerMode, BrokerStatus } from '../contract/state.js';
import { systemClock, type Clock } from '../protocol/clock.js';
import { messageOf } from '../protocol/errors/errors.js';
import type { ApiContext, ServiceMethods } from './api/context.js';
import { QueryClient } from './cache/queryClient.js';
import { configCheck } from './cache/configCheck.js';
import { refetchOnReturn } from './cache/refetchOnReturn.js';
import {
  brokerKeyOf,
  configMismatch,
  resolveBrokerConfig,
  type BrokerConfig,
  type ResolvedBrokerConfig,
} from './config.js';
import { Connectivity } from './connectivity/connectivity.js';
import { createBus, type Bus } from './coordination/bus.js';
import { browserLocks, holdUntilReleased, type LockManagerLike } from './coordination/locks.js';
import type { BrokerHostOptions } from './hostOptions.js';
import type { RecorderSources } from './diagnostics/recorder.js';
import type { LazyParts } from './lazy/parts.js';
import { createRecording, type Recording } from './lazy/recording.js';
import { lazyTokenGrant, type LazyTokenGrant } from './lazy/refreshGrant.js';
import { loadOnDemand } from './lazy/loadOnDemand.js';
import { lazyServices } from './lazy/services.js';
import { tabCause } from './requests/onBehalfOf.js';
import { servicesByTab } from './requests/tabActions.js';
import { createOutbox, type Outbox } from './session/outbox.js';
import { checkAttachingHost, withholdTokens } from './appRequests/tokenGuard.js';
import { offlineWrites, type OfflineWrites } from './writes/offlineWrites.js';
import { Session } from './session/session.js';
import { watchSession } from './session/watch.js';
import { createStatus, Warnings } from './status.js';
import { openTokenStore } from './storage/tokenStore.js';
import type { BrokerStorage } from './storage/types.js';
import { tabConnector } from './tabs/connectTab.js';
import type { TabTrace } from './tabs/tabApi.js';
import { Tabs } from './tabs/tabs.js';
import { createTransports, tokenEndpointOptions, type Transports } from './transports.js';

/** The broker's parts, for its hosts, diagnostics and tests; API modules each get only what they need. */
export interface BrokerParts {
  readonly brokerId: string;
  readonly mode: BrokerMode;
  readonly clock: Clock;
  readonly storage: BrokerStorage;
  readonly bus: Bus;
  readonly locks: LockManagerLike | null;
  readonly connectivity: Connectivity;
  readonly session: Session;
  readonly adminSession: Session | null;
  readonly queries: QueryClient;
  readonly transports: Transports;
  readonly outbox: Outbox;
  readonly tabs: Tabs;
  readonly warnings: Warnings;
  /** What devtools see: the recorder, loaded when a tab first asks for the `diagnostics` query. */
  readonly recording: Recording;
}

/** A running broker: the session, the shared cache and the connections of every tab of one project. */
export interface Broker {
  /** The configuration it runs with. */
  readonly config: ResolvedBrokerConfig;
  /** Its parts, for hosts, diagnostics and tests. */
  readonly parts: BrokerParts;
  /** A tab's view of the broker. `listener` receives its subscription updates. */
  connect(hello: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi;
  /** Like `connect`, after checking that the tab asks for this broker's service and project. */
  connectWithConfig(config: unknown, hello: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi;
  /** Its status now. */
  status(): BrokerStatus;
  /** Stops it: closes every tab's connection, timers and storage. */
  close(): void;
}

/** What every part below is made from. */
interface Base {
  config: ResolvedBrokerConfig;
  brokerKey: string;
  host: BrokerHostOptions & LazyParts;
  clock: Clock;
  fetch: typeof fetch;
  locks: LockManagerLike | null;
  storage: BrokerStorage;
  bus: Bus;
  connectivity: Connectivity;
  warnings: Warnings;
  recording: Recording;
  /** A session renewed its access token (the status counts renewals). */
  refreshed: Emitter;
  /** What the recorder reads when it loads, once every part exists. */
  recorderSources(read: () => RecorderSources): void;
}

/**
 * What a tab's call on `query` (or on a subscription) waits for first: the recorder, for the
 * diagnostics query; any call, for a recorder that is loading, so that calls keep their order.
 */
function readyFor(recording: Recording, query: QuerySpec | undefined): Promise<unknown> | undefined {
  if (query?.kind === 'diagnostics' && recording.recorder === null) return recording.load();
  return recording.loading?.catch(() => undefined);
}

/** The user's session and, for a config with an `internal` key, the project owner's; keyed by service and project. */
function createSessions(base: Base, tokenGrant: LazyTokenGrant): { session: Session; adminSession: Session | null } {
  const { config, brokerKey, clock, connectivity, recording, warnings } = base;
  const network = { config, fetch: base.fetch, clock, connectivity };
  const newSession = (slot: string, tokenSlot: 'user' | 'admin') =>
    new Session({
      slot,
      storage: base.storage,
      bus: base.bus,
      locks: base.locks,
      clock,
      marginMillis: config.tokenMarginMillis,
      lockTimeoutMillis: base.host.lockTimeoutMillis,
      tokenEndpoint: tokenEndpointOptions({ ...network, observer: recording.refreshes(tokenSlot).observer }, tokenSlot),
      refreshAccessToken: tokenGrant.refreshAccessToken,
      onRefreshCall: recording.refreshes(tokenSlot).onRefreshCall,
      onStorageError: (error) =>
        warnings.add(`The session could not be saved (${messageOf(error)}): it ends with the broker.`),
      onWarning: (warning) => warnings.add(warning),
      onRefreshed: () => base.refreshed.emit(),
    });
  // The storage slot, and with it the refresh lock's name.
  const session = newSession(brokerKey, 'user');
  const adminSession =
    config.internalPublishableClientKey === undefined ? null : newSession(`admin:${brokerKey}`, 'admin');
  return { session, adminSession };
}

/** The shared cache, told of mutations in other brokers (other deploys, in-page brokers of other tabs) too. */
function createQueries(
  base: Base,
  sessions: ReturnType<typeof createSessions>,
  transports: Transports,
  pendingChanges: Watchable<PendingChange[]>,
) {
  const { session, adminSession } = sessions;
  const lazyFetches = loadOnDemand(async () => (await base.host.services()).lazyFetches, 'lazy queries');
  const ownerOf = (scope: QueryScope): string => {
    if (scope === 'user') return `user:${session.sessionKey ?? 'anonymous'}`;
    if (scope === 'admin')
      return `admin:${adminSession?.sessionKey ?? (base.host.superSecretAdminKey ? 'key' : 'anonymous')}`;
    return scope;
  };
  const isSignedIn = () => session.sessionKey !== null;
  const fetchContext: FetchContext = {
    client: transports.client,
    isSignedIn,
    internal: () => transports.internal(),
    admin: (projectId?: string) => transports.admin(projectId),
    lazyFetches,
  };
  const { connectivity, recording } = base;
  let status: Watchable<BrokerStatus> | null = null;
  const liveContext: LiveContext = {
    session: watchSession(session),
    adminSession: watchSession(adminSession),
    connectivity: { current: () => connectivity.snapshot(), subscribe: (listener) => connectivity.subscribe(listener) },
    get status() {
      if (status === null) throw new TypeError('status read before the broker assembled it');
      return status;
    },
    get diagnostics() {
      // The tab API loads the recorder before it serves a diagnostics query.
      if (recording.recorder === null) throw new TypeError('diagnostics read before the recorder loaded');
      return recording.recorder.diagnostics;
    },
    pendingChanges,
  };
  const queries = new QueryClient({
    clock: base.clock,
    fetchContext,
    fetchContextFor: (cause) => {
      const attributed = recording.recorder?.fetchContext(cause);
      return attributed === undefined ? fetchContext : { ...attributed, lazyFetches };
    },
    liveContext,
    ownerOf,
    currentUserId: () => {
      const state = session.state();
      return state.status === 'signed-in' ? state.userId : null;
    },
    broadcast: (message) => base.bus.post(message),
  });
  base.bus.onMessage((message) => {
    if (message.type === 'cache-invalidate')
      queries.receive(message, recording.trace({ tab: null, via: 'broker', name: 'another broker' }));
  });
  const setStatus = (value: Watchable<BrokerStatus>) => (status = value);
  return { queries, liveContext, ownerOf, isSignedIn, setStatus };
}

/**
 * Builds a broker for one project of one service. Every host (SharedWorker, service worker, page)
 * uses this, saying where the broker's lazy parts load from; `authbroker/worker` exports it with
 * the default ones (worker/index.ts). A `superSecretAdminKey` is refused in browsers by the entries
 * that take one from their caller (`authbroker/worker`'s `createBroker`, `createInProcessBroker`):
 * the worker hosts never pass one, and their scripts carry no such check.
 */
export async function createBroker(
  configInput: BrokerConfig | unknown,
  host: BrokerHostOptions & LazyParts,
): Promise<Broker> {
  checkAttachingHost(configInput, host.attachesTokens);
  const base = await openBase(configInput, host);
  const { config, clock, connectivity, recording, warnings, storage, bus, locks } = base;
  const brokerId = crypto.randomUUID();
  const startedAtMillis = clock.now();
  const tokenGrant = lazyTokenGrant(host.tokenGrant, clock);
  const sessions = createSessions(base, tokenGrant);
  const { session, adminSession } = sessions;
  const network = { config, fetch: base.fetch, clock, connectivity };
  const baseTransports = createTransports({
    ...network,
    userSession: session,
    adminSession,
    superSecretAdminKey: host.superSecretAdminKey,
  });
  // What nobody attributed (the outbox, fetches started before recording) is the broker's own work.
  const transports = recording.brokerWork(baseTransports, 'broker');
  const writes = offlineWrites(config.offlineWrites, host.writes);
  const { queries, liveContext, ownerOf, isSignedIn, setStatus } = createQueries(
    base,
    sessions,
    transports,
    writes.pending,
  );
  // A tab's fetches name it, recorded or not: they go out in its turn (requests/scheduler.ts).
  const causeOf = (tab: number, via: CauseVia, name: string) => recording.trace({ tab, via, name }) ?? tabCause(tab);
  const tabs = new Tabs(queries, locks, causeOf, clock);
  tabs.released.subscribe((tab) => warnings.forgetTab(tab));
  // Kept current while someone looks at it; nothing is asked of the service while nobody does.
  tabs.changed.subscribe(() => connectivity.setWatched(tabs.someoneWatchesConnectivity()));
  const outbox = createOutbox({
    storage,
    key: base.brokerKey,
    clock,
    marginMillis: config.tokenMarginMillis,
    connectivity,
    refreshAccessToken: tokenGrant.refreshAccessToken,
    transports: recording.brokerWork(baseTransports, 'sign-out outbox'),
    onStorageError: () =>
      warnings.add(
        'An offline sign-out could not be saved: it is sent when back online, unless every tab closes first.',
      ),
  });
  const status = setStatus(
    describeBroker(
      base,
      { brokerId, startedAtMillis, tabs, queries, ownerOf, isSignedIn, liveContext, sessions },
      baseTransports,
    ),
  );
  const onReturn = refetchOnReturn(config.refetchOnReturn, clock, queries);
  const prefetchGrantIfSignedIn = followSessions(sessions, tabs, tokenGrant);
  onConnectivity(connectivity, {
    online: () => void outbox.flush(),
    back: () => onReturn(recording.trace({ tab: null, via: 'return', name: 'back online' })),
  });

  // Held for the broker's life, before any tab connects. A worker gives no sign when it is killed
  // or crashes; its locks are freed, so tabs waiting for this one learn that it is gone.
  const [ownLock] = await Promise.all([
    host.mode === 'in-process' ? null : holdUntilReleased(locks, `authbroker:broker:${brokerId}`),
    session.start(),
    adminSession?.start(),
  ]);
  void outbox.flush();
  prefetchGrantIfSignedIn();

  const apiContext: ApiContext = {
    config,
    clock,
    session,
    adminSession,
    transports,
    queries,
    connectivity,
    oauthFlows: storage,
    outbox,
    appRequests: { config: config.appRequests, marginMillis: config.tokenMarginMillis, session, writes },
  };
  // The service methods load on their first call (lazy/services.ts).
  const servicesOf = lazyServices(host.services);
  // While recording, each call runs with its own attributed copy; a tab's actions go out in its turn either way.
  const trace: TabTrace = {
    cause: (tab, via, name) => causeOf(tab.label, via, name),
    // Writes kept while offline go through their queue when the app asked for it (`offlineWrites`).
    services: writes.wrap(
      servicesByTab(servicesOf, apiContext, tabs.released, (tab, method) => {
        const own = recording.trace({ tab, via: 'action', name: method });
        return own && recording.recorder?.actionContext(apiContext, own);
      }),
    ),
  };
  const configProblems = configCheck({
    config,
    readProject: () => transports.client.request({ method: 'GET', path: '/projects/current', user: 'none' }),
    onProblem: (problem) => warnings.add(problem),
  });
  const tabApi = tabConnector({
    tabs,
    queries,
    session,
    connectivity,
    warnings,
    status: () => status.current(),
    onReturn,
    configProblems,
    ownLockName: async () => (ownLock === null ? null : ownLock.current()),
    services: servicesOf(apiContext),
    trace,
    ready: (query) => readyFor(recording, query),
  });
  const connect = withholdTokens(config.appRequests, tabApi);
  startWrites(writes, base, { session, connectivity, queries, servicesOf, apiContext, baseTransports });
  const parts = { brokerId, mode: host.mode, clock, storage, bus, locks, connectivity, ...sessions, queries };
  return {
    config,
    parts: { ...parts, transports, outbox, tabs, warnings, recording },
    connect,
    connectWithConfig(configInput, hello, listener, onRelease) {
      const mismatch = configMismatch(config, resolveBrokerConfig(configInput));
      if (mismatch !== null) throw mismatch;
      return connect(hello, listener, onRelease);
    },
    status: () => status.current(),
    close() {
      writes.close();
      session.close();
      adminSession?.close();
      ownLock?.release();
      tabs.releaseAll();
      connectivity.close();
      tokenGrant.close();
      queries.cache.clear();
      bus.close();
      storage.close();
    },
  };
}

/** The broker's status for the tabs, and what the recorder reads when it loads (once every part exists). */
function describeBroker(
  base: Base,
  parts: {
    brokerId: string;
    startedAtMillis: number;
    tabs: Tabs;
    queries: QueryClient;
    ownerOf: (scope: QueryScope) => string;
    isSignedIn: () => boolean;
    liveContext: LiveContext;
    sessions: ReturnType<typeof createSessions>;
  },
  baseTransports: Transports,
): Watchable<BrokerStatus> {
  const { brokerId, startedAtMillis, tabs, queries, liveContext } = parts;
  const { session, adminSession } = parts.sessions;
  const { host, storage, warnings } = base;
  base.recorderSources(() => ({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    clock: base.clock,
    tabs,
    cache: queries.cache,
    ownerOf: parts.ownerOf,
    session,
    adminSession,
    refreshed: base.refreshed,
    connectivity: liveContext.connectivity,
    warnings,
    transports: baseTransports,
    queries,
    isSignedIn: parts.isSignedIn,
  }));
  return createStatus({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    tabs,
    cache: queries.cache,
    session: liveContext.session,
    adminSession: liveContext.adminSession,
    connectivity: liveContext.connectivity,
    tokenRefreshes: {
      count: () => session.refreshCount + (adminSession?.refreshCount ?? 0),
      changed: base.refreshed,
    },
    warnings,
  });
}

/** The config, the runtime's facilities and the storage every part is made from. */
async function openBase(configInput: unknown, host: BrokerHostOptions & LazyParts): Promise<Base> {
  const config = resolveBrokerConfig(configInput);
  const brokerKey = brokerKeyOf(config);
  const clock = host.clock ?? systemClock;
  const fetchFn = host.fetch ?? globalThis.fetch.bind(globalThis);
  const warnings = new Warnings();
  const locks = host.locks === undefined ? browserLocks() : host.locks;
  const storage = await openTokenStore({
    tokenStore: config.tokenStore,
    brokerKey,
    durableBrokerKey: brokerKeyOf({ ...config, tokenStore: 'indexeddb' }),
    storage: host.storage,
    locks,
    clock,
    memoryTokens: host.memoryTokens,
    warn: (warning) => warnings.add(warning),
  });
  let sources: (() => RecorderSources) | null = null;
  const recording = createRecording(host.recorder, () => {
    if (sources === null) throw new TypeError('the recorder loaded before the broker was assembled');
    return sources();
  });
  return {
    config,
    brokerKey,
    host,
    clock,
    fetch: fetchFn,
    locks,
    storage,
    bus: host.bus ?? createBus(brokerKey),
    connectivity: new Connectivity({
      baseUrl: config.baseUrl,
      fetch: fetchFn,
      clock,
      watchIntervalMillis: config.connectivityCheckMillis,
    }),
    warnings,
    recording,
    refreshed: new Emitter(),
    recorderSources: (read) => (sources = read),
  };
}

/**
 * Tabs' subscriptions follow each session to its new owner; a signed-in session's grants load ahead of need. Returns
 * the check the broker makes once its sessions have loaded.
 */
function followSessions(
  { session, adminSession }: ReturnType<typeof createSessions>,
  tabs: Tabs,
  tokenGrant: LazyTokenGrant,
): () => void {
  session.subscribe(() => tabs.repoint('user'));
  adminSession?.subscribe(() => tabs.repoint('admin'));
  const prefetchGrantIfSignedIn = () => {
    if (session.state().status === 'signed-in' || adminSession?.state().status === 'signed-in')
      tokenGrant.prefetchSoon();
  };
  session.subscribe(prefetchGrantIfSignedIn);
  adminSession?.subscribe(prefetchGrantIfSignedIn);
  return prefetchGrantIfSignedIn;
}

/** `online` on every online state the tabs are told of; `back` when the service is reachable again after it was not. */
function onConnectivity(connectivity: Connectivity, on: { online(): void; back(): void }): void {
  let lastState = connectivity.snapshot().state;
  connectivity.subscribe((snapshot) => {
    if (snapshot.state === 'online') on.online();
    if (snapshot.state === 'online' && lastState !== 'online') on.back();
    lastState = snapshot.state;
  });
}

/** The write queue's parts, once the broker is assembled (it loads now when the app keeps writes). */
function startWrites(
  writes: OfflineWrites,
  base: Base,
  parts: Pick<BrokerParts, 'session' | 'connectivity' | 'queries'> & {
    servicesOf: (context: ApiContext) => ServiceMethods;
    apiContext: ApiContext;
    baseTransports: Transports;
  },
): void {
  const { config, clock, locks, recording, warnings } = base;
  writes.start(() => ({
    key: base.brokerKey,
    baseUrl: config.baseUrl,
    inMemory: config.tokenStore === 'memory',
    appRequests: config.appRequests,
    marginMillis: config.tokenMarginMillis,
    clock,
    fetch: base.fetch,
    locks,
    session: parts.session,
    connectivity: parts.connectivity,
    queries: parts.queries,
    services: (wrap) => parts.servicesOf({ ...parts.apiContext, transports: wrap(parts.apiContext.transports) }),
    client: recording.brokerWork(parts.baseTransports, 'offline writes').client,
    warn: (warning) => warnings.add(warning),
  }));
}
