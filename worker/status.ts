import { Emitter, type Watchable } from '../contract/events.js';
import type { BrokerMode, BrokerStatus, ConnectivitySnapshot, SessionInfo } from '../contract/state.js';
import { AUTHBROKER_VERSION } from '../protocol/version.js';
import { derivedValue } from './cache/liveValue.js';

/** Things the app should know (the session is not persisted…); each said once. */
export class Warnings {
  private list: string[] = [];
  readonly changed = new Emitter();

  add(warning: string): void {
    if (this.list.includes(warning)) return;
    this.list.push(warning);
    this.changed.emit();
  }

  all(): string[] {
    return [...this.list];
  }
}

export interface StatusSources {
  mode: BrokerMode;
  brokerId: string;
  startedAtMillis: number;
  storageKind: 'indexeddb' | 'memory';
  tabs: { readonly count: number; readonly subscriptionCount: number; readonly changed: Emitter };
  cache: { readonly size: number; readonly changed: Emitter };
  session: Watchable<SessionInfo>;
  adminSession: Watchable<SessionInfo>;
  connectivity: Watchable<ConnectivitySnapshot>;
  tokenRefreshes: { count(): number; readonly changed: Emitter };
  warnings: Warnings;
}

/**
 * The broker's status as a live value: recomputed when one of its figures changes (a tab, a
 * subscription, a cache entry, a refresh, the session, connectivity, a warning), at most once per
 * microtask, and only while someone watches. Nothing polls.
 */
export function createStatus(sources: StatusSources): Watchable<BrokerStatus> {
  const compute = (): BrokerStatus => ({
    mode: sources.mode,
    brokerId: sources.brokerId,
    version: AUTHBROKER_VERSION,
    startedAtMillis: sources.startedAtMillis,
    tabsConnected: sources.tabs.count,
    tokenRefreshes: sources.tokenRefreshes.count(),
    cacheEntries: sources.cache.size,
    subscriptions: sources.tabs.subscriptionCount,
    connectivity: sources.connectivity.current(),
    session: sources.session.current(),
    adminSession: sources.adminSession.current(),
    storage: sources.storageKind,
    warnings: sources.warnings.all(),
  });
  return derivedValue(compute, (changed) => [
    sources.tabs.changed.subscribe(changed),
    sources.cache.changed.subscribe(changed),
    sources.tokenRefreshes.changed.subscribe(changed),
    sources.warnings.changed.subscribe(changed),
    sources.session.subscribe(changed),
    sources.adminSession.subscribe(changed),
    sources.connectivity.subscribe(changed),
  ]);
}
