import {
  CONNECTIVITY_HISTORY_SIZE,
  type ConnectivityChange,
  type DiagnosticsError,
  type SessionDiagnostics,
} from '../../contract/diagnostics.js';
import type { Emitter, Watchable } from '../../contract/events.js';
import type { BrokerDiagnostics, CacheEntryDiagnostics, QueryScope } from '../../contract/queries.js';
import type { BrokerMode, ConnectivitySnapshot, SessionEnd, StorageKind } from '../../contract/state.js';
import type { SerializedError } from '../../protocol/errors/errors.js';
import type { CacheEntry } from '../cache/cacheEntry.js';
import type { RecorderKit } from './kit.js';
import type { RequestLog } from './requestLog.js';
import { Ring } from './ring.js';

/** A session slot as diagnostics read it (the broker's Session). */
export interface SessionSource {
  state():
    | { status: 'loading' }
    | { status: 'signed-out'; lastEnd: SessionEnd | null }
    | { status: 'signed-in'; userId: string | null };
  readonly accessTokenExpiresAtMillis: number | null;
  readonly refreshCount: number;
  subscribe(listener: () => void): () => void;
}

export interface DiagnosticsSources {
  mode: BrokerMode;
  brokerId: string;
  startedAtMillis: number;
  storageKind: StorageKind;
  now(): number;
  log: RequestLog;
  tabs: { readonly changed: Emitter; describe(): Array<{ tab: number; entries: CacheEntry[] }> };
  cache: {
    readonly changed: Emitter;
    readonly updated: Emitter;
    filter(predicate: (entry: CacheEntry) => boolean): CacheEntry[];
  };
  ownerOf(scope: QueryScope): string;
  session: SessionSource;
  adminSession: SessionSource | null;
  /** A token request of this broker succeeded. */
  refreshed: Emitter;
  connectivity: Watchable<ConnectivitySnapshot>;
  warnings: { all(): string[]; readonly changed: Emitter };
}

/** An error as diagnostics may show it: its code and status, never its message, details or body. */
function reduced(error: SerializedError): DiagnosticsError {
  return { code: error.code, status: 'status' in error ? error.status : null };
}

function sessionOf(source: SessionSource): SessionDiagnostics {
  const state = source.state();
  const signedIn = state.status === 'signed-in';
  return {
    status: state.status,
    userId: signedIn ? state.userId : null,
    accessTokenExpiresAtMillis: signedIn ? source.accessTokenExpiresAtMillis : null,
    renewals: source.refreshCount,
    lastEnd: state.status === 'signed-out' ? state.lastEnd : null,
  };
}

function changeOf(snapshot: ConnectivitySnapshot, atMillis: number): ConnectivityChange {
  return {
    atMillis,
    state: snapshot.state,
    browserOnline: snapshot.browserOnline,
    consecutiveFailures: snapshot.consecutiveFailures,
    lastError: snapshot.lastError === null ? null : reduced(snapshot.lastError),
    diagnostics: snapshot.diagnostics,
  };
}

/**
 * The broker's diagnostics as a live value (the `diagnostics` query). The first watcher turns
 * recording on (requests, connectivity changes) for the rest of the broker's life; snapshots are
 * computed when something changed, at most once per microtask, and only while someone watches.
 * The devtools' own entries (kind `diagnostics`) are left out of the cache they list.
 */
export function createDiagnostics(sources: DiagnosticsSources, kit: RecorderKit): Watchable<BrokerDiagnostics> {
  const { hashQueryKey, serializeError } = kit;
  const history = new Ring<ConnectivityChange>(CONNECTIVITY_HISTORY_SIZE);
  const startRecording = () => {
    if (sources.log.recording) return;
    sources.log.start();
    history.push(changeOf(sources.connectivity.current(), sources.now()));
    sources.connectivity.subscribe((snapshot) => history.push(changeOf(snapshot, sources.now())));
  };

  const compute = (): BrokerDiagnostics => {
    const tabs = sources.tabs.describe();
    const watchedBy = new Map<CacheEntry, Set<number>>();
    for (const { tab, entries } of tabs) {
      for (const entry of entries) {
        const set = watchedBy.get(entry) ?? new Set<number>();
        set.add(tab);
        watchedBy.set(entry, set);
      }
    }
    const cache = sources.cache
      .filter((entry) => entry.spec.kind !== 'diagnostics')
      .map((entry): CacheEntryDiagnostics => {
        const snapshot = entry.snapshot();
        const failure = entry.lastFailure;
        return {
          key: hashQueryKey(entry.spec),
          query: entry.spec,
          scope: entry.scope,
          current: entry.owner === sources.ownerOf(entry.scope),
          tabs: [...(watchedBy.get(entry) ?? [])].sort((a, b) => a - b),
          subscribers: entry.subscriberCount,
          status: snapshot.status,
          isFetching: snapshot.isFetching,
          updatedAtMillis: snapshot.updatedAtMillis,
          invalidated: entry.invalidated,
          lastError:
            failure === null ? null : { ...reduced(serializeError(failure.error)), atMillis: failure.atMillis },
        };
      });
    const { lastError, lastErrorAtMillis, ...connectivity } = sources.connectivity.current();
    return {
      host: {
        mode: sources.mode,
        brokerId: sources.brokerId,
        version: kit.version,
        startedAtMillis: sources.startedAtMillis,
        storage: sources.storageKind,
      },
      recordingSinceMillis: sources.log.recordingSinceMillis,
      tabs: tabs.map(({ tab, entries }) => ({
        tab,
        subscriptions: entries.length,
        panels: entries.flatMap((entry) =>
          entry.spec.kind === 'diagnostics' && entry.spec.panel !== undefined ? [entry.spec.panel] : [],
        ),
      })),
      session: sessionOf(sources.session),
      adminSession: sources.adminSession === null ? null : sessionOf(sources.adminSession),
      cache,
      requests: sources.log.records(),
      requestsDropped: sources.log.dropped,
      connectivity: {
        ...connectivity,
        lastError: lastError === null ? null : { ...reduced(lastError), atMillis: lastErrorAtMillis ?? 0 },
      },
      connectivityHistory: history.toArray(),
      warnings: sources.warnings.all(),
    };
  };

  const derived = kit.derivedValue(compute, (changed) => [
    sources.log.changed.subscribe(changed),
    sources.tabs.changed.subscribe(changed),
    sources.cache.changed.subscribe(changed),
    sources.cache.updated.subscribe(changed),
    sources.refreshed.subscribe(changed),
    sources.warnings.changed.subscribe(changed),
    sources.session.subscribe(changed),
    sources.adminSession?.subscribe(changed) ?? (() => undefined),
    sources.connectivity.subscribe(changed),
  ]);
  return {
    current: derived.current,
    subscribe(listener) {
      startRecording();
      return derived.subscribe(listener);
    },
  };
}
