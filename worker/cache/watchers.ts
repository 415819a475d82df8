import { Emitter } from '../../contract/events.js';
import type { Clock, TimerHandle } from '../../protocol/clock.js';
import { GC_DELAY_MILLIS } from './entry.js';

/**
 * The watchers of one cache entry, and its garbage collection: an entry nobody watches is dropped
 * 5 s after its last watcher left (a remount or a quick navigation finds it still there).
 */
export class Watchers<S> {
  private readonly listeners = new Emitter<S>();
  private gcHandle: TimerHandle | null = null;
  private disposed = false;

  constructor(
    private readonly clock: Clock,
    private readonly onGarbage: () => void,
  ) {}

  get size(): number {
    return this.listeners.size;
  }

  /** Adds a watcher; the returned function removes it, once. */
  add(listener: (snapshot: S) => void, onEmpty?: () => void): () => void {
    const unsubscribe = this.listeners.subscribe(listener);
    this.cancelGc();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      unsubscribe();
      if (this.listeners.size === 0) {
        onEmpty?.();
        this.scheduleGc();
      }
    };
  }

  notify(snapshot: S): void {
    this.listeners.emit(snapshot);
  }

  /** Starts the countdown unless someone watches or it already runs. */
  scheduleGcIfUnwatched(): void {
    if (this.listeners.size === 0 && this.gcHandle === null) this.scheduleGc();
  }

  scheduleGc(): void {
    this.cancelGc();
    if (this.disposed) return;
    this.gcHandle = this.clock.setTimeout(() => {
      this.gcHandle = null;
      if (this.listeners.size === 0) this.onGarbage();
    }, GC_DELAY_MILLIS);
  }

  private cancelGc(): void {
    if (this.gcHandle !== null) this.clock.clearTimeout(this.gcHandle);
    this.gcHandle = null;
  }

  dispose(): void {
    this.disposed = true;
    this.cancelGc();
    this.listeners.clear();
  }
}
