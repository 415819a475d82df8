import type { BrokerApi } from '../contract/api.js';
import type { QuerySpec } from '../contract/queries.js';
import { hashQueryKey } from '../contract/queryKey.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import { serializeError } from '../protocol/errors/serialize.js';
import type { PersistedSnapshots } from './kept/keptCopyReader.js';

export interface Entry {
  spec: QuerySpec;
  snapshot: QuerySnapshot | undefined;
  listeners: Set<() => void>;
  /** Deliveries received; the subscribe call's own answer only counts when none came first. */
  deliveries: number;
  subscribed: boolean;
  releaseTimer: ReturnType<typeof setTimeout> | null;
  /** A prefetch's hold: ends when it expires or when a real listener arrives. */
  prefetchHold: (() => void) | null;
}

/** The same key the broker computes: the same query from any hook is the same subscription. */
export const queryKey = hashQueryKey;

/** Unsubscribing waits this long, so a remount (StrictMode, navigation) keeps the subscription. */
export const RELEASE_GRACE_MILLIS = 100;

/**
 * A query a component suspended on stays watched this long after it settles, until the component
 * commits and subscribes itself. React holds a revealed boundary back for 300 ms (and a transition
 * longer): released sooner, the value is gone at commit and the boundary suspends a second time.
 */
export const SUSPENSE_HOLD_MILLIS = 1000;

/** How long a query asked for during a render stays watched while React gets to commit. */
export const PREFETCH_HOLD_MILLIS = 1000;

const noop = () => undefined;

/** No value yet: nothing at all, or a first load under way (what Suspense waits for). */
export function isPending(snapshot: QuerySnapshot | undefined): boolean {
  return snapshot === undefined || (snapshot.status === 'pending' && snapshot.data === undefined);
}

/**
 * The tab's view of its subscriptions. However many components watch a query, the broker sees one
 * subscription; snapshots keep their identity until the broker sends a new one.
 */
export interface QueryStore {
  // Shared with what the connection brings (`receiving`, connect/deliveries.ts): the entries, `open` and `set`.
  readonly entries: Map<string, Entry>;
  /** Whether a query was answered from the kept copy: then the page has something to show before the broker answers. */
  showsKeptCopy: boolean;
  /**
   * What a snapshot from the broker becomes on screen (and is kept for the next visit): set with the
   * connection (connect/deliveries.ts), which is what brings snapshots at all.
   */
  received: ((key: string, entry: Entry, snapshot: QuerySnapshot) => QuerySnapshot) | null;
  subscribe(spec: QuerySpec, listener: () => void): () => void;
  /**
   * Starts watching a query that nobody watches yet, for PREFETCH_HOLD_MILLIS: what a component asks for
   * while it renders is on its way before React commits and subscribes (no render-then-fetch delay).
   */
  prefetch(spec: QuerySpec): void;
  getSnapshot(spec: QuerySpec): QuerySnapshot | undefined;
  /** Resolves with the first snapshot that is not pending (for Suspense). */
  settled(spec: QuerySpec): Promise<QuerySnapshot>;
  open(key: string, entry: Entry): void;
  set(entry: Entry, snapshot: QuerySnapshot): void;
}

/**
 * `api` connects when needed (subscriptions may wait for it: see `createBrokerClient`);
 * `connected` is the connection under way or open, or null (then releasing a query has nothing to
 * tell, and must not start a broker just to unsubscribe).
 * `persisted` is the copy kept between visits (shown, marked stale, until the broker answers).
 *
 * An object of functions rather than a class: subscribing runs before a page's first frame, and a
 * class's methods compile at their first call, where these compile with the script.
 */
