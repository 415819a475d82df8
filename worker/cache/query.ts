import { serializeError } from '../../protocol/errors/serialize.js';
import type { SerializedError } from '../../protocol/errors/errors.js';

/** What subscribers see of a cache entry. Plain data: it crosses to tabs by structured clone. */
export interface QuerySnapshot<T = unknown> {
  status: 'pending' | 'success' | 'error';
  data: T | undefined;
  error: SerializedError | null;
  updatedAtMillis: number;
  isFetching: boolean;
}

/** Timers, injectable so tests can run the throttle and the garbage collection on a fake clock. */
export interface Scheduler {
  now(): number;
  setTimeout(callback: () => void, millis: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  setTimeout: (callback, millis) => setTimeout(callback, millis),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The seed's constants (PROTOCOL.md §9.3). */
export const REFETCH_THROTTLE_MILLIS = 300;
export const GC_DELAY_MILLIS = 5000;

/**
 * One cache entry. Fetches run one at a time; a new fetch starts no sooner than 300 ms after the
 * previous one started; callers that arrive while a fetch waits its turn share that fetch.
 */
export class Query<T = unknown> {
  private snap: QuerySnapshot<T> = { status: 'pending', data: undefined, error: null, updatedAtMillis: 0, isFetching: false };
  private listeners = new Set<(snapshot: QuerySnapshot<T>) => void>();
  private lastStartMillis = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private gcHandle: unknown = null;
  /** Bumped by `setData`, so a fetch that started before a mutation cannot overwrite its result. */
  private generation = 0;
  private lastError: unknown = null;
  /** Invalidated and not fetched since; subscribers keep seeing the old value meanwhile. */
  private stale = false;
  private disposed = false;

  constructor(
    readonly key: string,
    private readonly fetcher: () => Promise<T>,
    private readonly scheduler: Scheduler,
    private readonly onGarbage: (query: Query<T>) => void,
  ) {}

  snapshot(): QuerySnapshot<T> {
    return this.snap;
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Subscribing reads through the cache: fetches when there is no value yet. */
  subscribe(listener: (snapshot: QuerySnapshot<T>) => void): () => void {
    this.listeners.add(listener);
    this.cancelGc();
    if (this.snap.status !== 'success' && !this.snap.isFetching) void this.fetch().catch(() => undefined);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.scheduleGc();
    };
  }

  /** The cached value, or a fetch when there is none or it is stale (errors are not kept for reads). */
  async read(): Promise<T> {
    // A read after a mutation must not see what the mutation made stale, even while the refetch runs.
    if (this.snap.status !== 'success' || this.stale) await this.fetch();
    if (this.listeners.size === 0) this.scheduleGc();
    if (this.snap.status === 'error') throw this.lastError;
    return this.snap.data as T;
  }

  /** Throttled, one at a time, batched (see the class comment). */
  fetch(): Promise<void> {
    if (this.queued) return this.queued;
    // Started a microtask later, so that `queued` is stored before the body can clear it.
    const queued: Promise<void> = Promise.resolve().then(async () => {
      if (this.running) await this.running.catch(() => undefined);
      const wait = this.lastStartMillis + REFETCH_THROTTLE_MILLIS - this.scheduler.now();
      if (wait > 0) await new Promise<void>((resolve) => this.scheduler.setTimeout(resolve, wait));
      // From here on, newcomers queue the next fetch: this one may already be out of date for them.
      if (this.queued === queued) this.queued = null;
      this.lastStartMillis = this.scheduler.now();
      const run = this.run();
      this.running = run;
      try {
        await run;
      } finally {
        if (this.running === run) this.running = null;
        // A fetch nobody watches (a refetch of an unwatched query) must not leave the entry forever.
        if (this.listeners.size === 0 && this.gcHandle === null) this.scheduleGc();
      }
    });
    this.queued = queued;
    return queued;
  }

  private async run(): Promise<void> {
    const generation = this.generation;
    this.stale = false;
    this.set({ ...this.snap, isFetching: true });
    try {
      const data = await this.fetcher();
      if (generation !== this.generation) return this.set({ ...this.snap, isFetching: false });
      this.set({ status: 'success', data, error: null, updatedAtMillis: this.scheduler.now(), isFetching: false });
    } catch (error) {
      this.lastError = error;
      if (generation !== this.generation) return this.set({ ...this.snap, isFetching: false });
      // The last good value stays visible next to the error.
      this.set({ status: 'error', data: this.snap.data, error: serializeError(error), updatedAtMillis: this.scheduler.now(), isFetching: false });
      throw error;
    }
  }

  /** A mutation's result: shown at once, and wins over fetches already under way. */
  setData(data: T): void {
    this.generation++;
    this.stale = false;
    this.set({ status: 'success', data, error: null, updatedAtMillis: this.scheduler.now(), isFetching: this.snap.isFetching });
  }

  /** Marks the value stale: refetched at once when someone is watching, else on the next read. */
  invalidate(): void {
    this.stale = true;
    if (this.listeners.size > 0) void this.fetch().catch(() => undefined);
    else if (this.snap.status === 'success') this.set({ ...this.snap, status: 'pending' });
  }

  private set(next: QuerySnapshot<T>): void {
    this.snap = next;
    for (const listener of [...this.listeners]) listener(next);
  }

  private scheduleGc(): void {
    this.cancelGc();
    if (this.disposed) return;
    this.gcHandle = this.scheduler.setTimeout(() => {
      this.gcHandle = null;
      if (this.listeners.size === 0) this.onGarbage(this);
    }, GC_DELAY_MILLIS);
  }

  private cancelGc(): void {
    if (this.gcHandle !== null) this.scheduler.clearTimeout(this.gcHandle);
    this.gcHandle = null;
  }

  dispose(): void {
    this.disposed = true;
    this.cancelGc();
    this.listeners.clear();
  }
}
