import { Emitter } from '../../contract/events.js';
import { hashQueryKey } from '../../contract/queryKey.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { CacheEntry, EntryIdentity, FetchCause } from './cacheEntry.js';

/**
 * Builds an entry the cache lacks; `onGarbage` removes it when the GC says so; `onUpdate` says its snapshot changed.
 */
export type EntryFactory = (key: string, onGarbage: () => void, onUpdate: () => void) => CacheEntry;

/**
 * Every entry of a broker, by owner and query. Entries remove themselves 5 s after their last
 * subscriber. Keys are built from structured parts and never parsed back: an entry carries its
 * query, scope and owner as fields.
 */
export class QueryCache {
  #entries = new Map<string, CacheEntry>();
  /** Entries were added or removed. */
  readonly changed = new Emitter();
  /** A fetched entry's snapshot changed (for diagnostics; nothing else listens). */
  readonly updated = new Emitter();
  readonly #emitUpdated = () => this.updated.emit();

  static keyOf(owner: string, spec: QuerySpec): string {
    // The owner as a JSON string ends at its closing quote, so no owner and query run into another.
    return JSON.stringify(owner) + hashQueryKey(spec);
  }

  get(owner: string, spec: QuerySpec): CacheEntry | undefined {
    return this.#entries.get(QueryCache.keyOf(owner, spec));
  }

  /** The entry for `identity`, built with `create` when missing. */
  ensure(identity: EntryIdentity, create: EntryFactory): CacheEntry {
    const key = QueryCache.keyOf(identity.owner, identity.spec);
    let entry = this.#entries.get(key);
    if (!entry) {
      const created = create(key, () => this.remove(created), this.#emitUpdated);
      entry = created;
      this.#entries.set(key, created);
      this.changed.emit();
    }
    return entry;
  }

  remove(entry: CacheEntry): void {
    if (this.#entries.get(entry.key) !== entry) return;
    this.#entries.delete(entry.key);
    entry.dispose();
    this.changed.emit();
  }

  /** The entries that `predicate` selects. */
  filter(predicate: (entry: CacheEntry) => boolean): CacheEntry[] {
    return [...this.#entries.values()].filter(predicate);
  }

  /** Invalidates the selected entries someone watches: they refetch now; unwatched ones are left to expire. */
  refetchWatched(predicate: (entry: CacheEntry) => boolean = () => true, cause?: FetchCause): number {
    const watched = this.filter((entry) => entry.subscriberCount > 0 && predicate(entry));
    for (const entry of watched) entry.invalidate(cause);
    return watched.length;
  }

  /** Drops selected entries nobody watches (those of a session that just ended, for instance). */
  removeUnwatched(predicate: (entry: CacheEntry) => boolean): void {
    for (const entry of this.filter((e) => e.subscriberCount === 0 && predicate(e))) this.remove(entry);
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    for (const entry of this.#entries.values()) entry.dispose();
    this.#entries.clear();
    this.changed.emit();
  }
}
