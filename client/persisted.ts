import { fitsShape, KEPT_SHAPES } from '../contract/keptShapes.js';
import { isPersistedKind, type PersistedKind } from '../contract/persisted.js';
import type { QuerySpec } from '../contract/queries.js';
import type { QuerySnapshot } from '../contract/snapshot.js';

/**
 * The copy a tab keeps of what it showed, so that the next tab shows the user on its first render,
 * before the broker answers, and with no network at all. One record per service and project, in
 * `localStorage`: the only storage a page can read synchronously, which the first render needs (a
 * worker cannot reach it, so tabs write it). It holds the signed-in user's own data and the
 * project's public settings, for one user, bounded in size; never a token.
 */
interface StoredRecord {
  v: 1;
  userId: string;
  /** When this user's copy was started: of two tabs' copies for different users, the later one wins. */
  createdAtMillis?: number;
  savedAtMillis: number;
  entries: Record<string, { data: unknown; updatedAtMillis: number }>;
}

/** Beyond this the copy is not written (a few hundred teams and channels fit well within it). */
export const MAX_PERSISTED_BYTES = 256 * 1024;

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Access can throw (storage disabled, sandboxed frames): then there is simply no copy.
    return null;
  }
}

/**
 * How far ahead of this tab's clock a kept date may be (the broker that dated it runs on the same
 * device). A later one is not believed: a copy dated in the future would never be replaced.
 */
const CLOCK_SLACK_MILLIS = 60_000;

const isPast = (millis: unknown): millis is number => typeof millis === 'number' && Number.isFinite(millis) && millis <= Date.now() + CLOCK_SLACK_MILLIS;

function isRecord(value: unknown): value is StoredRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<StoredRecord>;
  return r.v === 1 && typeof r.userId === 'string' && isPast(r.savedAtMillis) && (r.createdAtMillis === undefined || isPast(r.createdAtMillis)) && typeof r.entries === 'object' && r.entries !== null && !Array.isArray(r.entries);
}

/** Leaves in a record read from storage only entries that are an entry at all, dated in the past. */
function dropMalformedEntries(record: StoredRecord): boolean {
  let dropped = false;
  for (const [key, entry] of Object.entries(record.entries)) {
    if (typeof entry === 'object' && entry !== null && 'data' in entry && isPast(entry.updatedAtMillis)) continue;
    delete record.entries[key];
    dropped = true;
  }
  return dropped;
}

/** Whether a kept entry's data has its kind's shape (the signed-in user's own, for the user). */
function fitsKind(kind: PersistedKind, data: unknown, userId: string): boolean {
  return fitsShape(KEPT_SHAPES[kind], data) && (kind !== 'currentUser' || (data as { id: string }).id === userId);
}

export class PersistedSnapshots {
  private record: StoredRecord | null = null;
  /** Whether `record` came from storage (then a missing one there later means another tab cleared it). */
  private fromStorage = false;
  private loaded = false;
  private writeScheduled = false;
  /** Bumped whenever the copy stops being the one read before (cleared, another user): cached reads are stale. */
  version = 0;

  constructor(
    private readonly storageKey: string,
    private readonly enabled: boolean,
  ) {
    if (!enabled) storage()?.removeItem(storageKey);
    // Another tab signed out (or another user signed in): forget our copy at once.
    if (enabled && typeof addEventListener === 'function') {
      addEventListener('storage', (event: StorageEvent) => {
        if (event.key !== storageKey && event.key !== null) return;
        this.loaded = false;
        this.version++;
      });
    }
  }

  /** The kept snapshot of a query, marked stale; undefined when there is none. */
  read(key: string, spec: QuerySpec): QuerySnapshot | undefined {
    if (!this.enabled || !isPersistedKind(spec.kind)) return undefined;
    const record = this.load();
    const entry = record?.entries[key];
    if (!record || !entry) return undefined;
    if (!fitsKind(spec.kind, entry.data, record.userId)) {
      // Not what the broker would have sent: never shown, and gone from the copy.
      delete record.entries[key];
      this.scheduleWrite();
      return undefined;
    }
    const userScoped = spec.kind !== 'project';
    return { status: 'success', data: entry.data, error: null, updatedAtMillis: entry.updatedAtMillis, isFetching: false, isStale: true, ...(userScoped ? { userId: record.userId } : {}) };
  }

