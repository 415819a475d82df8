import { Emitter } from '../../contract/events.js';
import type { Clock, TimerHandle } from '../../protocol/clock.js';
import { GC_DELAY_MILLIS } from './cacheEntry.js';

/**
 * The watchers of one cache entry, and its garbage collection: an entry nobody watches is dropped
 * 5 s after its last watcher left or its last read (a remount or a quick navigation finds it still there).
 */
export class Watchers<S> {
  readonly #listeners = new Emitter<S>();
  #gcHandle: TimerHandle | null = null;
  /** When the entry may go, if still unwatched: pushed back by every read without a new timer. */
  #gcAtMillis = 0;
  #disposed = false;

  readonly #onGarbage: () => void;
  readonly #clock: Clock;
  constructor(clock: Clock, onGarbage: () => void) {
    this.#onGarbage = onGarbage;
    this.#clock = clock;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Adds a watcher; the returned function removes it, once. */
  add(listener: (snapshot: S) => void, onEmpty?: () => void): () => void {
    const unsubscribe = this.#listeners.subscribe(listener);
    this.#cancelGc();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      unsubscribe();
      if (this.#listeners.size === 0) {
        onEmpty?.();
        this.scheduleGc();
      }
    };
  }

  notify(snapshot: S): void {
    this.#listeners.emit(snapshot);
  }

  /** Starts the countdown unless someone watches or it already runs. */
  scheduleGcIfUnwatched(): void {
    if (this.#listeners.size === 0 && this.#gcHandle === null) this.scheduleGc();
  }

  /** Starts the countdown again from now (a read of an unwatched entry keeps it 5 s more). */
  scheduleGc(): void {
    if (this.#disposed) return;
    this.#gcAtMillis = this.#clock.now() + GC_DELAY_MILLIS;
    // A countdown already running finds the new time when it ends: a cached read sets no timer.
    if (this.#gcHandle === null) this.#armGc(GC_DELAY_MILLIS);
  }

  #armGc(delayMillis: number): void {
    this.#gcHandle = this.#clock.setTimeout(() => {
      this.#gcHandle = null;
      if (this.#listeners.size > 0) return;
      const left = this.#gcAtMillis - this.#clock.now();
      if (left > 0) this.#armGc(left);
      else this.#onGarbage();
    }, delayMillis);
  }

  #cancelGc(): void {
    if (this.#gcHandle !== null) this.#clock.clearTimeout(this.#gcHandle);
    this.#gcHandle = null;
  }

  dispose(): void {
    this.#disposed = true;
    this.#cancelGc();
    this.#listeners.clear();
  }
}
