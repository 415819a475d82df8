import { Emitter, type Watchable } from '../contract/events.js';
import type { BrokerMode, BrokerStatus, ConnectivitySnapshot, SessionInfo, StorageKind } from '../contract/state.js';
import { AUTHBROKER_VERSION } from '../protocol/version.js';
import { derivedValue } from './cache/liveValue.js';

/** The broker's own warnings kept (the newest): each is a sentence of ours, so few can differ. */
export const MAX_OWN_WARNINGS = 20;
/** What tabs report is a page's text: kept per tab while it is connected, a few each, each cut short… */
export const MAX_WARNINGS_PER_TAB = 3;
export const MAX_TAB_WARNING_LENGTH = 500;
/** …and at most this many different ones shown in all, however many tabs report. */
export const MAX_TAB_WARNINGS = 10;

/**
 * Things the app should know (the session is not persisted…), each said once. Tabs add their own
 * (why they are not on a better host); any page of the origin can connect and say anything, so
 * theirs are bounded, shown once each whoever said them, and forgotten when the tab goes.
 */
export class Warnings {
  #own: string[] = [];
  #fromTabs = new Map<number, string[]>();
  readonly changed = new Emitter();

  add(warning: string): void {
    if (this.#own.includes(warning)) return;
    this.#own.push(warning);
    if (this.#own.length > MAX_OWN_WARNINGS) this.#own.shift();
    this.changed.emit();
  }

  /** What tab `tab` (its number) said when it connected. */
  addFromTab(tab: number, warnings: readonly string[]): void {
    const kept: string[] = [];
    for (const warning of warnings) {
      const short =
        warning.length > MAX_TAB_WARNING_LENGTH ? `${warning.slice(0, MAX_TAB_WARNING_LENGTH - 1)}…` : warning;
      if (!kept.includes(short)) kept.push(short);
      if (kept.length === MAX_WARNINGS_PER_TAB) break;
    }
    if (kept.length === 0) return;
    this.#fromTabs.set(tab, kept);
    this.changed.emit();
  }

  forgetTab(tab: number): void {
    if (this.#fromTabs.delete(tab)) this.changed.emit();
  }

  all(): string[] {
    const out = [...this.#own];
    let fromTabs = 0;
    for (const warnings of this.#fromTabs.values()) {
      for (const warning of warnings) {
        if (fromTabs === MAX_TAB_WARNINGS) return out;
        if (out.includes(warning)) continue;
        out.push(warning);
        fromTabs += 1;
      }
    }
    return out;
  }
}

export interface StatusSources {
  mode: BrokerMode;
  brokerId: string;
  startedAtMillis: number;
  storageKind: StorageKind;
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
