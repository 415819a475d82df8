import type { BrokerApi } from '../contract/api.js';
import type { QuerySpec } from '../contract/queries.js';
import { hashQueryKey } from '../contract/queryKey.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import { serializeError } from '../protocol/errors/serialize.js';
import type { PersistedSnapshots } from './persisted.js';

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
export class QueryStore {
  // Shared with what the connection brings (`receiving`, deliveries.ts): the entries, `open` and `set`.
  readonly entries = new Map<string, Entry>();
  /** Kept copies read before anything subscribed, so that getSnapshot returns the same object each time. */
  private seeds = new Map<string, QuerySnapshot | undefined>();
  /** The copy's version the seeds were read from: a cleared copy (sign-out) must not be shown again. */
  private seedsVersion = 0;
  /** Whether a query was answered from the kept copy: then the page has something to show before the broker answers. */
  showsKeptCopy = false;
  /**
   * What a snapshot from the broker becomes on screen (and is kept for the next visit): set with the
   * connection (deliveries.ts), which is what brings snapshots at all.
   */
  received: ((key: string, entry: Entry, snapshot: QuerySnapshot) => QuerySnapshot) | null = null;

  /**
   * `api` connects when needed (subscriptions may wait for it: see `createBrokerClient`);
   * `connected` is the connection under way or open, or null (then releasing a query has nothing to
   * tell, and must not start a broker just to unsubscribe).
   * `persisted` is the copy kept between visits (shown, marked stale, until the broker answers).
   */
  constructor(
    private readonly api: () => Promise<BrokerApi>,
    private readonly connected: () => Promise<BrokerApi> | null = api,
    private readonly persisted?: PersistedSnapshots,
  ) {}

  /** The kept copy of a query from an earlier visit, if any (the same object every time). */
  private seed(key: string, spec: QuerySpec): QuerySnapshot | undefined {
    if (!this.persisted) return undefined;
    if (this.seedsVersion !== this.persisted.version) {
      this.seeds.clear();
      this.seedsVersion = this.persisted.version;
    }
    if (!this.seeds.has(key)) {
      const kept = this.persisted.read(key, spec);
      this.seeds.set(key, kept);
      if (kept !== undefined) this.showsKeptCopy = true;
    }
    return this.seeds.get(key);
  }

  subscribe(spec: QuerySpec, listener: () => void): () => void {
    const key = queryKey(spec);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { spec, snapshot: this.seed(key, spec), listeners: new Set(), deliveries: 0, subscribed: false, releaseTimer: null, prefetchHold: null };
      this.entries.set(key, entry);
    }
    if (entry.releaseTimer !== null) {
      clearTimeout(entry.releaseTimer);
      entry.releaseTimer = null;
    }
    entry.listeners.add(listener);
    if (!entry.subscribed) this.open(key, entry);
    // The component that rendered it has subscribed: the prefetch's hold is no longer needed.
    if (listener !== noop && entry.prefetchHold) entry.prefetchHold();
    return () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0 && entry.releaseTimer === null) {
        entry.releaseTimer = setTimeout(() => this.close(key, entry), RELEASE_GRACE_MILLIS);
      }
    };
  }

  /**
   * Starts watching a query that nobody watches yet, for `holdMillis`: what a component asks for
   * while it renders is on its way before React commits and subscribes (no render-then-fetch delay).
   */
  prefetch(spec: QuerySpec, holdMillis = PREFETCH_HOLD_MILLIS): void {
    const key = queryKey(spec);
    if (this.entries.has(key)) return;
    const release = this.subscribe(spec, noop);
    const entry = this.entries.get(key)!;
    const timer = setTimeout(() => entry.prefetchHold?.(), holdMillis);
    entry.prefetchHold = () => {
      entry.prefetchHold = null;
      clearTimeout(timer);
      release();
    };
  }

  getSnapshot(spec: QuerySpec): QuerySnapshot | undefined {
    const key = queryKey(spec);
    const entry = this.entries.get(key);
    return entry ? entry.snapshot : this.seed(key, spec);
  }

  /** Resolves with the first snapshot that is not pending (for Suspense). */
  settled(spec: QuerySpec): Promise<QuerySnapshot> {
    return new Promise((resolve) => {
      let unsubscribe: () => void = () => undefined;
      let done = false;
      const check = () => {
        const snapshot = this.getSnapshot(spec);
        if (!done && !isPending(snapshot)) {
          done = true;
          // Keep the subscription so the component that suspended still finds the value at commit.
          setTimeout(unsubscribe, SUSPENSE_HOLD_MILLIS);
          resolve(snapshot as QuerySnapshot); // not pending: there is one
        }
      };
      unsubscribe = this.subscribe(spec, check);
      check();
    });
  }

  get size(): number {
    return this.entries.size;
  }

  open(key: string, entry: Entry): void {
    entry.subscribed = true;
    const before = entry.deliveries;
    this.api()
      // Released before the connection came (it may wait for the first frame): nothing to ask.
      .then((api) => (this.entries.get(key) === entry ? api.subscribe(key, entry.spec) : undefined))
      .then(
        (snapshot) => {
          if (snapshot !== undefined && entry.deliveries === before) this.set(entry, this.received!(key, entry, snapshot));
        },
        (error: unknown) => {
          entry.subscribed = false;
          this.set(entry, { status: 'error', data: entry.snapshot?.data, error: serializeError(error), updatedAtMillis: Date.now(), isFetching: false });
        },
      );
  }

  private close(key: string, entry: Entry): void {
    entry.releaseTimer = null;
    if (entry.listeners.size > 0) return;
    this.entries.delete(key);
    // Shown again before the broker answers, as the kept copy is: the last value, marked stale.
    if (this.seeds.has(key) && entry.snapshot?.data !== undefined && this.seedsVersion === this.persisted?.version) {
      this.seeds.set(key, { ...entry.snapshot, isStale: true, isFetching: false });
    }
    if (entry.subscribed) void this.connected()?.then((api) => api.unsubscribe(key)).catch(() => undefined);
  }

  set(entry: Entry, snapshot: QuerySnapshot): void {
    entry.snapshot = snapshot;
    for (const listener of [...entry.listeners]) listener();
  }
}
