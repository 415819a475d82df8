import type { Delivery, TabHello, TabListener } from '../contract/api.js';
import { Emitter } from '../contract/events.js';
import type { QueryScope, QuerySpec } from '../contract/queries.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import type { CacheEntry, FetchCause } from './cache/entry.js';
import type { QueryClient } from './cache/queryClient.js';
import type { LockManagerLike } from './locks.js';

interface ActiveSubscription {
  entry: CacheEntry;
  detach: () => void;
}

export interface Tab {
  readonly tabId: string;
  /** Its number in this broker (1, 2, …, in the order tabs connected): how diagnostics name it. */
  readonly label: number;
  readonly subscriptions: Map<string, ActiveSubscription>;
  released: boolean;
}

interface TabState extends Tab {
  listener: TabListener;
  /** Frees what the connection holds (its ports), once the tab is released. */
  onRelease: (() => void) | undefined;
  pending: Map<string, QuerySnapshot>;
  flushScheduled: boolean;
  /** The lifetime lock being watched, once the tab has named it. */
  watchedLock?: string;
}

export const MAX_SUBSCRIPTIONS_PER_TAB = 1000;

/** Who a subscription's fetch is for (diagnostics): a tab subscribing, or its subscription moving to a new session's data. */
export type SubscriptionCause = (tab: number, via: 'subscribe' | 'session', kind: string) => FetchCause | undefined;

/**
 * The tabs connected to this broker and what each watches. A tab that closes or crashes sends
 * nothing (ports have no close event), so each tab holds a Web Lock for its lifetime and the broker
 * waits for that lock: when it is granted, the tab is gone and its subscriptions are released.
 */
export class Tabs {
  private tabs = new Map<string, TabState>();
  private labels = 0;
  /** A tab came or went, or a subscription changed. */
  readonly changed = new Emitter();

  constructor(
    private readonly queries: Pick<QueryClient, 'entryFor' | 'ownerOf' | 'cache'>,
    private readonly locks: LockManagerLike | null,
    private readonly causeOf: SubscriptionCause = () => undefined,
  ) {}

  get count(): number {
    return this.tabs.size;
  }

  get subscriptionCount(): number {
    let total = 0;
    for (const tab of this.tabs.values()) total += tab.subscriptions.size;
    return total;
  }

  register(hello: TabHello, listener: TabListener, onRelease?: () => void): Tab {
    const existing = this.tabs.get(hello.tabId);
    if (existing) this.release(existing.tabId);
    const tab: TabState = { tabId: hello.tabId, label: ++this.labels, listener, onRelease, subscriptions: new Map(), pending: new Map(), flushScheduled: false, released: false };
    this.tabs.set(tab.tabId, tab);
    if (hello.lockName !== undefined) this.watchLifetime(tab, hello.lockName);
    this.changed.emit();
    return tab;
  }

  /** Releases the tab when its lifetime lock becomes free (it closed or crashed). Once per tab. */
  watchLifetime(tab: Tab, lockName: string): void {
    const state = this.tabs.get(tab.tabId);
    if (state === undefined || state !== tab || state.watchedLock !== undefined) return;
    state.watchedLock = lockName;
    void this.watchLiveness(state, lockName);
  }

  private async watchLiveness(tab: TabState, lockName: string): Promise<void> {
    const locks = this.locks;
    if (locks === null) return;
    try {
      // Only wait for the lock if the tab really holds it; a free lock would release the tab at once.
      const held = await locks.request(lockName, { ifAvailable: true }, (lock) => lock === null);
      if (!held) return;
      await locks.request(lockName, {}, () => {
        if (this.tabs.get(tab.tabId) === tab) this.release(tab.tabId);
      });
    } catch {
      // No liveness for this tab; it is released when it says goodbye or the broker stops.
    }
  }

  release(tabId: string): void {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    tab.released = true;
    for (const subscription of tab.subscriptions.values()) subscription.detach();
    tab.subscriptions.clear();
    tab.pending.clear();
    this.tabs.delete(tabId);
    // After the goodbye answer (if any) has gone out.
    if (tab.onRelease) setTimeout(tab.onRelease, 0);
    this.changed.emit();
  }

  subscribe(tab: Tab, subscriptionId: string, spec: QuerySpec): QuerySnapshot {
    const state = this.state(tab);
    if (!state.subscriptions.has(subscriptionId) && state.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_TAB) {
      throw new InvalidArgumentError('subscriptionId', `A tab may hold at most ${MAX_SUBSCRIPTIONS_PER_TAB} subscriptions.`);
    }
    state.subscriptions.get(subscriptionId)?.detach();
    const subscription = this.attach(state, subscriptionId, spec, 'subscribe');
    state.subscriptions.set(subscriptionId, subscription);
    this.changed.emit();
    return subscription.entry.snapshot();
  }

  unsubscribe(tab: Tab, subscriptionId: string): void {
    const state = this.state(tab);
    state.subscriptions.get(subscriptionId)?.detach();
    state.subscriptions.delete(subscriptionId);
    state.pending.delete(subscriptionId);
    this.changed.emit();
  }

  /** After a sign-in or sign-out, queries of that scope belong to a new owner: move every subscription over. */
  repoint(scope: QueryScope): void {
    const owner = this.queries.ownerOf(scope);
    for (const tab of this.tabs.values()) {
      for (const [id, subscription] of tab.subscriptions) {
        if (subscription.entry.scope !== scope || subscription.entry.owner === owner) continue;
        subscription.detach();
        const moved = this.attach(tab, id, subscription.entry.spec, 'session');
        tab.subscriptions.set(id, moved);
        this.queue(tab, id, moved.entry.snapshot());
      }
    }
    // Entries of the old session nobody watches any more are dropped now rather than in 5 s.
    this.queries.cache.removeUnwatched((entry) => entry.scope === scope && entry.owner !== owner);
  }

  private attach(tab: TabState, subscriptionId: string, spec: QuerySpec, via: 'subscribe' | 'session'): ActiveSubscription {
    const entry = this.queries.entryFor(spec);
    const detach = entry.subscribe((snapshot) => this.queue(tab, subscriptionId, snapshot), this.causeOf(tab.label, via, spec.kind));
    return { entry, detach };
  }

  /** Each tab by number, with the entries it watches (diagnostics). */
  describe(): Array<{ tab: number; entries: CacheEntry[] }> {
    return [...this.tabs.values()].map((tab) => ({ tab: tab.label, entries: [...tab.subscriptions.values()].map((s) => s.entry) }));
  }

  /** Updates for a tab are batched per microtask: one message however many subscriptions changed. */
  private queue(tab: TabState, subscriptionId: string, snapshot: QuerySnapshot): void {
    if (tab.released) return;
    tab.pending.set(subscriptionId, snapshot);
    if (tab.flushScheduled) return;
    tab.flushScheduled = true;
    queueMicrotask(() => {
      tab.flushScheduled = false;
      if (tab.released || tab.pending.size === 0) return;
      const batch: Delivery = [...tab.pending].map(([id, snap]) => ({ subscriptionId: id, snapshot: snap }));
      tab.pending.clear();
      try {
        tab.listener.deliver(batch);
      } catch {
        // The tab's port is gone; its lock will release it.
      }
    });
  }

  private state(tab: Tab): TabState {
    const state = this.tabs.get(tab.tabId);
    if (!state || state !== tab) throw new InvalidArgumentError('tab', 'This connection was closed; connect again.');
    return state;
  }

  releaseAll(): void {
    for (const tabId of [...this.tabs.keys()]) this.release(tabId);
  }
}
