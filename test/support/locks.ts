import type { LockManagerLike } from '../../worker/coordination/locks.js';

/**
 * An in-memory Web Locks stand-in for Node (which has no navigator.locks): exclusive locks granted
 * in request order, `ifAvailable`, `steal`, and abort of a pending request. Share one instance between
 * brokers and simulated tabs to stand for one browser origin.
 */
export class LocalLockManager implements LockManagerLike {
  private held = new Set<string>();
  private queues = new Map<string, Array<() => void>>();
  /** Who holds each lock now: a steal makes that holder's request reject, as in browsers. */
  private holders = new Map<string, { stolen(): void }>();

  async request<T>(
    name: string,
    options: { ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T> {
    if (options.steal) {
      this.holders.get(name)?.stolen();
      return this.run(name, callback);
    }
    if (options.ifAvailable) {
      if (this.held.has(name)) return callback(null);
      return this.run(name, callback);
    }
    if (this.held.has(name)) {
      await new Promise<void>((resolve, reject) => {
        const queue = this.queues.get(name) ?? [];
        const grant = () => {
          options.signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.queues.set(
            name,
            (this.queues.get(name) ?? []).filter((g) => g !== grant),
          );
          reject(new DOMException('The lock request was aborted.', 'AbortError'));
        };
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(grant);
        this.queues.set(name, queue);
      });
    } else if (options.signal?.aborted) {
      throw new DOMException('The lock request was aborted.', 'AbortError');
    }
    return this.run(name, callback);
  }

  private async run<T>(name: string, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
    this.held.add(name);
    let stolen!: (error: unknown) => void;
    const whenStolen = new Promise<never>((_, reject) => (stolen = reject));
    const holder = {
      stolen: () => stolen(new DOMException('The lock was taken by another request (steal).', 'AbortError')),
    };
    this.holders.set(name, holder);
    try {
      return await Promise.race([callback({ name }), whenStolen]);
    } finally {
      // A holder whose lock was stolen no longer frees it: the thief does, in its turn.
      if (this.holders.get(name) === holder) {
        this.holders.delete(name);
        const next = this.queues.get(name)?.shift();
        if (next) next();
        else this.held.delete(name);
      }
    }
  }

  isHeld(name: string): boolean {
    return this.held.has(name);
  }

  /** The locks held now and those waited for, by name (as `navigator.locks.query()` tells a page). */
  query(): { held: string[]; pending: string[] } {
    return { held: [...this.held], pending: [...this.queues].flatMap(([name, queue]) => queue.map(() => name)) };
  }
}

/** Holds a lock until `release()` is called: a tab's lifetime lock. */
export function holdLock(locks: LocalLockManager, name: string): { ready: Promise<void>; release: () => void } {
  let release!: () => void;
  let acquired!: () => void;
  const ready = new Promise<void>((resolve) => (acquired = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  locks
    .request(name, {}, async () => {
      acquired();
      await held;
    })
    // Taken from it by another page (steal): what the test does next says what the tab does.
    .catch(() => undefined);
  return { ready, release };
}
