import type { LockManagerLike } from '../../worker/locks.js';

/**
 * An in-memory Web Locks stand-in for Node (which has no navigator.locks): exclusive locks granted
 * in request order, `ifAvailable`, and abort of a pending request. Share one instance between
 * brokers and simulated tabs to stand for one browser origin.
 */
export class LocalLockManager implements LockManagerLike {
  private held = new Set<string>();
  private queues = new Map<string, Array<() => void>>();

  async request<T>(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
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
          this.queues.set(name, (this.queues.get(name) ?? []).filter((g) => g !== grant));
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
    return this.run(name, callback, true);
  }

  private async run<T>(name: string, callback: (lock: unknown) => Promise<T> | T, alreadyGranted = false): Promise<T> {
    if (!alreadyGranted) this.held.add(name);
    else this.held.add(name);
    try {
      return await callback({ name });
    } finally {
      const next = this.queues.get(name)?.shift();
      if (next) next();
      else this.held.delete(name);
    }
  }

  isHeld(name: string): boolean {
    return this.held.has(name);
  }
}

/** Holds a lock until `release()` is called: a tab's lifetime lock. */
export function holdLock(locks: LocalLockManager, name: string): { ready: Promise<void>; release: () => void } {
  let release!: () => void;
  let acquired!: () => void;
  const ready = new Promise<void>((resolve) => (acquired = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  void locks.request(name, {}, async () => {
    acquired();
    await held;
  });
  return { ready, release };
}
