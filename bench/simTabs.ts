/**
 * A broker in Node (fake IndexedDB, in-memory Web Locks) and simulated tabs talking to it through
 * the client's connection code (Comlink calls, port deliveries) over real MessageChannels, as SharedWorker ports would
 * (like
 * test/support/tabs.ts, without recording messages, which would skew memory figures).
 */
import 'fake-indexeddb/auto';
import { connectOverPort } from '../client/connect/rpc.js';
import { tabErrors } from '../client/connect/tabErrors.js';
import type { RunningEmulator } from '../emulator/index.js';
import { holdLock, LocalLockManager } from '../test/support/locks.js';
import type { BrokerApi, Delivery, QuerySnapshot, QuerySpec } from '../worker/index.js';
import type { Broker } from '../worker/broker.js';
import { createBroker } from '../worker/index.js';
import { exposeBrokerEntry } from '../worker/rpc/brokerEntry.js';

export interface BenchBroker {
  broker: Broker;
  locks: LocalLockManager;
}

/** A SharedWorker-mode broker for the emulator's demo project, with the real clock and timers. */
export async function startNodeBroker(em: Pick<RunningEmulator, 'url' | 'projects'>): Promise<BenchBroker> {
  const locks = new LocalLockManager();
  const { demo, internal } = em.projects;
  const broker = await createBroker(
    {
      baseUrl: em.url,
      projectId: demo.id,
      publishableClientKey: demo.publishableClientKey,
      internalPublishableClientKey: internal.publishableClientKey,
    },
    { mode: 'shared-worker', locks },
  );
  return { broker, locks };
}

export interface SimTab {
  api: BrokerApi;
  /** The latest snapshot per subscription id. */
  latest: Map<string, QuerySnapshot>;
  /** Snapshots delivered so far (all subscriptions). */
  delivered: number;
  subscribe(id: string, query: QuerySpec): Promise<QuerySnapshot>;
  /** Leaves the way a tab does: goodbye, then the port closes and the lifetime lock goes. */
  close(): Promise<void>;
}

let counter = 0;

/** The tab record both kinds share, and the listener that fills it; `api` is set once connected. */
function newSimTab(close: () => Promise<void>): { tab: SimTab; listener: { deliver(batch: Delivery): void } } {
  const tab: SimTab = {
    api: null as unknown as BrokerApi,
    latest: new Map(),
    delivered: 0,
    async subscribe(id, query) {
      const first = await tab.api.subscribe(id, query);
      if (!tab.latest.has(id)) tab.latest.set(id, first);
      return first;
    },
    close,
  };
  const listener = {
    deliver(batch: Delivery) {
      for (const { subscriptionId, snapshot } of batch) tab.latest.set(subscriptionId, snapshot);
      tab.delivered += batch.length;
    },
  };
  return { tab, listener };
}

export async function connectSimTab({ broker, locks }: BenchBroker): Promise<SimTab> {
  counter += 1;
  const tabId = `bench-tab-${counter}`;
  const lockName = `authbroker:tab:${tabId}`;
  const lifetime = holdLock(locks, lockName);
  await lifetime.ready;
  const { port1, port2 } = new MessageChannel();
  exposeBrokerEntry(async () => broker, port2);
  let closeConnection = () => undefined as void;
  const { tab, listener } = newSimTab(async () => {
    await tab.api.goodbye().catch(() => undefined);
    // A closing tab loses every port it holds: the entry port, the API's and the listener's.
    closeConnection();
    port1.close();
    lifetime.release();
  });
  const connection = await connectOverPort(
    port1 as unknown as MessagePort,
    broker.config,
    { tabId, lockName, version: 'bench' },
    (batch) => listener.deliver(batch),
    (promise) => promise,
    tabErrors,
  );
  tab.api = connection.api;
  closeConnection = () => connection.close();
  return tab;
}

/**
 * A tab connected to the broker directly (no Comlink, no MessageChannel): the control that tells
 * the broker's own memory from the RPC layer's.
 */
export async function connectDirectTab({ broker, locks }: BenchBroker): Promise<SimTab> {
  counter += 1;
  const tabId = `bench-direct-${counter}`;
  const lockName = `authbroker:tab:${tabId}`;
  const lifetime = holdLock(locks, lockName);
  await lifetime.ready;
  const { tab, listener } = newSimTab(async () => {
    await tab.api.goodbye();
    lifetime.release();
  });
  tab.api = broker.connect({ tabId, lockName, version: 'bench' }, listener);
  return tab;
}

/** Forces full garbage collections (needs --expose-gc) and returns the heap in use, in bytes. */
export async function settledHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('Run with node --expose-gc.');
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}
