/**
 * Each tab holds a Web Lock named after itself for as long as it lives. Ports say nothing when a
 * tab closes or crashes; the broker waits for this lock instead, and is granted it when the tab is gone.
 */
export function holdTabLock(tabId: string): Promise<string | undefined> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  if (!locks) return Promise.resolve(undefined);
  const name = `authbroker:tab:${tabId}`;
  return new Promise((resolve) => {
    locks
      .request(name, () => {
        resolve(name);
        // Never settles: released by the browser when the tab goes away.
        return new Promise<never>(() => undefined);
      })
      .catch(() => resolve(undefined));
  });
}

/**
 * Resolves when whoever holds `lockName` lets it go (the broker's worker ended). Never, if nobody
 * holds it now or the page has no Web Locks: a free lock says nothing about anyone.
 */
export async function whenReleased(lockName: string): Promise<void> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
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

export function newTabId(): string {
  return crypto.randomUUID();
}
