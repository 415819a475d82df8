/**
 * What the broker sends reaching the tab's store: its snapshots, the loss of a connection, and
 * subscribing again to a new broker. Snapshots only come over the connection, so this loads with it
 * (`connection.ts`), after the first render; it works on the store it is given (`QueryStore`'s
 * entries, `open` and `set`) rather than importing its module (see `TabErrors` for why).
 */
import type { Delivery } from '../../contract/api.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import type { Entry, QueryStore } from '../queryStore.js';

/** The store's side of a connection. */
export interface Receiver {
  /** From the broker: one batch of new snapshots. */
  deliver(batch: Delivery): void;
  /** The connection closed: its broker forgot our subscriptions; queries nobody watches go now. */
  disconnected(): void;
  /** After reconnecting to a (new) broker: subscribe again what is watched but not subscribed there. */
  resubscribeAll(): void;
}

/** `keep`: keeps a snapshot for the next visit (`keepSnapshots`). */
export function receiving(
  store: QueryStore,
  keep: (key: string, spec: QuerySpec, snapshot: QuerySnapshot) => void,
): Receiver {
  /**
   * A snapshot from the broker, kept for the next visit when persistable. While the broker has no
   * value yet (its fetch is under way, or waits for the network), the kept copy stays on screen,
   * still marked stale, with the broker's fetching state and error.
   */
  store.received = (key: string, entry: Entry, snapshot: QuerySnapshot): QuerySnapshot => {
    keep(key, entry.spec, snapshot);
    const shown = entry.snapshot;
    // Only while the broker is still getting it: an answer (an error such as NOT_SIGNED_IN included) replaces it.
    if (
      snapshot.status === 'pending' &&
      snapshot.data === undefined &&
      shown?.isStale === true &&
      shown.data !== undefined
    ) {
      return { ...shown, isFetching: snapshot.isFetching, error: snapshot.error };
    }
    return snapshot;
  };
  const received = store.received;
  return {
    deliver(batch) {
      const touched: Entry[] = [];
      for (const { subscriptionId, snapshot } of batch) {
        const entry = store.entries.get(subscriptionId);
        if (!entry) continue;
        entry.deliveries += 1;
        entry.snapshot = received(subscriptionId, entry, snapshot);
        touched.push(entry);
      }
      for (const entry of touched) for (const listener of [...entry.listeners]) listener();
    },
    disconnected() {
      for (const [key, entry] of store.entries) {
        entry.subscribed = false;
        if (entry.listeners.size === 0) {
          if (entry.releaseTimer !== null) clearTimeout(entry.releaseTimer);
          store.entries.delete(key);
        }
      }
    },
    resubscribeAll() {
      for (const [key, entry] of store.entries) {
        if (!entry.subscribed && entry.listeners.size > 0) store.open(key, entry);
      }
    },
  };
}
