/**
 * Where writes wait out an outage: a database of their own (`authbroker-writes`, through idb), so that the broker's
 * session database keeps its schema and a broker that never queues a write never opens this one. One record per
 * write, in the order they were made (the store's own increasing key); `queue` is the broker key, so that two
 * projects or services never see each other's writes. Brokers whose tokens stay in memory keep their writes in memory
 * too: a session that does not outlive the tabs leaves no write of its user on the device either.
 */
import type { DBSchema, IDBPDatabase } from 'idb';
import type { AppRequest, PendingChangeState } from '../../contract/appRequests.js';
import type { SerializedError } from '../../protocol/errors/errors.js';
import type { WriteKit } from './writeKit.js';

export const WRITES_DATABASE = 'authbroker-writes';
const VERSION = 1;

/** One write, as kept. */
export interface StoredWrite {
  /** The store's key: the order writes were made in, across every tab and broker of the origin. */
  seq?: number;
  id: string;
  /** The broker key (`brokerKeyOf`). */
  queue: string;
  /** Whose write it is: sent only in this user's session. */
  userId: string;
  kind: 'action' | 'request';
  label: string;
  createdAtMillis: number;
  /** `applied`: sent and answered (kept a moment for a broker that waits for it; never shown). */
  state: PendingChangeState | 'applied';
  attempts: number;
  /** Sends the service (or the app's API) answered with a failure (5xx, 429): MAX_FAILED_SENDS of them refuse it. */
  failedSends: number;
  /** A send may have reached the service and its answer been lost: checked (or idempotent) before it goes again. */
  uncertain: boolean;
  /** What to send (gone once the write is refused, dropped or applied). */
  action?: { method: string; args: unknown[] } | undefined;
  request?: AppRequest | undefined;
  error: SerializedError | null;
  /** An applied write's answer, for a waiter in another broker. */
  result?: unknown;
  updatedAtMillis: number;
}

export interface WriteStore {
  /** Adds a write; answers it with its `seq`. */
  add(write: StoredWrite): Promise<StoredWrite>;
  /** The writes of `queue`, oldest first. */
  list(queue: string): Promise<StoredWrite[]>;
  put(write: StoredWrite): Promise<void>;
  remove(seq: number): Promise<void>;
  close(): void;
}

interface WritesDB extends DBSchema {
  writes: { key: number; value: StoredWrite; indexes: { queue: string } };
}

export async function openIndexedDbWrites(openDB: WriteKit['openDB']): Promise<WriteStore> {
  const db: IDBPDatabase<WritesDB> = await openDB<WritesDB>(WRITES_DATABASE, VERSION, {
    upgrade(database) {
      database.createObjectStore('writes', { keyPath: 'seq', autoIncrement: true }).createIndex('queue', 'queue');
    },
    blocking() {
      db.close();
    },
  });
  return {
    async add(write) {
      const { seq: _seq, ...rest } = write;
      const seq = await db.add('writes', rest as StoredWrite);
      return { ...rest, seq };
    },
    // An index's records come in the order of their primary key within one index value: the order they were made.
    list: (queue) => db.getAllFromIndex('writes', 'queue', queue),
    put: async (write) => void (await db.put('writes', write)),
    remove: (seq) => db.delete('writes', seq),
    close: () => db.close(),
  };
}

export function memoryWrites(): WriteStore {
  const writes = new Map<number, StoredWrite>();
  let next = 1;
  return {
    async add(write) {
      const stored = { ...write, seq: next++ };
      writes.set(stored.seq, stored);
      return { ...stored };
    },
    list: async (queue) => [...writes.values()].filter((w) => w.queue === queue).map((w) => ({ ...w })),
    put: async (write) => void writes.set(write.seq!, { ...write }),
    remove: async (seq) => void writes.delete(seq),
    close: () => writes.clear(),
  };
}

/** IndexedDB, or memory where the tokens stay in memory or IndexedDB cannot be opened (`warn` says so). */
export async function openWriteStore(
  inMemory: boolean,
  openDB: WriteKit['openDB'],
  warn: (message: string) => void,
): Promise<WriteStore> {
  if (inMemory || typeof indexedDB === 'undefined') return memoryWrites();
  try {
    return await openIndexedDbWrites(openDB);
  } catch (error) {
    warn(
      `Writes made offline are kept in memory only (IndexedDB: ${error instanceof Error ? error.message : String(error)}): they are lost if every tab closes first.`,
    );
    return memoryWrites();
  }
}
