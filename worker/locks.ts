/** The part of the Web Locks API the broker uses (navigator.locks, or a stand-in in tests). */
export interface LockManagerLike {
  request<T>(name: string, options: { mode?: 'exclusive' | 'shared'; ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<T> | T): Promise<T>;
}

export function browserLocks(): LockManagerLike | null {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks ?? null;
}

/**
 * Takes a lock and keeps it until `release()` (or until this worker ends, when the browser frees
 * it); resolves once it is held. Null without Web Locks, or if the lock cannot be taken.
 */
export async function holdUntilReleased(locks: LockManagerLike | null, name: string): Promise<{ name: string; release(): void } | null> {
  if (locks === null) return null;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  try {
    await new Promise<void>((held, failed) => {
      locks.request(name, { mode: 'exclusive' }, () => {
        held();
        return released;
      }).catch(failed);
    });
  } catch {
    return null;
  }
  return { name, release };
}

/**
 * Runs `fn` holding an exclusive lock, waiting at most `timeoutMillis` for it. If the wait times
 * out (a stuck peer), `fn` runs anyway: for the refresh that costs at worst a second token request,
 * which is harmless because the service does not rotate refresh tokens — much better than stalling.
 * Without Web Locks at all (insecure contexts) it simply runs.
 */
export async function withLock<T>(locks: LockManagerLike | null, name: string, timeoutMillis: number, fn: () => Promise<T>): Promise<{ value: T; locked: boolean }> {
  if (locks === null) return { value: await fn(), locked: false };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMillis);
  try {
    const value = await locks.request(name, { mode: 'exclusive', signal: controller.signal }, async () => {
      clearTimeout(timer);
      return fn();
    });
    return { value, locked: true };
  } catch (error) {
    if (controller.signal.aborted && (error as { name?: string } | null)?.name === 'AbortError') return { value: await fn(), locked: false };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
