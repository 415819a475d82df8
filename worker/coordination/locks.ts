/** The part of the Web Locks API the broker uses (navigator.locks, or a stand-in in tests). */
export interface LockManagerLike {
  /** Runs `callback` while holding the named lock, as `navigator.locks.request` does. */
  request<T>(
    name: string,
    options: { mode?: 'exclusive' | 'shared'; ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T>;
}

export function browserLocks(): LockManagerLike | null {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks ?? null;
}

/** A lock held for the holder's life, whose name tabs watch. */
export interface LifetimeLock {
  /**
   * The name held now, once held: the first one, or a fresh one taken after another page took it; null if that failed.
   */
  current(): Promise<string | null>;
  release(): void;
}

/**
 * Takes a lock and keeps it until `release()` (or until this worker ends, when the browser frees
 * it); resolves once it is held. Any page of the origin can take a held lock from its holder
 * (`steal`): the holder then takes a fresh one (`name:1`, `name:2`, …), so that there is always a
 * held lock for tabs to watch. Null without Web Locks, or if the lock cannot be taken.
 */
export async function holdUntilReleased(locks: LockManagerLike | null, name: string): Promise<LifetimeLock | null> {
  if (locks === null) return null;
  let released = false;
  let release!: () => void;
  const stopped = new Promise<void>((resolve) => {
    release = () => {
      released = true;
      resolve();
    };
  });
  let taken = 0;
  const take = (): Promise<string | null> =>
    new Promise((held) => {
      const lockName = taken === 0 ? name : `${name}:${taken}`;
      taken += 1;
      let holding = false;
      locks
        .request(lockName, { mode: 'exclusive' }, () => {
          holding = true;
          held(lockName);
          return stopped;
        })
        .catch(() => {
          if (holding && !released) current = take();
          else held(null);
        });
    });
  let current = take();
  if ((await current) === null) return null;
  return { current: () => current, release };
}

/**
 * Runs `fn` holding an exclusive lock, waiting at most `timeoutMillis` for it. If the wait times
 * out (a stuck peer), `fn` runs anyway: for the refresh that costs at worst a second token request,
 * which is harmless because the service does not rotate refresh tokens — much better than stalling.
 * Without Web Locks at all (insecure contexts) it simply runs.
 */
export async function withLock<T>(
  locks: LockManagerLike | null,
  name: string,
  timeoutMillis: number,
  fn: () => Promise<T>,
): Promise<{ value: T; locked: boolean }> {
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
    if (controller.signal.aborted && (error as { name?: string } | null)?.name === 'AbortError')
      return { value: await fn(), locked: false };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A lock kept by `keepLock`. */
export interface KeptLock {
  /** Whether it was taken: false at once when `ifAvailable` and someone else held it; else once it is held. */
  readonly held: Promise<boolean>;
  release(): void;
}

/**
 * Holds `name` until `release()`. Any page of the origin can take a held lock (`steal`): this then
 * queues for it again, so that the holder is never nobody for longer than the thief keeps it (a
 * lock whose holder gives up after a steal can be left with no holder by two). With `ifAvailable`,
 * the first request gives up if someone else holds it (`held` is false) and nothing is kept.
 */
export function keepLock(
  locks: Pick<LockManagerLike, 'request'>,
  name: string,
  { ifAvailable = false } = {},
): KeptLock {
  const controller = new AbortController();
  let released = false;
  let letGo = () => undefined as void;
  let first = true;
  let answer!: (held: boolean) => void;
  const held = new Promise<boolean>((resolve) => (answer = resolve));
  const take = (): void => {
    const once = first && ifAvailable;
    first = false;
    locks
      .request(name, { ifAvailable: once, signal: controller.signal }, (lock) => {
        if (lock === null) return answer(false);
        answer(true);
        return released ? undefined : new Promise<void>((resolve) => (letGo = resolve));
      })
      .catch(() => {
        // Taken from us (or our request aborted by `release`): queue again unless let go.
        if (!released) take();
      });
  };
  take();
  return {
    held,
    release() {
      released = true;
      controller.abort();
      letGo();
    },
  };
}
