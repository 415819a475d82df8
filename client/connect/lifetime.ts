/**
 * Each tab holds a Web Lock for as long as it lives, and watches the one its broker holds. Ports say
 * nothing when the other side closes or crashes; a lock freed by the browser does. But any page of
 * the origin sees lock names and can take a held lock (`steal`) and let it go, so a freed lock is
 * only a reason to ask: the side still there answers over its own port, and takes a fresh lock if
 * its own was taken.
 */

/** How long a broker has to answer once its lock is freed before the tab counts it as gone. */
export const BROKER_CONFIRM_MILLIS = 3000;

function lockManager(): LockManager | undefined {
  return (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
}

/**
 * Takes the tab's lifetime lock; resolves with its name once held (undefined without Web Locks).
 * If another page takes it, a fresh one is taken and `onRenewed` is told its name, to pass on to
 * the broker.
 */
export function holdTabLock(tabId: string, onRenewed?: (lockName: string) => void): Promise<string | undefined> {
  const locks = lockManager();
  if (!locks) return Promise.resolve(undefined);
  let taken = 0;
  return new Promise((resolve) => {
    const take = () => {
      const name = taken === 0 ? `authbroker:tab:${tabId}` : `authbroker:tab:${tabId}:${taken}`;
      const first = taken === 0;
      taken += 1;
      let holding = false;
      locks
        .request(name, () => {
          holding = true;
          if (first) resolve(name);
          else onRenewed?.(name);
          // Never settles: released by the browser when the tab goes away.
          return new Promise<never>(() => undefined);
        })
        .catch(() => {
          // Held and then lost: another page took it.
          if (holding) take();
          else if (first) resolve(undefined);
        });
    };
    take();
  });
}

/**
 * Resolves when whoever holds `lockName` lets it go. Never, if nobody holds it now or the page has
 * no Web Locks: a free lock says nothing about anyone.
 */
export async function whenReleased(lockName: string): Promise<void> {
  const locks = lockManager();
  const never = new Promise<never>(() => undefined);
  if (!locks) return never;
  try {
    const held = await locks.request(lockName, { ifAvailable: true }, (lock) => lock === null);
    if (!held) return never;
    await locks.request(lockName, () => undefined);
  } catch {
    return never;
  }
}

/**
 * Resolves when the broker holding `lockName` is gone: its lock was freed and `ask` (a call over
 * this tab's own port, answered with the name of the lock the broker holds now) got no answer in
 * time. A broker that answers goes on being watched under the name it gives.
 */
export async function whenBrokerGone(lockName: string, ask: () => Promise<string | null>): Promise<void> {
  let name = lockName;
  for (;;) {
    await whenReleased(name);
    const answer = await answeredWithin(ask(), BROKER_CONFIRM_MILLIS);
    if (answer === undefined) return;
    // A broker without a lock (it could not take a fresh one) cannot be watched any more.
    if (answer === null) return new Promise<never>(() => undefined);
    name = answer;
  }
}

/** `promise`, or `error()` when it has not settled within `millis`; the timer is cleared either way. */
export function rejectAfter<T>(promise: Promise<T>, millis: number, error: () => unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(error()), millis);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (failure: unknown) => {
        clearTimeout(timer);
        reject(failure);
      },
    );
  });
}

/**
 * The answer, or undefined when there is none in time (or the call failed: the broker is gone or closed the
 * connection).
 */
export function answeredWithin<T>(answer: Promise<T>, millis: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), millis);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

export function newTabId(): string {
  return crypto.randomUUID();
}