  /**
   * What the broker sent for a query: kept when it is persistable data of the signed-in user (or
   * the project's), and the record follows the user: another user's data starts a new record, and
   * no user (signed out) clears it.
   */
  remember(key: string, spec: QuerySpec, snapshot: QuerySnapshot): void {
    if (!this.enabled || !isPersistedKind(spec.kind) || snapshot.status !== 'success' || snapshot.data === undefined || snapshot.isStale) return;
    // Whose data it is: the user in it (currentUser), or the tag the broker puts on the signed-in
    // user's data. Nobody: the session ended, the copy goes. Someone else: a new copy for them.
    // (A broker of an older deploy does not tag: such data cannot be attributed, so it is not kept.)
    if (spec.kind !== 'project') {
      const owner = spec.kind === 'currentUser' ? ((snapshot.data as { id?: unknown } | null)?.id ?? null) : snapshot.userId;
      if (owner === undefined || (owner !== null && typeof owner !== 'string')) return;
      if (owner === null) return this.clear();
      this.ensureUser(owner);
    }
    const record = this.load();
    if (record === null) return;
    const kept = record.entries[key];
    if (kept !== undefined && kept.updatedAtMillis >= snapshot.updatedAtMillis) return;
    record.entries[key] = { data: snapshot.data, updatedAtMillis: snapshot.updatedAtMillis };
    this.scheduleWrite();
  }

  /** The session ended: the copy goes, in every tab (they share the storage). */
  clear(): void {
    this.record = null;
    this.loaded = true;
    this.version++;
    if (this.enabled) storage()?.removeItem(this.storageKey);
  }

  private ensureUser(userId: string): void {
    const record = this.load();
    if (record?.userId === userId) return;
    this.record = { v: 1, userId, createdAtMillis: Date.now(), savedAtMillis: Date.now(), entries: {} };
    this.fromStorage = false;
    this.loaded = true;
    this.version++;
  }

  private load(): StoredRecord | null {
    if (this.loaded) return this.record;
    this.loaded = true;
    try {
      const text = storage()?.getItem(this.storageKey) ?? null;
      const parsed: unknown = text === null ? null : JSON.parse(text);
      // Anything unexpected (another version's format, a damaged value) is dropped, not trusted.
      this.record = isRecord(parsed) ? parsed : null;
      this.fromStorage = this.record !== null;
      if (text !== null && this.record === null) storage()?.removeItem(this.storageKey);
      if (this.record !== null && dropMalformedEntries(this.record)) this.scheduleWrite();
    } catch {
      this.record = null;
      storage()?.removeItem(this.storageKey);
    }
    return this.record;
  }

  /** One write per burst of deliveries, after them. */
  private scheduleWrite(): void {
    if (this.writeScheduled) return;
    this.writeScheduled = true;
    setTimeout(() => {
      this.writeScheduled = false;
      const record = this.record;
      const store = storage();
      if (record === null || store === null) return;
      // Storage may have moved on meanwhile: cleared by a sign-out in another tab (a copy we had
      // read from there), or holding a later-started copy for another user. Then ours is out of date: drop it.
      let stored: unknown = null;
      try {
        stored = JSON.parse(store.getItem(this.storageKey) ?? 'null');
      } catch {
        stored = null;
      }
      const newerElsewhere = isRecord(stored) && stored.userId !== record.userId && (stored.createdAtMillis ?? 0) > (record.createdAtMillis ?? 0);
      if ((this.fromStorage && stored === null) || newerElsewhere) {
        this.loaded = false;
        this.record = null;
        return;
      }
      record.savedAtMillis = Date.now();
      const text = JSON.stringify(record);
      try {
        if (text.length > MAX_PERSISTED_BYTES) store.removeItem(this.storageKey);
        else {
          store.setItem(this.storageKey, text);
          this.fromStorage = true;
        }
      } catch {
        // Quota or disabled storage: the next tab just waits for the broker.
      }
    }, 50);
  }
}
