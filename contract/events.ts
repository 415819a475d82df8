/**
 * The one event primitive of the broker and the tab: `subscribe` returns its own unsubscribe,
 * which is idempotent, and a listener added or removed while an event is being delivered takes
 * effect from the next event.
 */
export class Emitter<T = void> {
  #listeners = new Set<(value: T) => void>();

  subscribe(listener: (value: T) => void): () => void {
    // Wrapped so that the same function subscribed twice is two subscriptions.
    const entry = (value: T) => listener(value);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.#listeners]) listener(value);
  }

  get size(): number {
    return this.#listeners.size;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

/** A value that changes over time and tells its watchers: session state, connectivity, status. */
export interface Watchable<T> {
  /** The value now. */
  current(): T;
  /** Calls `listener` with each new value; returns the function that stops it. */
  subscribe(listener: (value: T) => void): () => void;
}
