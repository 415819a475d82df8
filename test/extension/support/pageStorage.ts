import type { Page } from 'puppeteer-core';

/**
 * Everything a web page's own scripts can read of the storage its origin has: IndexedDB (every
 * database, every store, every record), localStorage, sessionStorage, cookies, and the DOM (where a
 * content script's UI lives). Run in the page's main world, as the page's scripts would.
 */
export async function pageStorageDump(page: Page): Promise<{ text: string; databases: string[] }> {
  return page.evaluate(async () => {
    const parts: string[] = [];
    const names = (await indexedDB.databases()).map((d) => d.name ?? '');
    for (const name of names) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const records = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(store).objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result as unknown[]);
          request.onerror = () => reject(request.error);
        });
        parts.push(JSON.stringify(records));
      }
      db.close();
    }
    for (const storage of [localStorage, sessionStorage]) {
      for (let i = 0; i < storage.length; i += 1) parts.push(`${storage.key(i)}=${storage.getItem(storage.key(i)!)}`);
    }
    parts.push(document.cookie, document.documentElement.outerHTML);
    return { text: parts.join('\n'), databases: names };
  });
}
