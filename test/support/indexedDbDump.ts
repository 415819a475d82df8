/**
 * Every record of every store of every IndexedDB database this realm sees, as one text. Self-
 * contained (globals only), so a page can run it too: `page.evaluate(everythingStored)`.
 */
export async function everythingStored(): Promise<string> {
  const dumps: unknown[] = [];
  for (const { name } of await indexedDB.databases()) {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(name!);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    for (const store of [...db.objectStoreNames]) {
      const all = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      dumps.push({ name, store, all });
    }
    db.close();
  }
  return JSON.stringify(dumps);
}