export function createQueryStore(
  api: () => Promise<BrokerApi>,
  connected: () => Promise<BrokerApi> | null,
  persisted: PersistedSnapshots,
): QueryStore {
  const entries = new Map<string, Entry>();
  /** Kept copies read before anything subscribed, so that getSnapshot returns the same object each time. */
  const seeds = new Map<string, QuerySnapshot | undefined>();
  /** The copy's version the seeds were read from: a cleared copy (sign-out) must not be shown again. */
  let seedsVersion = 0;

  /** The kept copy of a query from an earlier visit, if any (the same object every time). */
  function seed(key: string, spec: QuerySpec): QuerySnapshot | undefined {
    if (seedsVersion !== persisted.version) {
      seeds.clear();
      seedsVersion = persisted.version;
    }
    if (!seeds.has(key)) {
      const kept = persisted.read(key, spec);
      seeds.set(key, kept);
      if (kept !== undefined) store.showsKeptCopy = true;
    }
    return seeds.get(key);
  }

  function close(key: string, entry: Entry): void {
    entry.releaseTimer = null;
    if (entry.listeners.size > 0) return;
    entries.delete(key);
    // Shown again before the broker answers, as the kept copy is: the last value, marked stale.
    if (seeds.has(key) && entry.snapshot?.data !== undefined && seedsVersion === persisted.version) {
      seeds.set(key, { ...entry.snapshot, isStale: true, isFetching: false });
    }
    if (entry.subscribed)
      void connected()
        ?.then((broker) => broker.unsubscribe(key))
        .catch(() => undefined);
  }

  const store: QueryStore = {
    entries,
    showsKeptCopy: false,
    received: null,

    subscribe(spec: QuerySpec, listener: () => void): () => void {
      const key = queryKey(spec);
      let entry = entries.get(key);
      if (!entry) {
        entry = {
          spec,
          snapshot: seed(key, spec),
          listeners: new Set(),
          deliveries: 0,
          subscribed: false,
          releaseTimer: null,
          prefetchHold: null,
        };
        entries.set(key, entry);
      }
      const watched = entry;
      if (watched.releaseTimer !== null) {
        clearTimeout(watched.releaseTimer);
        watched.releaseTimer = null;
      }
      watched.listeners.add(listener);
      if (!watched.subscribed) store.open(key, watched);
      // The component that rendered it has subscribed: the prefetch's hold is no longer needed.
      if (listener !== noop && watched.prefetchHold) watched.prefetchHold();
      return () => {
        watched.listeners.delete(listener);
        if (watched.listeners.size === 0 && watched.releaseTimer === null) {
          watched.releaseTimer = setTimeout(() => close(key, watched), RELEASE_GRACE_MILLIS);
        }
      };
    },

    prefetch(spec: QuerySpec): void {
      const key = queryKey(spec);
      if (entries.has(key)) return;
      const release = store.subscribe(spec, noop);
      const entry = entries.get(key)!;
      const timer = setTimeout(() => entry.prefetchHold?.(), PREFETCH_HOLD_MILLIS);
      entry.prefetchHold = () => {
        entry.prefetchHold = null;
        clearTimeout(timer);
        release();
      };
    },

    getSnapshot(spec: QuerySpec): QuerySnapshot | undefined {
      const key = queryKey(spec);
      const entry = entries.get(key);
      return entry ? entry.snapshot : seed(key, spec);
    },

    settled(spec: QuerySpec): Promise<QuerySnapshot> {
      return new Promise((resolve) => {
        let unsubscribe: () => void = () => undefined;
        let done = false;
        const check = () => {
          const snapshot = store.getSnapshot(spec);
          if (!done && !isPending(snapshot)) {
            done = true;
            // Keep the subscription so the component that suspended still finds the value at commit.
            setTimeout(unsubscribe, SUSPENSE_HOLD_MILLIS);
            resolve(snapshot as QuerySnapshot); // not pending: there is one
          }
        };
        unsubscribe = store.subscribe(spec, check);
        check();
      });
    },

    open(key: string, entry: Entry): void {
      entry.subscribed = true;
      const before = entry.deliveries;
      api()
        // Released before the connection came (it may wait for the first frame): nothing to ask.
        .then((broker) => (entries.get(key) === entry ? broker.subscribe(key, entry.spec) : undefined))
        .then(
          (snapshot) => {
            if (snapshot !== undefined && entry.deliveries === before)
              store.set(entry, store.received!(key, entry, snapshot));
          },
          (error: unknown) => {
            entry.subscribed = false;
            store.set(entry, {
              status: 'error',
              data: entry.snapshot?.data,
              error: serializeError(error),
              updatedAtMillis: Date.now(),
              isFetching: false,
            });
          },
        );
    },

    set(entry: Entry, snapshot: QuerySnapshot): void {
      entry.snapshot = snapshot;
      for (const listener of [...entry.listeners]) listener();
    },
  };
  return store;
}
