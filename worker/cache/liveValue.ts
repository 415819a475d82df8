import { Emitter, type Watchable } from '../../contract/events.js';
import type { QueryScope, QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import type { Clock } from '../../protocol/clock.js';
import type { CacheEntry } from './cacheEntry.js';
import { Watchers } from './watchers.js';

/**
 * A value the broker itself holds (session state, connectivity, status), in the cache like service
 * data: tabs watch it the same way, and it is pushed when it changes. It follows its source only
 * while someone watches.
 */
export class LiveValue<T = unknown> implements CacheEntry<T> {
  readonly #watchers: Watchers<QuerySnapshot<T>>;
  #last: { value: T; snapshot: QuerySnapshot<T> } | null = null;
  #unfollow: (() => void) | null = null;

  readonly #clock: Clock;
  readonly #source: Watchable<T>;
  constructor(
    readonly key: string,
    readonly spec: QuerySpec,
    readonly scope: QueryScope,
    readonly owner: string,
    source: Watchable<T>,
    clock: Clock,
    onGarbage: () => void,
  ) {
    this.#clock = clock;
    this.#source = source;
    this.#watchers = new Watchers(clock, onGarbage);
  }

  snapshot(): QuerySnapshot<T> {
    return this.#snapshotOf(this.#source.current());
  }

  get subscriberCount(): number {
    return this.#watchers.size;
  }

  subscribe(listener: (snapshot: QuerySnapshot<T>) => void): () => void {
    this.#unfollow ??= this.#source.subscribe((value) => this.#watchers.notify(this.#snapshotOf(value)));
    return this.#watchers.add(listener, () => {
      this.#unfollow?.();
      this.#unfollow = null;
    });
  }

  async read(): Promise<T> {
    this.#watchers.scheduleGcIfUnwatched();
    return this.#source.current();
  }

  async fetch(): Promise<void> {
    // Nothing to fetch: the broker pushes every change.
  }

  setData(): void {
    // Only the broker changes its own state.
  }

  invalidate(): void {
    // Never stale.
  }

  readonly invalidated = false;
  readonly lastFailure = null;

  /** The same snapshot object while the value is the same, as tabs compare by identity. */
  #snapshotOf(value: T): QuerySnapshot<T> {
    if (this.#last?.value !== value) {
      this.#last = {
        value,
        snapshot: {
          status: 'success',
          data: value,
          error: null,
          updatedAtMillis: this.#clock.now(),
          isFetching: false,
        },
      };
    }
    return this.#last.snapshot;
  }

  dispose(): void {
    this.#unfollow?.();
    this.#unfollow = null;
    this.#watchers.dispose();
  }
}

/**
 * A value computed from other values, as a Watchable (the broker's status, its diagnostics):
 * recomputed when a source says it changed, at most once per microtask, and only while someone
 * watches; `follow` subscribes to the sources and returns how to stop. Nothing polls.
 */
export function derivedValue<T>(compute: () => T, follow: (changed: () => void) => Array<() => void>): Watchable<T> {
  const watchers = new Emitter<T>();
  let current: T | null = null;
  let scheduled = false;
  let detach: Array<() => void> = [];

  const value = () => (current ??= compute());
  const changed = () => {
    current = null;
    if (scheduled || watchers.size === 0) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      if (watchers.size > 0) watchers.emit(value());
    });
  };

  return {
    current: () => (watchers.size > 0 ? value() : compute()),
    subscribe(listener) {
      if (watchers.size === 0) {
        current = null;
        detach = follow(changed);
      }
      const unsubscribe = watchers.subscribe(listener);
      return () => {
        unsubscribe();
        if (watchers.size === 0) {
          for (const stop of detach) stop();
          detach = [];
        }
      };
    },
  };
}
