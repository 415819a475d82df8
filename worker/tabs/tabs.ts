import type { TabHello, TabListener } from '../../contract/api.js';
import { Emitter } from '../../contract/events.js';
import type { QueryScope, QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import { systemClock, type Clock } from '../../protocol/clock.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { CacheEntry, FetchCause } from '../cache/cacheEntry.js';
import type { QueryClient } from '../cache/queryClient.js';
import type { LockManagerLike } from '../coordination/locks.js';
import { queueDelivery, type DeliveredTab } from './deliveries.js';
import { TabLiveness } from './liveness.js';

interface ActiveSubscription {
  entry: CacheEntry;
  detach: () => void;
}

export interface Tab {
  /**
   * Its number in this broker (1, 2, …, in the order tabs connected): how the broker keys it and
   * diagnostics name it. Given by the broker, never by the tab, so no page can name another's.
   */
  readonly label: number;
  readonly subscriptions: Map<string, ActiveSubscription>;
  released: boolean;
  /** Whether the tab is shown (its own report; undefined until it first reports). */
  visible: boolean | undefined;
}

interface TabState extends Tab, DeliveredTab {
  /** Frees what the connection holds (its ports), once the tab is released. */
  onRelease: (() => void) | undefined;
}

export const MAX_SUBSCRIPTIONS_PER_TAB = 1000;

/** Queries whose watchers show connectivity (a banner, the devtools): while a shown tab watches one, it is kept current. */
const SHOWS_CONNECTIVITY: ReadonlySet<string> = new Set(['connectivity', 'status', 'diagnostics']);

/**
 * Who a subscription's fetch is for (diagnostics): a tab subscribing, or its subscription moving to a new session's
 * data.
 */
export type SubscriptionCause = (tab: number, via: 'subscribe' | 'session', kind: string) => FetchCause | undefined;

/**
 * The tabs connected to this broker and what each watches. A tab that closes or crashes sends
 * nothing (ports have no close event); `TabLiveness` finds out, from the Web Lock each tab holds
 * for its lifetime and a question over the tab's own port, and the tab's subscriptions are released.
 */
export class Tabs {
  #tabs = new Map<number, TabState>();
  #labels = 0;
  readonly #liveness: TabLiveness<TabState>;
  /** A tab came or went, or a subscription changed. */
  readonly changed = new Emitter();
  /** A tab went (its number). */
  readonly released = new Emitter<number>();

  constructor(
    private readonly queries: Pick<QueryClient, 'entryFor' | 'ownerOf' | 'cache'>,
    locks: LockManagerLike | null,
    private readonly causeOf: SubscriptionCause = () => undefined,
    clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'> = systemClock,
  ) {
    this.#liveness = new TabLiveness({ locks, clock, release: (tab) => this.release(tab) });
  }

  get count(): number {
    return this.#tabs.size;
  }

  get subscriptionCount(): number {
    return [...this.#tabs.values()].reduce((total, tab) => total + tab.subscriptions.size, 0);
  }

  /** A new connection is always a new tab: what its hello says never touches another connection. */
  register(hello: Pick<TabHello, 'lockName'>, listener: TabListener, onRelease?: () => void): Tab {
    const tab: TabState = {
      label: ++this.#labels,
      listener,
      onRelease,
      subscriptions: new Map(),
      pending: new Map(),
      flushScheduled: false,
      released: false,
      visible: undefined,
    };
    this.#tabs.set(tab.label, tab);
    this.#liveness.add(tab, listener.ping?.bind(listener));
    if (hello.lockName !== undefined) this.watchLifetime(tab, hello.lockName);
    this.changed.emit();
    return tab;
  }

  /** Releases the tab when its lifetime lock is freed and it does not answer over its own port. */
  watchLifetime(tab: Tab, lockName: string): void {
    const state = this.#tabs.get(tab.label);
    if (state === undefined || state !== tab) return;
    void this.#liveness.watch(state, lockName);
  }

  release(tab: Tab): void {
    const state = this.#tabs.get(tab.label);
    if (state === undefined || state !== tab) return;
    state.released = true;
    this.#liveness.remove(state);
    for (const subscription of state.subscriptions.values()) subscription.detach();
    state.subscriptions.clear();
    state.pending.clear();
    this.#tabs.delete(state.label);
    // After the goodbye answer (if any) has gone out.
    if (state.onRelease) setTimeout(state.onRelease, 0);
    this.released.emit(state.label);
    this.changed.emit();
  }

  subscribe(tab: Tab, subscriptionId: string, spec: QuerySpec): QuerySnapshot {
    const state = this.#state(tab);
    if (!state.subscriptions.has(subscriptionId) && state.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_TAB) {
      throw new InvalidArgumentError(
        'subscriptionId',
        `A tab may hold at most ${MAX_SUBSCRIPTIONS_PER_TAB} subscriptions.`,
      );
    }
    state.subscriptions.get(subscriptionId)?.detach();
    const subscription = this.#attach(state, subscriptionId, spec, 'subscribe');
    state.subscriptions.set(subscriptionId, subscription);
    this.changed.emit();
    return subscription.entry.snapshot();
  }

  unsubscribe(tab: Tab, subscriptionId: string): void {
    const state = this.#state(tab);
    state.subscriptions.get(subscriptionId)?.detach();
    state.subscriptions.delete(subscriptionId);
    state.pending.delete(subscriptionId);
    this.changed.emit();
  }

  /** After a sign-in or sign-out, queries of that scope belong to a new owner: move every subscription over. */
  repoint(scope: QueryScope): void {
    const owner = this.queries.ownerOf(scope);
    for (const tab of this.#tabs.values()) {
      for (const [id, subscription] of tab.subscriptions) {
        if (subscription.entry.scope !== scope || subscription.entry.owner === owner) continue;
        subscription.detach();
        const moved = this.#attach(tab, id, subscription.entry.spec, 'session');
        tab.subscriptions.set(id, moved);
        queueDelivery(tab, id, moved.entry.snapshot());
      }
    }
    // Entries of the old session nobody watches any more are dropped now rather than in 5 s.
    this.queries.cache.removeUnwatched((entry) => entry.scope === scope && entry.owner !== owner);
  }

  #attach(tab: TabState, subscriptionId: string, spec: QuerySpec, via: 'subscribe' | 'session'): ActiveSubscription {
    const entry = this.queries.entryFor(spec);
    const detach = entry.subscribe(
      (snapshot) => queueDelivery(tab, subscriptionId, snapshot),
      this.causeOf(tab.label, via, spec.kind),
    );
    return { entry, detach };
  }

  /** The tab says whether it is shown. */
  setVisible(tab: Tab, visible: boolean): void {
    const state = this.#state(tab);
    if (state.visible === visible) return;
    state.visible = visible;
    this.changed.emit();
  }

  /** Whether a shown tab watches what connectivity looks like (its state, the broker's status, diagnostics). */
  someoneWatchesConnectivity(): boolean {
    for (const tab of this.#tabs.values()) {
      if (tab.visible !== true) continue;
      for (const { entry } of tab.subscriptions.values()) if (SHOWS_CONNECTIVITY.has(entry.spec.kind)) return true;
    }
    return false;
  }

  /** Each tab by number, with the entries it watches (diagnostics). */
  describe(): Array<{ tab: number; entries: CacheEntry[] }> {
    return [...this.#tabs.values()].map((tab) => ({
      tab: tab.label,
      entries: [...tab.subscriptions.values()].map((s) => s.entry),
    }));
  }

  #state(tab: Tab): TabState {
    const state = this.#tabs.get(tab.label);
    if (!state || state !== tab) throw new InvalidArgumentError('tab', 'This connection was closed; connect again.');
    return state;
  }

  releaseAll(): void {
    for (const tab of [...this.#tabs.values()]) this.release(tab);
  }
}
