import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { accountMethods } from './api/account.js';
import { adminMethods } from './api/admin.js';
import { checkRpcArguments, requireInput } from './api/args.js';
import { authMethods } from './api/auth.js';
import { passwordMethods } from './api/password.js';
import { teamMethods } from './api/teams.js';
import type { BrokerApi, BrokerStatus, DataOf, TabHello, TabListener } from './api/types.js';
import { fetcherFor } from './cache/fetchers.js';
import { isLive, parseQuerySpec, type QuerySpec } from './cache/queries.js';
import { resolveBrokerConfig, sameBrokerConfig, type BrokerConfig, type ResolvedBrokerConfig } from './config.js';
import { BROKER_VERSION, createCore, type BrokerCore, type BrokerHostOptions } from './core.js';
import { holdUntilReleased } from './locks.js';
import { flushOutbox } from './outbox.js';
import { Tabs, type LiveSource, type LiveSources } from './tabs.js';

export interface Broker {
  readonly config: ResolvedBrokerConfig;
  readonly core: BrokerCore;
  /** A tab's view of the broker. `listener` receives its subscription updates. */
  connect(hello: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi;
  /** Like `connect`, after checking that the tab asks for this broker's project. */
  connectWithConfig(config: unknown, hello: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi;
  status(): BrokerStatus;
  close(): void;
}

function simpleSource<T>(current: () => T, subscribe: (notify: () => void) => () => void): LiveSource<T> {
  return {
    current,
    subscribe(listener) {
      return subscribe(() => listener(current()));
    },
  };
}

function parseHello(value: unknown): TabHello {
  const hello = requireInput(value, 'hello', ['tabId', 'lockName', 'version']);
  if (typeof hello.tabId !== 'string' || hello.tabId === '' || hello.tabId.length > 200) throw new InvalidArgumentError('hello.tabId', 'tabId must be a non-empty string.');
  if (hello.lockName !== undefined && (typeof hello.lockName !== 'string' || hello.lockName === '')) throw new InvalidArgumentError('hello.lockName', 'lockName must be a string.');
  return { tabId: hello.tabId, version: String(hello.version ?? ''), ...(hello.lockName === undefined ? {} : { lockName: hello.lockName as string }) };
}

/** Every method checks what it was sent (oversized, too deep, `__proto__`) before it runs. */
function guardArguments(api: BrokerApi): BrokerApi {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(api) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    guarded[name] = async (...args: unknown[]) => {
      checkRpcArguments(name, args);
      return method(...args);
    };
  }
  return guarded as unknown as BrokerApi;
}

/** Returns closer together than this share one refetch of what is on screen. */
export const RETURN_REFETCH_INTERVAL_MILLIS = 5000;

/** Builds a broker for one project. Every host (SharedWorker, service worker, page) uses this. */
export async function createBroker(config: BrokerConfig | unknown, host: BrokerHostOptions): Promise<Broker> {
  const resolved = resolveBrokerConfig(config);
  const core = await createCore(resolved, host);
  const { session, adminSession, connectivity } = core;

  const statusListeners = new Set<() => void>();
  const notifyStatus = () => {
    for (const listener of statusListeners) listener();
  };
  const status = (): BrokerStatus => ({
    mode: core.mode,
    brokerId: core.brokerId,
    version: BROKER_VERSION,
    startedAtMillis: core.startedAtMillis,
    tabsConnected: tabs.count,
    tokenRefreshes: session.refreshCount + (adminSession?.refreshCount ?? 0),
    cacheEntries: core.cache.size,
    subscriptions: tabs.subscriptionCount,
    connectivity: connectivity.snapshot(),
    session: core.sessionInfo(session.state()),
    adminSession: adminSession ? core.sessionInfo(adminSession.state()) : { status: 'signed-out', lastEnd: null },
    storage: core.storage.kind,
    warnings: [...core.warnings],
  });

  // Cache size and refresh counts change without events: while anyone watches the status, a
  // light check each second pushes it when a figure moved.
  let lastStatus = '';
  let statusTimer: ReturnType<typeof setInterval> | null = null;
  const statusSource: LiveSource<BrokerStatus> = {
    current: status,
    subscribe(listener) {
      const push = () => {
        const next = status();
        lastStatus = JSON.stringify(next);
        listener(next);
      };
      statusListeners.add(push);
      statusTimer ??= setInterval(() => {
        if (JSON.stringify(status()) !== lastStatus) notifyStatus();
      }, 1000);
      return () => {
        statusListeners.delete(push);
        if (statusListeners.size === 0 && statusTimer !== null) {
          clearInterval(statusTimer);
          statusTimer = null;
        }
      };
    },
  };

  const live: LiveSources = {
    session: simpleSource(() => core.sessionInfo(session.state()), (notify) => session.subscribe(notify)),
    adminSession: simpleSource(
      () => (adminSession ? core.sessionInfo(adminSession.state()) : { status: 'signed-out' as const, lastEnd: null }),
      (notify) => adminSession?.subscribe(notify) ?? (() => undefined),
    ),
    connectivity: simpleSource(() => connectivity.snapshot(), (notify) => connectivity.subscribe(notify)),
    status: statusSource as LiveSource,
  };
  const tabs = new Tabs(core, live);

  session.subscribe(() => {
    tabs.repoint('user');
    notifyStatus();
  });
  adminSession?.subscribe(() => {
    tabs.repoint('admin');
    notifyStatus();
  });
  tabs.onChange(notifyStatus);

  // Like refetch-on-window-focus: someone looking at a tab again, or a network that is back, should
  // see today's data, not what was fetched before they left. Rate-limited per broker, because ten
  // tabs becoming visible together are one return, not ten.
  let lastReturnMillis = Number.NEGATIVE_INFINITY;
  const refetchOnReturn = () => {
    if (!resolved.refetchOnReturn) return;
    const now = core.clock.now();
    if (now - lastReturnMillis < RETURN_REFETCH_INTERVAL_MILLIS) return;
    lastReturnMillis = now;
    core.cache.refetchWatched();
  };

  let lastConnectivity = connectivity.snapshot().state;
  connectivity.subscribe((snapshot) => {
    notifyStatus();
    if (snapshot.state === 'online') void flushOutbox(core);
    if (snapshot.state === 'online' && lastConnectivity !== 'online') refetchOnReturn();
    lastConnectivity = snapshot.state;
  });

  // Held for the broker's life, before any tab connects. A worker gives no sign when it is killed
  // or crashes; its locks are freed, so tabs waiting for this one learn that it is gone.
  const [ownLock] = await Promise.all([core.mode === 'in-process' ? null : holdUntilReleased(core.locks, `authbroker:broker:${core.brokerId}`), session.start(), adminSession?.start()]);
  void flushOutbox(core);

  const modules = {
    ...authMethods(core),
    ...passwordMethods(core),
    ...accountMethods(core),
    ...teamMethods(core),
    ...adminMethods(core),
  };

  function connect(helloInput: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi {
    const hello = parseHello(helloInput);
    if (typeof listener?.deliver !== 'function') throw new InvalidArgumentError('listener', 'A tab must pass a listener with a deliver(batch) method.');
    const tab = tabs.register(hello, listener, onRelease);
    // Unknown until the tab first reports; that first report is not a return.
    let visible: boolean | undefined;
    const api: BrokerApi = {
      ...modules,
      status: async () => status(),
      subscribe: async (subscriptionId, query) => tabs.subscribe(tab, subscriptionId, parseQuerySpec(query)),
      unsubscribe: async (subscriptionId) => tabs.unsubscribe(tab, subscriptionId),
      read: async <Q extends QuerySpec>(query: Q): Promise<DataOf<Q>> => {
        const spec = parseQuerySpec(query);
        if (isLive(spec)) return live[spec.kind].current() as DataOf<Q>;
        if (spec.kind !== 'project') await session.start();
        return (await core.cache.ensure(core.keyOf(spec), fetcherFor(core, spec)).read()) as DataOf<Q>;
      },
      refetch: async (query) => {
        const spec = parseQuerySpec(query);
        if (!isLive(spec)) await core.cache.ensure(core.keyOf(spec), fetcherFor(core, spec)).fetch();
      },
      reportBrowserState: async (state) => {
        const s = requireInput(state, 'state', ['online', 'visible']);
        if (s.online !== undefined) {
          if (typeof s.online !== 'boolean') throw new InvalidArgumentError('state.online', 'online must be a boolean.');
          connectivity.reportBrowser(s.online);
        }
        if (s.visible !== undefined) {
          if (typeof s.visible !== 'boolean') throw new InvalidArgumentError('state.visible', 'visible must be a boolean.');
          if (s.visible && visible === false) refetchOnReturn();
          visible = s.visible;
        }
      },
      goodbye: async () => tabs.release(tab.tabId),
      watchLifetime: async (lockName) => {
        if (typeof lockName !== 'string' || lockName === '' || lockName.length > 300) throw new InvalidArgumentError('lockName', 'lockName must be a non-empty string of at most 300 characters.');
        tabs.watchLifetime(tab, lockName);
        return ownLock?.name ?? null;
      },
      getAccessToken: () => session.getAccessToken(),
    };
    return guardArguments(api);
  }

  return {
    config: resolved,
    core,
    connect,
    connectWithConfig(configInput, hello, listener, onRelease) {
      const asked = resolveBrokerConfig(configInput);
      if (!sameBrokerConfig(asked, resolved)) {
        throw new InvalidArgumentError(
          'config',
          `This broker serves project ${resolved.projectId} at ${resolved.baseUrl}; a tab asked for ${asked.projectId} at ${asked.baseUrl}. Give each project its own broker name.`,
        );
      }
      return connect(hello, listener, onRelease);
    },
    status,
    close() {
      ownLock?.release();
      tabs.releaseAll();
      if (statusTimer !== null) clearInterval(statusTimer);
      connectivity.close();
      core.cache.clear();
      core.bus.close();
      core.storage.close();
    },
  };
}
