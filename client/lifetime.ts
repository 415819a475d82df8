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

export function newTabId(): string {
  return crypto.randomUUID();
}
