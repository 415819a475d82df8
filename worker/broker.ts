import type { BrokerApi, TabHello, TabListener } from '../contract/api.js';
import { Emitter, type Watchable } from '../contract/events.js';
import type { LiveContext, QueryScope, QuerySpec } from '../contract/queries.js';
import {
  array,
  fields,
  isAbsoluteUrl,
  maxLength,
  minLength,
  optional,
  parseValue,
  pipe,
  string,
  check,
} from '../contract/schema.js';
import type { BrokerMode, BrokerStatus, SessionInfo } from '../contract/state.js';
import { systemClock, type Clock } from '../protocol/clock.js';
import { InvalidArgumentError, messageOf } from '../protocol/errors/errors.js';
import type { ApiContext } from './api/context.js';
import { createBus, type Bus } from './bus.js';
import type { FetchCause } from './cache/entry.js';
import { QueryClient } from './cache/queryClient.js';
import {
  brokerKeyOf,
  configMismatch,
  resolveBrokerConfig,
  type BrokerConfig,
  type ResolvedBrokerConfig,
} from './config.js';
import { Connectivity } from './connectivity.js';
import { openStorage, type BrokerHostOptions, type LazyParts } from './host.js';
import { browserLocks, holdUntilReleased, keepLock, type LockManagerLike } from './locks.js';
import { createOutbox, type Outbox } from './outbox.js';
import { createRecording, type Recording } from './recording.js';
import { checkedApi } from './rpc/guard.js';
import { Session, type SessionState } from './session.js';
import { lazyServices } from './services.js';
import { createStatus, Warnings } from './status.js';
import { createMemoryStorage } from './storage/memory.js';
import { liveKey, readSessionRecord, type BrokerStorage } from './storage/types.js';
import { createTabApi, type TabTrace } from './tabApi.js';
import { Tabs } from './tabs.js';
import { lazyTokenGrant } from './tokenGrant.js';
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

/** Returns closer together than this share one refetch of what is on screen. */
export const RETURN_REFETCH_INTERVAL_MILLIS = 5000;

const tabUrl = pipe(string(), maxLength(2000), check(isAbsoluteUrl, 'must be an absolute URL'));
const helloRules = fields({
  warnings: optional(
    pipe(
      array(pipe(string(), maxLength(2000)), 'must be a list of sentences'),
      maxLength(10, 'must hold at most 10 warnings'),
    ),
  ),
  handlerUrls: optional(
    fields({ emailVerification: tabUrl, passwordReset: tabUrl, magicLinkCallback: tabUrl, teamInvitation: tabUrl }),
  ),
  tabId: optional(pipe(string(), minLength(1, 'must not be empty'), maxLength(200))),
  lockName: optional(pipe(string(), minLength(1, 'must not be empty'), maxLength(300))),
  version: optional(pipe(string(), maxLength(100)), ''),
});

/** A session's state as tabs may see it: never its key or a token. */
function sessionInfo(state: SessionState): SessionInfo {
  return state.status === 'signed-in' ? { status: 'signed-in', userId: state.userId } : state;
}

function watchSession(session: Session | null): Watchable<SessionInfo> {
  const signedOut: SessionInfo = { status: 'signed-out', lastEnd: null };
  let last: { state: SessionState; info: SessionInfo } | null = null;
  // The same object while the state is the same, so that watchers can compare by identity.
  const current = (): SessionInfo => {
    if (session === null) return signedOut;
    const state = session.state();
    if (last === null || JSON.stringify(last.state) !== JSON.stringify(state))
      last = { state, info: sessionInfo(state) };
    return last.info;
  };
  return { current, subscribe: (listener) => session?.subscribe(() => listener(current())) ?? (() => undefined) };
}

/**
 * What a tab's call on `query` (or on a subscription) waits for first: the recorder, for the
 * diagnostics query; any call, for a recorder that is loading, so that calls keep their order.
 */
function readyFor(recording: Recording, query: QuerySpec | undefined): Promise<unknown> | undefined {
  if (query?.kind === 'diagnostics' && recording.recorder === null) return recording.load();
  return recording.loading?.catch(() => undefined);
}

/**
 * `tokenStore: 'memory'`: sessions in memory (shared with the other in-page brokers where each tab
 * is one: the in-page host's store), OAuth flows in `durable`. A session this origin stored before
 * the app chose memory is deleted from storage: the app asked that no refresh token stay on the device.
 */
