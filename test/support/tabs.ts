import { connectOverPort } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import type { BrokerApi, Delivery, QuerySnapshot, QuerySpec, TabHandlerUrls } from '../../worker/index.js';
import type { Broker } from '../../worker/broker.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { holdLock, type LocalLockManager } from './locks.js';

export interface SimulatedTab {
  tabId: string;
  api: BrokerApi;
  /** Every snapshot delivered per subscription, in order. */
  deliveries: Map<string, QuerySnapshot[]>;
  latest(subscriptionId: string): QuerySnapshot | undefined;
  subscribe(subscriptionId: string, query: QuerySpec): Promise<QuerySnapshot>;
  /** Waits until a subscription's latest snapshot satisfies `predicate`. */
  waitFor(
    subscriptionId: string,
    predicate: (snapshot: QuerySnapshot) => boolean,
    timeoutMillis?: number,
  ): Promise<QuerySnapshot>;
  /** The tab disappears without a word: its port closes and its lifetime lock is released. */
  vanish(): void;
  close(): void;
}

let tabCounter = 0;

/**
 * A tab talking to `broker` through the client's own connection code over real MessageChannels, as a SharedWorker port
 * would.
 */
export async function connectTab(
  broker: Broker,
  locks: LocalLockManager,
  options: { lifetimeLock?: 'in-hello' | 'after-connect' | 'never'; handlerUrls?: TabHandlerUrls } = {},
): Promise<SimulatedTab> {
  tabCounter += 1;
  const tabId = `tab-${tabCounter}-${Math.random().toString(36).slice(2, 8)}`;
  const lockName = `authbroker:tab:${tabId}`;
  const lockInHello = (options.lifetimeLock ?? 'in-hello') === 'in-hello';
  const lifetime = holdLock(locks, lockName);
  if (lockInHello) await lifetime.ready;

  // Real transferable ports, as between a tab and a SharedWorker (Node's MessageChannel).
  const { port1, port2 } = new MessageChannel();
  exposeBrokerEntry(async () => broker, port2);
  const deliveries = new Map<string, QuerySnapshot[]>();
  const waiters = new Set<() => void>();
  const deliver = (batch: Delivery) => {
    for (const { subscriptionId, snapshot } of batch) {
      const list = deliveries.get(subscriptionId) ?? [];
      list.push(snapshot);
      deliveries.set(subscriptionId, list);
    }
    for (const wake of [...waiters]) wake();
  };
  const hello = {
    tabId,
    version: 'test',
    ...(lockInHello ? { lockName } : {}),
    // As authbroker/client sends them: the tab's handler pages, for callback URLs the app leaves out.
    ...(options.handlerUrls === undefined ? {} : { handlerUrls: options.handlerUrls }),
  };
  const connection = await connectOverPort(
    port1 as unknown as MessagePort,
    broker.config,
    hello,
    deliver,
    (promise) => promise,
    tabErrors,
  );
  const api = connection.api;
  // As the real client does: the lock is named to the broker once the tab holds it.
  if (options.lifetimeLock === 'after-connect') await lifetime.ready.then(() => api.watchLifetime(lockName));
  const closePorts = () => {
    port1.close();
    connection.close();
  };
  const latest = (id: string) => deliveries.get(id)?.at(-1);
  return {
    tabId,
    api,
    deliveries,
    latest,
    async subscribe(id, query) {
      const first = await api.subscribe(id, query);
      const list = deliveries.get(id) ?? [];
      list.unshift(first);
      deliveries.set(id, list);
      return first;
    },
    waitFor(id, predicate, timeoutMillis = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const snapshot = latest(id);
          if (snapshot && predicate(snapshot)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(snapshot);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`Timed out waiting on ${id}; last snapshot: ${JSON.stringify(latest(id))}`));
        }, timeoutMillis);
        waiters.add(check);
        check();
      });
    },
    vanish() {
      closePorts();
      lifetime.release();
    },
    close() {
      closePorts();
      lifetime.release();
    },
  };
}
