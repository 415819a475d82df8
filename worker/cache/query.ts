import type { QueryScope, QuerySpec } from '../../contract/queries.js';
import { pendingSnapshot, type QuerySnapshot } from '../../contract/snapshot.js';
import type { Clock } from '../../protocol/clock.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import type { Claim } from '../requests/scheduler.js';
import type { CacheEntry, FetchCause } from './cacheEntry.js';
import { FetchQueue } from './fetchQueue.js';
import { Watchers } from './watchers.js';

/**
 * Service data in the cache: its value, whether it is stale, and who watches it. Fetches run one at a time,
 * throttled, shared by the callers that arrive while one waits its turn (fetchQueue.ts); the fetcher is told the tabs
 * of every caller (its `Claim`), whose turns its requests go out in (worker/requests/scheduler.ts).
 */
export class FetchedQuery<T = unknown> implements CacheEntry<T> {
  #snap: QuerySnapshot<T> = pendingSnapshot();
  readonly #watchers: Watchers<QuerySnapshot<T>>;
  readonly #fetches: FetchQueue;
  /** Bumped by `setData`, so a fetch that started before a mutation cannot overwrite its result. */
  #generation = 0;
  #lastError: unknown = null;
  #lastErrorAtMillis = 0;
  /**
   * How many times the value was invalidated; how many of those invalidations the value is known to
   * be fresh for (a fetch that started after them answered, or a mutation set it); and that count
   * when the running fetch started. Invalidated while the first is ahead: subscribers keep seeing
   * the old value meanwhile.
   */
  #invalidations = 0;
  #freshAsOf = 0;
  #runningSince = -1;

  constructor(
    readonly key: string,
    readonly spec: QuerySpec,
    readonly scope: QueryScope,
    readonly owner: string,
    private readonly fetcher: (cause: FetchCause | undefined, claim: Claim) => Promise<T>,
    private readonly clock: Clock,
    onGarbage: () => void,
    /** Whose data this is, when it is the signed-in user's (tagged on every snapshot). */
    private readonly userId?: string | null,
    /** Told after every snapshot change (diagnostics follow the cache this way). */
    private readonly onUpdate?: () => void,
  ) {
    this.#watchers = new Watchers(clock, onGarbage);
    // A fetch nobody watches (a refetch of an unwatched query) must not leave the entry forever.
    this.#fetches = new FetchQueue(
      clock,
      (cause, claim) => this.#run(cause, claim),
      () => this.#watchers.scheduleGcIfUnwatched(),
    );
  }

  snapshot(): QuerySnapshot<T> {
    return this.#snap;
  }

  get subscriberCount(): number {
    return this.#watchers.size;
  }

  get invalidated(): boolean {
    return this.#freshAsOf < this.#invalidations;
  }

  get lastFailure(): { error: unknown; atMillis: number } | null {
    return this.#lastErrorAtMillis === 0 ? null : { error: this.#lastError, atMillis: this.#lastErrorAtMillis };
  }

  /** Subscribing reads through the cache: fetches when there is no value yet. */
  subscribe(listener: (snapshot: QuerySnapshot<T>) => void, cause?: FetchCause): () => void {
    const remove = this.#watchers.add(listener);
    if (this.#snap.status !== 'success') {
      // The fetch under way answers this subscriber too.
      if (this.#snap.isFetching) this.#fetches.joinRunning(cause);
      else void this.fetch(cause).catch(() => undefined);
    }
    return remove;
  }

  /** The cached value, or a fetch when there is none or it is stale (errors are not kept for reads). */
  async read(cause?: FetchCause): Promise<T> {
    // A read after a mutation must not see what the mutation made stale, even while the refetch runs:
    // a fetch that started after the last invalidation answers it; any other, a fetch of its own.
    if (this.#snap.status !== 'success' || this.invalidated) {
      const running = this.#fetches.running;
      if (running !== null && this.#runningSince === this.#invalidations) {
        this.#fetches.joinRunning(cause);
        await running.catch(() => undefined);
      } else await this.fetch(cause);
    }
    if (this.#watchers.size === 0) this.#watchers.scheduleGc();
    if (this.#snap.status === 'error') throw this.#lastError;
    return this.#snap.data as T;
  }

  /** Throttled, one at a time, batched (fetchQueue.ts). */
  fetch(cause?: FetchCause): Promise<void> {
    return this.#fetches.fetch(cause);
  }

  async #run(cause: FetchCause | undefined, claim: Claim): Promise<void> {
    const generation = this.#generation;
    const since = this.#invalidations;
    this.#runningSince = since;
    this.#set({ ...this.#snap, isFetching: true });
    // Fresh as of `since` once the fetch has answered (not when it starts: a read meanwhile would
    // take the old value for the new one).
    const answered = () => {
      this.#freshAsOf = Math.max(this.#freshAsOf, since);
    };
    try {
      const data = await this.fetcher(cause, claim);
      answered();
      if (generation !== this.#generation) return this.#set({ ...this.#snap, isFetching: false });
      this.#set({ status: 'success', data, error: null, updatedAtMillis: this.clock.now(), isFetching: false });
    } catch (error) {
      answered();
      this.#lastError = error;
      this.#lastErrorAtMillis = this.clock.now();
      if (generation !== this.#generation) return this.#set({ ...this.#snap, isFetching: false });
      // The last good value stays visible next to the error.
      this.#set({
        status: 'error',
        data: this.#snap.data,
        error: serializeError(error),
        updatedAtMillis: this.clock.now(),
        isFetching: false,
      });
      throw error;
    }
  }

  /** A mutation's result: shown at once, and wins over fetches already under way. */
  setData(data: T): void {
    this.#generation++;
    this.#freshAsOf = this.#invalidations;
    this.#set({
      status: 'success',
      data,
      error: null,
      updatedAtMillis: this.clock.now(),
      isFetching: this.#snap.isFetching,
    });
  }

  /** Marks the value stale: refetched at once when someone is watching, else on the next read. */
  invalidate(cause?: FetchCause): void {
    this.#invalidations++;
    if (this.#watchers.size > 0) void this.fetch(cause).catch(() => undefined);
    else if (this.#snap.status === 'success') this.#set({ ...this.#snap, status: 'pending' });
  }

  #set(next: QuerySnapshot<T>): void {
    this.#snap = this.userId === undefined ? next : { ...next, userId: this.userId };
    this.#watchers.notify(this.#snap);
    this.onUpdate?.();
  }

  dispose(): void {
    this.#watchers.dispose();
  }
}
