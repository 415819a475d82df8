import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import {
  liveKey,
  readSessionRecord,
  type BrokerStorage,
  type OutboxItem,
  type SessionRecord,
  type StoredOAuthFlow,
  type StorageEvent,
} from './types.js';

export const DATABASE_NAME = 'authbroker';
/** Bump when the schema changes; `upgrade` below must then migrate from every older version. */
export const SCHEMA_VERSION = 1;

interface BrokerDB extends DBSchema {
  /** Read through `readSessionRecord`: another deploy may have written anything here. */
  sessions: { key: string; value: SessionRecord };
  oauthFlows: { key: string; value: StoredOAuthFlow; indexes: { createdAtMillis: number } };
  outbox: { key: number; value: OutboxItem; indexes: { projectId: string } };
}

/**
 * Opens the broker database. Schema changes only ever add stores or fields, so that an older
 * broker still running beside a newer deploy can keep reading a database the newer one upgraded:
 * when our version is older than the database's, we open it at its version and use what we know.
 */
async function openBrokerDatabase(onEvent: (event: StorageEvent) => void): Promise<IDBPDatabase<BrokerDB>> {
  const handlers = {
    blocking(_current: number, blocked: number | null) {
      // null: someone is deleting the database (site data cleared in another tab); a number: a newer
      // broker wants to upgrade. Either way we let go; a deletion also ends the session.
      db?.close();
      onEvent(blocked === null ? { kind: 'cleared' } : { kind: 'closed' });
    },
    terminated() {
      // The browser killed the connection (e.g. "clear site data"): the data is gone with it.
      onEvent({ kind: 'cleared' });
    },
  };
  let db: IDBPDatabase<BrokerDB> | undefined;
  const open = (version?: number) =>
    openDB<BrokerDB>(DATABASE_NAME, version, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('sessions', { keyPath: 'slot' });
          database
            .createObjectStore('oauthFlows', { keyPath: 'state' })
            .createIndex('createdAtMillis', 'createdAtMillis');
          database
            .createObjectStore('outbox', { keyPath: 'id', autoIncrement: true })
            .createIndex('projectId', 'projectId');
        }
      },
      ...handlers,
    });
  try {
    db = await open(SCHEMA_VERSION);
  } catch (error) {
    if (!(error instanceof DOMException) || error.name !== 'VersionError') throw error;
    db = await open();
    for (const store of ['sessions', 'oauthFlows', 'outbox'] as const) {
      if (!db.objectStoreNames.contains(store))
        throw new Error(`The ${DATABASE_NAME} database (newer schema) lacks the ${store} store.`);
    }
  }
  return db;
}

/** IndexedDB storage through `idb`. Throws when IndexedDB cannot be used at all. */
export async function createIndexedDbStorage(): Promise<BrokerStorage> {
  if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available here.');
  const listeners: Array<(event: StorageEvent) => void> = [];
  const emit = (event: StorageEvent) => {
    for (const listener of listeners) listener(event);
  };
  let db = await openBrokerDatabase(emit);
  let reopening: Promise<IDBPDatabase<BrokerDB>> | null = null;
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
      const { record, problem } = readSessionRecord(await (await database()).get('sessions', slot), slot);
      if (problem !== null) emit({ kind: 'discarded', slot, problem });
      return record;
    },
    saveSession: async (record) => void (await (await database()).put('sessions', record)),
    replaceSession: async (record, expected) => {
      const tx = (await database()).transaction('sessions', 'readwrite');
      const current = await tx.store.get(record.slot);
      const matches = liveKey(current) === expected;
      if (matches) await tx.store.put(record);
      await tx.done;
      return matches;
    },
    removeSession: async (slot, expected) => {
      const tx = (await database()).transaction('sessions', 'readwrite');
      const matches = liveKey(await tx.store.get(slot)) === expected;
      if (matches) await tx.store.delete(slot);
      await tx.done;
      return matches;
    },
    putOAuthFlow: async (flow) => void (await (await database()).put('oauthFlows', flow)),
    takeOAuthFlow: async (state) => {
      const tx = (await database()).transaction('oauthFlows', 'readwrite');
      const flow = await tx.store.get(state);
      if (flow) await tx.store.delete(state);
      await tx.done;
      return flow ?? null;
    },
    pruneOAuthFlows: async (olderThan) => {
      const tx = (await database()).transaction('oauthFlows', 'readwrite');
      let cursor = await tx.store.index('createdAtMillis').openCursor(IDBKeyRange.upperBound(olderThan, true));
      while (cursor) {
        await cursor.delete();
        cursor = await cursor.continue();
      }
      await tx.done;
    },
    addOutbox: async (item) => {
      const { id: _id, ...rest } = item;
      await (await database()).add('outbox', rest as OutboxItem);
    },
    listOutbox: async (projectId) => (await database()).getAllFromIndex('outbox', 'projectId', projectId),
    removeOutbox: async (id) => void (await (await database()).delete('outbox', id)),
    onEvent: (listener) => void listeners.push(listener),
    close: () => {
      closedForever = true;
      db.close();
      // A reopen still under way would otherwise leave its connection open, blocking later upgrades.
      reopening?.then(
        (reopened) => reopened.close(),
        () => undefined,
      );
    },
  };
}
