/**
 * The broker: one project of one service, for every tab of an origin. This file only wires the parts together; each
 * part is a folder of its own (session/, connectivity/, cache/, tabs/, storage/, lazy/, coordination/).
 */
import type { BrokerApi, TabHello, TabListener } from '../contract/api.js';
import type { CauseVia } from '../contract/diagnostics.js';
import type { BrokerMode, BrokerStatus } from '../contract/state.js';
import type { Clock } from '../protocol/clock.js';
import type { ApiContext } from './api/context.js';
import type { QueryClient } from './cache/queryClient.js';
import { configCheck } from './cache/configCheck.js';
import { refetchOnReturn } from './cache/refetchOnReturn.js';
import { configMismatch, resolveBrokerConfig, type BrokerConfig, type ResolvedBrokerConfig } from './config.js';
import type { Connectivity } from './connectivity/connectivity.js';
import type { Bus } from './coordination/bus.js';
import { holdUntilReleased, type LockManagerLike } from './coordination/locks.js';
import type { BrokerHostOptions } from './hostOptions.js';
import type { LazyParts } from './lazy/parts.js';
import type { Recording } from './lazy/recording.js';
import { lazyTokenGrant } from './lazy/refreshGrant.js';
import { lazyServices } from './lazy/services.js';
import { tabCause } from './requests/onBehalfOf.js';
import { servicesByTab } from './requests/tabActions.js';
import { createOutbox, type Outbox } from './session/outbox.js';
import { checkAttachingHost, withholdTokens } from './appRequests/tokenGuard.js';
import { offlineWrites } from './writes/offlineWrites.js';
import type { Session } from './session/session.js';
import type { Warnings } from './status.js';
import type { BrokerStorage } from './storage/types.js';
import { tabConnector } from './tabs/connectTab.js';
import type { TabTrace } from './tabs/tabApi.js';
import { Tabs } from './tabs/tabs.js';
import { createTransports, type Transports } from './transports.js';
import { openBase } from './assembly/base.js';
import { createSessions, followSessions } from './assembly/brokerSessions.js';
import { createQueries, readyFor } from './assembly/sharedCache.js';
import { describeBroker } from './assembly/description.js';
import { onConnectivity, startWrites } from './assembly/lifecycle.js';

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
