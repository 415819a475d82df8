/**
 * Writing the copy a tab keeps between visits (`keptCopyReader.ts` reads it). Only what the broker
 * sends is written, so this loads with the connection (`connect/connection.ts`), after the first
 * render; it gets the reader's state and helpers from the reader itself rather than importing its
 * module (see `TabErrors` for why).
 */
import type { QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import type { PersistedSnapshots } from './keptCopyReader.js';

/** Beyond this the copy is not written (a few hundred teams and channels fit well within it). */
export const MAX_PERSISTED_BYTES = 256 * 1024;

/**
 * Writes the copy to storage, unless storage moved on meanwhile: cleared by a sign-out in another
 * tab (a copy we had read from there), or holding a later-started copy for another user. Then ours
 * is out of date, and is dropped instead.
 */
function writeBack(kept: PersistedSnapshots): void {
  const record = kept.record;
  const store = kept.storage();
  if (record === null || store === null) return;
  let stored: unknown = null;
  try {
    stored = JSON.parse(store.getItem(kept.storageKey) ?? 'null');
  } catch {
    stored = null;
  }
  const newerElsewhere =
    kept.isRecord(stored) &&
    stored.userId !== record.userId &&
    (stored.createdAtMillis ?? 0) > (record.createdAtMillis ?? 0);
  if ((kept.fromStorage && stored === null) || newerElsewhere) {
    kept.loaded = false;
    kept.record = null;
    return;
  }
  record.savedAtMillis = Date.now();
  const text = JSON.stringify(record);
  try {
    if (text.length > MAX_PERSISTED_BYTES) store.removeItem(kept.storageKey);
    else {
      store.setItem(kept.storageKey, text);
      kept.fromStorage = true;
    }
  } catch {
    // Quota or disabled storage: the next tab just waits for the broker.
  }
}

/** The session ended: the copy goes, in every tab (they share the storage). */
function clearCopy(kept: PersistedSnapshots): void {
  kept.record = null;
  kept.loaded = true;
  kept.version++;
  kept.storage()?.removeItem(kept.storageKey);
}

/** The copy is `userId`'s from now on: a new record when it held another user's (or nobody's). */
function copyFor(kept: PersistedSnapshots, userId: string): void {
  if (kept.load()?.userId === userId) return;
  kept.record = { v: 1, userId, createdAtMillis: Date.now(), savedAtMillis: Date.now(), entries: {} };
  kept.fromStorage = false;
  kept.loaded = true;
  kept.version++;
}

/** Keeps snapshots in `kept` from now on; writes back what reading it dropped meanwhile. */
export function keepSnapshots(
  kept: PersistedSnapshots,
): (key: string, spec: QuerySpec, snapshot: QuerySnapshot) => void {
  let writeScheduled = false;

  /** One write per burst of deliveries, after them. */
  const scheduleWrite = () => {
    if (writeScheduled) return;
    writeScheduled = true;
    setTimeout(() => {
      writeScheduled = false;
      writeBack(kept);
    }, 50);
  };

  // Another tab signed out (or another user signed in): forget our copy at once. Listened to from
  // here, after the first render: in Chromium adding a `storage` listener costs the page 0.2–2 ms,
  // and until the broker answers this tab shows what it read at start anyway.
  if (kept.enabled && typeof addEventListener === 'function') {
    addEventListener('storage', (event: StorageEvent) => {
      if (event.key !== kept.storageKey && event.key !== null) return;
      kept.loaded = false;
      kept.version++;
    });
  }
  kept.scheduleWrite = scheduleWrite;
  if (kept.unwritten) {
    kept.unwritten = false;
    scheduleWrite();
  }

  /**
   * What the broker sent for a query: kept when it is persistable data of the signed-in user (or
   * the project's), and the record follows the user: another user's data starts a new record, and
   * no user (signed out) clears it.
   */
  return (key, spec, snapshot) => {
    if (!kept.keeps(spec.kind) || snapshot.status !== 'success' || snapshot.data === undefined || snapshot.isStale)
      return;
    // Whose data it is: the user in it (currentUser), or the tag the broker puts on the signed-in
    // user's data. Nobody: the session ended, the copy goes. Someone else: a new copy for them.
    // (A broker of an older deploy does not tag: such data cannot be attributed, so it is not kept.)
    if (spec.kind !== 'project') {
      const owner =
        spec.kind === 'currentUser' ? ((snapshot.data as { id?: unknown } | null)?.id ?? null) : snapshot.userId;
      if (owner === undefined || (owner !== null && typeof owner !== 'string')) return;
      if (owner === null) return clearCopy(kept);
      copyFor(kept, owner);
    }
    const record = kept.load();
    if (record === null) return;
    const entry = record.entries[key];
    if (entry !== undefined && entry.updatedAtMillis >= snapshot.updatedAtMillis) return;
    record.entries[key] = { data: snapshot.data, updatedAtMillis: snapshot.updatedAtMillis };
    scheduleWrite();
  };
}
