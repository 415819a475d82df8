import type { QueryScope, QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';

/** Where an entry belongs: its query, whose data it is, and the session that owns it. */
export interface EntryIdentity {
  readonly spec: QuerySpec;
  readonly scope: QueryScope;
  /**
   * The session the data belongs to (`user:<sessionKey>`, `admin:<sessionKey>`), or the project or
   * broker for shared data. The same query after a sign-in has another owner: another entry.
   */
  readonly owner: string;
}

/**
 * Who asked for a fetch, for the broker's diagnostics (worker/diagnostics/). Opaque to the cache:
 * a fetch it starts gets its own copy (`fork`), passed to the fetcher and told of every caller that
 * shares that fetch (`join`). There is no async context in a worker: attribution travels as this
 * argument, or not at all.
 */
export interface FetchCause {
  /** The same cause for one new fetch, counting its own callers. */
  fork(): FetchCause;
  join(): void;
}

/** One entry of the shared cache: fetched data or a live broker value, watched the same way. */
export interface CacheEntry<T = unknown> extends EntryIdentity {
  /** The cache's own key for this entry (hash of owner and query); never parsed back. */
  readonly key: string;
  snapshot(): QuerySnapshot<T>;
  /** Starts delivering snapshots; the returned function stops it (and may start the 5 s GC). */
  subscribe(listener: (snapshot: QuerySnapshot<T>) => void, cause?: FetchCause): () => void;
  readonly subscriberCount: number;
  /** The value, fetched first when there is none or it is stale. */
  read(cause?: FetchCause): Promise<T>;
  /** A refetch now (within the throttle); nothing for live values. */
  fetch(cause?: FetchCause): Promise<void>;
  /** A mutation's answer, shown at once. */
  setData(data: T): void;
  /** Stale: refetched now when watched, else on the next read. */
  invalidate(cause?: FetchCause): void;
  /** Marked stale and not fetched since (diagnostics). */
  readonly invalidated: boolean;
  /** The last failed fetch, kept after later successes (diagnostics). */
  readonly lastFailure: { error: unknown; atMillis: number } | null;
  dispose(): void;
}

/** The seed's constants (PROTOCOL.md §9.3). */
export const REFETCH_THROTTLE_MILLIS = 300;
export const GC_DELAY_MILLIS = 5000;