async function tokensInMemory(
  durable: BrokerStorage,
  {
    brokerKey,
    storedSlot,
    locks,
    clock,
    load,
  }: {
    brokerKey: string;
    storedSlot: string;
    locks: LockManagerLike | null;
    clock: Clock;
    load: LazyParts['memoryTokens'];
  },
): Promise<BrokerStorage> {
  const { keepTokensInMemory } = await load();
  for (const slot of [storedSlot, `admin:${storedSlot}`]) {
    const key = liveKey(await durable.loadSession(slot).catch(() => null));
    if (key !== null) await durable.removeSession(slot, key).catch(() => false);
  }
  return keepTokensInMemory({
    durable,
    brokerKey,
    slots: [brokerKey, `admin:${brokerKey}`],
    locks,
    clock,
    kit: { createMemoryStorage, readSessionRecord, liveKey, keepLock },
  });
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
  const config = resolveBrokerConfig(configInput);
  const brokerKey = brokerKeyOf(config);
  const clock = host.clock ?? systemClock;
  const fetchFn = host.fetch ?? globalThis.fetch.bind(globalThis);
  const warnings = new Warnings();
  const opened = await openStorage(host.storage, (warning) => warnings.add(warning));
  const locks = host.locks === undefined ? browserLocks() : host.locks;
  const storage =
    config.tokenStore === 'memory'
      ? await tokensInMemory(opened, {
          brokerKey,
          storedSlot: brokerKeyOf({ ...config, tokenStore: 'indexeddb' }),
          locks,
          clock,
          load: host.memoryTokens,
        })
      : opened;
  storage.onEvent((event) => {
    if (event.kind === 'discarded') warnings.add(`A stored session could not be read (${event.problem}): signed out.`);
  });
  const bus = host.bus ?? createBus(brokerKey);
  const connectivity = new Connectivity({ baseUrl: config.baseUrl, fetch: fetchFn, clock });
  const brokerId = crypto.randomUUID();
  const startedAtMillis = clock.now();
  const refreshed = new Emitter();
  const network = { config, fetch: fetchFn, clock, connectivity };
  // Its sources are read when it loads, once every part below exists.
  const recording = createRecording(host.recorder, () => ({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    clock,
    tabs,
    cache: queries.cache,
    ownerOf,
    session,
    adminSession,
    refreshed,
    connectivity: liveContext.connectivity,
    warnings,
    transports: baseTransports,
    queries,
    isSignedIn,
  }));

  const tokenGrant = lazyTokenGrant(host.tokenGrant, clock);
  const { refreshAccessToken } = tokenGrant;
  const newSession = (slot: string, tokenSlot: 'user' | 'admin') =>
    new Session({
      slot,
      storage,
      bus,
      locks,
      clock,
      marginMillis: config.tokenMarginMillis,
      lockTimeoutMillis: host.lockTimeoutMillis ?? 10_000,
      tokenEndpoint: tokenEndpointOptions({ ...network, observer: recording.refreshes(tokenSlot).observer }, tokenSlot),
      refreshAccessToken,
      onRefreshCall: recording.refreshes(tokenSlot).onRefreshCall,
      onStorageError: (error) =>
        warnings.add(`The session could not be saved (${messageOf(error)}): it ends with the broker.`),
      onWarning: (warning) => warnings.add(warning),
      onRefreshed: () => refreshed.emit(),
    });
  // Keyed by service and project: the storage slot, and with it the refresh lock's name.
  const session = newSession(brokerKey, 'user');
  const adminSession =
    config.internalPublishableClientKey === undefined ? null : newSession(`admin:${brokerKey}`, 'admin');
  const baseTransports = createTransports({
    ...network,
    userSession: session,
    adminSession,
    superSecretAdminKey: host.superSecretAdminKey,
  });
  // What nobody attributed (the outbox, fetches started before recording) is the broker's own work.
  const transports = recording.brokerWork(baseTransports, 'broker');

  const ownerOf = (scope: QueryScope): string => {
    if (scope === 'user') return `user:${session.sessionKey ?? 'anonymous'}`;
    if (scope === 'admin')
      return `admin:${adminSession?.sessionKey ?? (host.superSecretAdminKey ? 'key' : 'anonymous')}`;
    return scope;
  };
  const liveContext: LiveContext = {
    session: watchSession(session),
    adminSession: watchSession(adminSession),
    connectivity: { current: () => connectivity.snapshot(), subscribe: (listener) => connectivity.subscribe(listener) },
    get status() {
      return status;
    },
    get diagnostics() {
      // The tab API loads the recorder before it serves a diagnostics query.
      if (recording.recorder === null) throw new TypeError('diagnostics read before the recorder loaded');
      return recording.recorder.diagnostics;
    },
  };
  const isSignedIn = () => session.sessionKey !== null;
  const fetchContext = {
    client: transports.client,
    isSignedIn,
    internal: () => transports.internal(),
    admin: (projectId?: string) => transports.admin(projectId),
  };
  const queries = new QueryClient({
    clock,
    fetchContext,
    fetchContextFor: (cause) => recording.recorder?.fetchContext(cause) ?? fetchContext,
    liveContext,
    ownerOf,
    currentUserId: () => {
      const state = session.state();
      return state.status === 'signed-in' ? state.userId : null;
    },
    broadcast: (message) => bus.post(message),
  });
  // Mutations in other brokers (other deploys, in-page brokers of other tabs) reach this cache too.
  bus.onMessage((message) => {
    if (message.type === 'cache-invalidate')
      queries.receive(message, recording.trace({ tab: null, via: 'broker', name: 'another broker' }));
  });
  const tabs = new Tabs(queries, locks, (tab, via, kind) => recording.trace({ tab, via, name: kind }), clock);
  tabs.released.subscribe((tab) => warnings.forgetTab(tab));
  const outbox = createOutbox({
    storage,
    key: brokerKey,
    clock,
    marginMillis: config.tokenMarginMillis,
    connectivity,
    refreshAccessToken,
    transports: recording.brokerWork(baseTransports, 'sign-out outbox'),
    onStorageError: () =>
      warnings.add(
        'An offline sign-out could not be saved: it is sent when back online, unless every tab closes first.',
      ),
  });
  const status: Watchable<BrokerStatus> = createStatus({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    tabs,
    cache: queries.cache,
    session: liveContext.session,
    adminSession: liveContext.adminSession,
    connectivity: liveContext.connectivity,
    tokenRefreshes: { count: () => session.refreshCount + (adminSession?.refreshCount ?? 0), changed: refreshed },
    warnings,
  });
  session.subscribe(() => tabs.repoint('user'));
  adminSession?.subscribe(() => tabs.repoint('admin'));
  const prefetchGrantIfSignedIn = () => {
    if (session.state().status === 'signed-in' || adminSession?.state().status === 'signed-in')
      tokenGrant.prefetchSoon();
  };
  session.subscribe(prefetchGrantIfSignedIn);
  adminSession?.subscribe(prefetchGrantIfSignedIn);

  // Like refetch-on-window-focus: someone looking at a tab again, or a network that is back, should
  // see today's data, not what was fetched before they left. Rate-limited per broker, because ten
  // tabs becoming visible together are one return, not ten.
  let lastReturnMillis = Number.NEGATIVE_INFINITY;
  const refetchOnReturn = (cause?: FetchCause) => {
    if (!config.refetchOnReturn) return;
    const now = clock.now();
    if (now - lastReturnMillis < RETURN_REFETCH_INTERVAL_MILLIS) return;
    lastReturnMillis = now;
    queries.cache.refetchWatched((entry) => entry.scope !== 'broker', cause);
  };
  let lastConnectivity = connectivity.snapshot().state;
  connectivity.subscribe((snapshot) => {
    if (snapshot.state === 'online') void outbox.flush();
    if (snapshot.state === 'online' && lastConnectivity !== 'online')
      refetchOnReturn(recording.trace({ tab: null, via: 'return', name: 'back online' }));
    lastConnectivity = snapshot.state;
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
  };
  // The service methods load on their first call (worker/services.ts).
  const servicesOf = lazyServices(host.services);
  const services = servicesOf(apiContext);
  // While recording, each call runs with its own attributed copy of what the methods use.
  const trace: TabTrace = {
    cause: (tab, via, name) => recording.trace({ tab: tab.label, via, name }),
    services(tab, method) {
      const own = recording.trace({ tab: tab.label, via: 'action', name: method });
      const context = own && recording.recorder?.actionContext(apiContext, own);
      return context && servicesOf(context);
    },
  };

  function connect(helloInput: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi {
    const hello = parseValue('connect', 'hello', helloRules, helloInput);
    if (typeof listener?.deliver !== 'function')
      throw new InvalidArgumentError('listener', 'listener needs a deliver(batch) method.');
    const tab = tabs.register(hello, listener, () => {
      // A tab's word on the network leaves with it.
      connectivity.forgetTab(tab.label);
      onRelease?.();
    });
    warnings.addFromTab(tab.label, hello.warnings ?? []);
    connectivity.verifyContact();
    return checkedApi(
      createTabApi(
        tab,
        {
          tabs,
          queries,
          session,
          connectivity,
          status: () => status.current(),
          onReturn: refetchOnReturn,
          ownLockName: async () => (ownLock === null ? null : ownLock.current()),
          services,
          trace,
          ready: (query) => readyFor(recording, query),
        },
        hello.handlerUrls,
      ),
    );
  }

  return {
    config,
    parts: {
      brokerId,
      mode: host.mode,
      clock,
      storage,
      bus,
      locks,
      connectivity,
      session,
      adminSession,
      queries,
      transports,
      outbox,
      tabs,
      warnings,
      recording,
    },
    connect,
    connectWithConfig(configInput, hello, listener, onRelease) {
      const mismatch = configMismatch(config, resolveBrokerConfig(configInput));
      if (mismatch !== null) throw mismatch;
      return connect(hello, listener, onRelease);
    },
    status: () => status.current(),
    close() {
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
