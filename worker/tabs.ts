import { InvalidArgumentError } from '../protocol/errors/errors.js';
import type { Delivery, TabHello, TabListener } from './api/types.js';
import { fetcherFor } from './cache/fetchers.js';
import { isLive, scopeOf, type QueryScope, type QuerySpec } from './cache/queries.js';
import type { QuerySnapshot } from './cache/query.js';
import type { BrokerCore } from './core.js';

/** A value the broker itself holds (session state, connectivity, status) that tabs can watch. */
export interface LiveSource<T = unknown> {
  current(): T;
  subscribe(listener: (value: T) => void): () => void;
}

export type LiveSources = Record<'session' | 'adminSession' | 'connectivity' | 'status', LiveSource>;

interface ActiveSubscription {
  spec: QuerySpec;
  key: string;
  detach: () => void;
}

export interface Tab {
  readonly tabId: string;
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

function liveSnapshot(value: unknown, now: number): QuerySnapshot {
  return { status: 'success', data: value, error: null, updatedAtMillis: now, isFetching: false };
}

/**
 * The tabs connected to this broker and what each watches. A tab that closes or crashes sends
 * nothing (ports have no close event), so each tab holds a Web Lock for its lifetime and the broker
 * waits for that lock: when it is granted, the tab is gone and its subscriptions are released.
 */
export class Tabs {
  private tabs = new Map<string, TabState>();
  private changeListeners = new Set<() => void>();

  constructor(
    private readonly core: BrokerCore,
    private readonly live: LiveSources,
  ) {}

  get count(): number {
    return this.tabs.size;
  }

  get subscriptionCount(): number {
    let total = 0;
    for (const tab of this.tabs.values()) total += tab.subscriptions.size;
    return total;
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  register(hello: TabHello, listener: TabListener, onRelease?: () => void): Tab {
    const existing = this.tabs.get(hello.tabId);
    if (existing) this.release(existing.tabId);
    const tab: TabState = { tabId: hello.tabId, listener, onRelease, subscriptions: new Map(), pending: new Map(), flushScheduled: false, released: false };
    this.tabs.set(tab.tabId, tab);
    if (hello.lockName !== undefined) this.watchLifetime(tab, hello.lockName);
    this.changed();
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
    const locks = this.core.locks;
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
    this.changed();
  }

  subscribe(tab: Tab, subscriptionId: string, spec: QuerySpec): QuerySnapshot {
    const state = this.state(tab);
    if (typeof subscriptionId !== 'string' || subscriptionId === '' || subscriptionId.length > 200) {
      throw new InvalidArgumentError('subscriptionId', 'subscriptionId must be a non-empty string of at most 200 characters.');
    }
    if (!state.subscriptions.has(subscriptionId) && state.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_TAB) {
      throw new InvalidArgumentError('subscriptionId', `A tab may hold at most ${MAX_SUBSCRIPTIONS_PER_TAB} subscriptions.`);
    }
    state.subscriptions.get(subscriptionId)?.detach();
    const subscription = this.attach(state, subscriptionId, spec);
    state.subscriptions.set(subscriptionId, subscription);
    this.changed();
    return this.currentSnapshot(spec);
  }

  unsubscribe(tab: Tab, subscriptionId: string): void {
    const state = this.state(tab);
    state.subscriptions.get(subscriptionId)?.detach();
    state.subscriptions.delete(subscriptionId);
    state.pending.delete(subscriptionId);
    this.changed();
  }

  /** After a sign-in or sign-out, queries of that scope name new cache entries: move every subscription over. */
  repoint(scope: QueryScope): void {
    for (const tab of this.tabs.values()) {
      for (const [id, subscription] of tab.subscriptions) {
        if (scopeOf(subscription.spec) !== scope) continue;
        const key = this.core.keyOf(subscription.spec);
        if (key === subscription.key) continue;
        subscription.detach();
        const moved = this.attach(tab, id, subscription.spec);
        tab.subscriptions.set(id, moved);
        this.queue(tab, id, this.currentSnapshot(subscription.spec));
      }
    }
    // Entries of the old session nobody watches any more are dropped now rather than in 5 s.
    const prefix = scope === 'user' ? 'user:' : scope === 'admin' ? 'admin:' : null;
    if (prefix !== null) {
      const current = this.core.keyOf({ kind: scope === 'user' ? 'currentUser' : 'admin.ownedProjects' }).split('|')[0]!;
      this.core.cache.removeUnwatched((key) => key.startsWith(prefix) && !key.startsWith(`${current}|`));
    }
  }

  private attach(tab: TabState, subscriptionId: string, spec: QuerySpec): ActiveSubscription {
    const key = this.core.keyOf(spec);
    if (isLive(spec)) {
      const detach = this.live[spec.kind].subscribe((value) => this.queue(tab, subscriptionId, liveSnapshot(value, this.core.clock.now())));
      return { spec, key, detach };
    }
    const query = this.core.cache.ensure(key, fetcherFor(this.core, spec));
    const detach = query.subscribe((snapshot) => this.queue(tab, subscriptionId, snapshot));
    return { spec, key, detach };
  }

  private currentSnapshot(spec: QuerySpec): QuerySnapshot {
    if (isLive(spec)) return liveSnapshot(this.live[spec.kind].current(), this.core.clock.now());
    return this.core.cache.ensure(this.core.keyOf(spec), fetcherFor(this.core, spec)).snapshot();
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
        // Over Comlink this returns a promise; a tab that vanished never answers, and that is fine.
        const result = tab.listener.deliver(batch) as unknown;
        if (result instanceof Promise) result.catch(() => undefined);
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

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  releaseAll(): void {
    for (const tabId of [...this.tabs.keys()]) this.release(tabId);
  }
}
