import { liveKey, readSessionRecord, type BrokerStorage, type OutboxItem, type StoredOAuthFlow, type StorageEvent } from './types.js';

export const DATABASE_NAME = 'authbroker';
/** Bump when the schema changes; `upgrade` below must then migrate from every older version. */
export const SCHEMA_VERSION = 1;

/**
 * The stores: `sessions` (by slot; read through `readSessionRecord`, since another deploy may have
 * written anything there), `oauthFlows` (by state, indexed by `createdAtMillis`) and `outbox` (by
 * an increasing id, indexed by `projectId`).
 */
type StoreName = 'sessions' | 'oauthFlows' | 'outbox';

/**
 * IndexedDB's events as promises, the little the broker needs of them (a wrapper library cost the
 * worker 1.2 kB min+gzip). Like any IndexedDB code, a transaction's work awaits only its own
 * requests: awaiting anything else lets the transaction commit under it.
 */
function settled<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `work` on `store` in one transaction; its result once the transaction has committed. */
async function transaction<T>(db: IDBDatabase, store: StoreName, mode: IDBTransactionMode, work: (store: IDBObjectStore) => Promise<T>): Promise<T> {
  const tx = db.transaction(store, mode);
  const committed = new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error ?? new DOMException('The transaction was aborted.', 'AbortError'));
  });
  // A failed request aborts the transaction: its own error is the one to report.
  committed.catch(() => undefined);
  const result = await work(tx.objectStore(store));
  await committed;
  return result;
}

/**
 * Opens the broker database. Schema changes only ever add stores or fields, so that an older
 * broker still running beside a newer deploy can keep reading a database the newer one upgraded:
 * when our version is older than the database's, we open it at its version and use what we know.
 */
async function openBrokerDatabase(onEvent: (event: StorageEvent) => void): Promise<IDBDatabase> {
  const open = (version?: number) => {
    const request = indexedDB.open(DATABASE_NAME, version);
    request.onupgradeneeded = (event) => {
      if (event.oldVersion < 1) {
        const database = request.result;
        database.createObjectStore('sessions', { keyPath: 'slot' });
        database.createObjectStore('oauthFlows', { keyPath: 'state' }).createIndex('createdAtMillis', 'createdAtMillis');
        database.createObjectStore('outbox', { keyPath: 'id', autoIncrement: true }).createIndex('projectId', 'projectId');
      }
    };
    return settled(request);
  };
  let db: IDBDatabase;
  try {
    db = await open(SCHEMA_VERSION);
  } catch (error) {
    if (!(error instanceof DOMException) || error.name !== 'VersionError') throw error;
    db = await open();
    const missing = (['sessions', 'oauthFlows', 'outbox'] as const).find((store) => !db.objectStoreNames.contains(store));
    if (missing !== undefined) {
      // Let go of it, or it would block the next upgrade or deletion.
      db.close();
      throw new Error(`The ${DATABASE_NAME} database lacks the ${missing} store.`);
    }
  }
  db.onversionchange = (event) => {
    // No new version: someone is deleting the database (site data cleared in another tab); a new
    // one: a newer broker wants to upgrade. Either way we let go; a deletion also ends the session.
    db.close();
    onEvent(event.newVersion === null ? { kind: 'cleared' } : { kind: 'closed' });
  };
  // The browser closed the connection itself (e.g. "clear site data"): the data is gone with it.
  db.onclose = () => onEvent({ kind: 'cleared' });
  return db;
}

/** IndexedDB storage. Throws when IndexedDB cannot be used at all. */
export async function createIndexedDbStorage(): Promise<BrokerStorage> {
  if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available here.');
  const listeners: Array<(event: StorageEvent) => void> = [];
  const emit = (event: StorageEvent) => {
    for (const listener of listeners) listener(event);
  };
  let db = await openBrokerDatabase(emit);
  let reopening: Promise<IDBDatabase> | null = null;
  let closedForever = false;

  // After a newer broker upgraded the schema, our old connection is closed: reopen (the next use
  // waits for it). After site data was cleared it is closed too and the database is gone: the
  // reopen waits for the deletion to finish and creates it anew, so a later sign-in is stored again.
  listeners.push(() => {
    if (closedForever || reopening !== null) return;
    reopening = openBrokerDatabase(emit);
    // Observed here so that a failed reopen is not an unhandled rejection; callers still see it.
    reopening.catch(() => undefined);
  });
  const database = async () => {
    const pending = reopening;
    if (pending) {
      try {
        db = await pending;
      } finally {
        if (reopening === pending) reopening = null;
      }
    }
    return db;
  };

  return {
    kind: 'indexeddb',
    loadSession: async (slot) => {
      const stored = await transaction(await database(), 'sessions', 'readonly', (store) => settled(store.get(slot)));
      const { record, problem } = readSessionRecord(stored, slot);
      if (problem !== null) emit({ kind: 'discarded', slot, problem });
      return record;
    },
    saveSession: async (record) => void (await transaction(await database(), 'sessions', 'readwrite', (store) => settled(store.put(record)))),
    replaceSession: async (record, expected) =>
      transaction(await database(), 'sessions', 'readwrite', async (store) => {
        const matches = liveKey(await settled(store.get(record.slot))) === expected;
        if (matches) await settled(store.put(record));
        return matches;
      }),
    removeSession: async (slot, expected) =>
      transaction(await database(), 'sessions', 'readwrite', async (store) => {
        const matches = liveKey(await settled(store.get(slot))) === expected;
        if (matches) await settled(store.delete(slot));
        return matches;
      }),
    putOAuthFlow: async (flow) => void (await transaction(await database(), 'oauthFlows', 'readwrite', (store) => settled(store.put(flow)))),
    takeOAuthFlow: async (state) =>
      transaction(await database(), 'oauthFlows', 'readwrite', async (store) => {
        const flow = (await settled(store.get(state))) as StoredOAuthFlow | undefined;
        if (flow) await settled(store.delete(state));
        return flow ?? null;
      }),
    pruneOAuthFlows: async (olderThan) =>
      transaction(await database(), 'oauthFlows', 'readwrite', async (store) => {
        const stale = await settled(store.index('createdAtMillis').getAllKeys(IDBKeyRange.upperBound(olderThan, true)));
        await Promise.all(stale.map((key) => settled(store.delete(key))));
      }),
    addOutbox: async (item) => {
      const { id: _id, ...rest } = item;
      await transaction(await database(), 'outbox', 'readwrite', (store) => settled(store.add(rest)));
    },
    listOutbox: async (projectId) => transaction(await database(), 'outbox', 'readonly', (store) => settled(store.index('projectId').getAll(projectId) as IDBRequest<OutboxItem[]>)),
    removeOutbox: async (id) => void (await transaction(await database(), 'outbox', 'readwrite', (store) => settled(store.delete(id)))),
    onEvent: (listener) => void listeners.push(listener),
    close: () => {
      closedForever = true;
      db.close();
      // A reopen still under way would otherwise leave its connection open, blocking later upgrades.
      reopening?.then((reopened) => reopened.close(), () => undefined);
    },
  };
}
