import { fitsShape, KEPT_SHAPES } from '../../contract/keptShapes.js';
import type { PersistedKind } from '../../contract/persisted.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';

/**
 * The copy a tab keeps of what it showed, so that the next tab shows the user on its first render,
 * before the broker answers, and with no network at all. One record per service and project, in
 * `localStorage`: the only storage a page can read synchronously, which the first render needs (a
 * worker cannot reach it, so tabs write it). It holds the signed-in user's own data and the
 * project's public settings, for one user, bounded in size; never a token. This module reads it,
 * for the first render; writing it (`keptCopyWriter.ts`) loads with the connection, which brings what
 * is written.
 */
export interface StoredRecord {
  v: 1;
  userId: string;
  /** When this user's copy was started: of two tabs' copies for different users, the later one wins. */
  createdAtMillis?: number;
  savedAtMillis: number;
  entries: Record<string, { data: unknown; updatedAtMillis: number }>;
}

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

const isPast = (millis: unknown): millis is number =>
  typeof millis === 'number' && Number.isFinite(millis) && millis <= Date.now() + CLOCK_SLACK_MILLIS;

function isRecord(value: unknown): value is StoredRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<StoredRecord>;
  return (
    r.v === 1 &&
    typeof r.userId === 'string' &&
    isPast(r.savedAtMillis) &&
    (r.createdAtMillis === undefined || isPast(r.createdAtMillis)) &&
    typeof r.entries === 'object' &&
    r.entries !== null &&
    !Array.isArray(r.entries)
  );
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

/**
 * The kept copy of one service and project, as a tab reads it. An object of functions rather than a
 * class: its methods run before a page's first frame, and a class's methods compile at their first
 * call, where these compile with the script (the build compiles them ahead: scripts/compiledAhead.mjs).
 */
export interface PersistedSnapshots {
  readonly storageKey: string;
  readonly enabled: boolean;
  // Shared with the writer (keptCopyWriter.ts), which gets them here rather than importing this module.
  record: StoredRecord | null;
  /** Whether `record` came from storage (then a missing one there later means another tab cleared it). */
  fromStorage: boolean;
  loaded: boolean;
  /** Bumped whenever the copy stops being the one read before (cleared, another user): cached reads are stale. */
  version: number;
  /**
   * Writes the copy back, soon; set by the writer once loaded. Until then a read that dropped entries leaves
   * `unwritten`.
   */
  scheduleWrite: (() => void) | null;
  unwritten: boolean;
  /** Whether queries of this kind are kept. */
  keeps(kind: string): kind is PersistedKind;
  /** Whether there is a copy to show anything from (read once, like everything here). */
  hasCopy(): boolean;
  /** The kept snapshot of a query, marked stale; undefined when there is none. */
  read(key: string, spec: QuerySpec): QuerySnapshot | undefined;
  /**
   * The copy as it is in storage: read once, then kept in memory (null when there is none, or none that can be used).
   */
  load(): StoredRecord | null;
  /** For the writer: the storage, and whether a value read from it is a record of ours. */
  storage(): Storage | null;
  isRecord(value: unknown): value is StoredRecord;
}

/**
 * The kept copy under `storageKey`; `enabled` false deletes any copy kept so far. `ownStorage`
 * false: the storage is not the app's (a content script's is the web page's), so it is never
 * touched, not even cleared.
 */
export function persistedSnapshots(storageKey: string, enabled: boolean, ownStorage = true): PersistedSnapshots {
  if (!enabled && ownStorage) storage()?.removeItem(storageKey);
  function dropped(): void {
    if (kept.scheduleWrite) kept.scheduleWrite();
    else kept.unwritten = true;
  }
  const kept: PersistedSnapshots = {
    storageKey,
    enabled,
    record: null,
    fromStorage: false,
    loaded: false,
    version: 0,
    scheduleWrite: null,
    unwritten: false,
    keeps(kind: string): kind is PersistedKind {
      // The shapes are keyed by the kept kinds, every one (contract/persisted.ts's list): one list to read here.
      return enabled && Object.hasOwn(KEPT_SHAPES, kind);
    },
    hasCopy(): boolean {
      return enabled && kept.load() !== null;
    },
    read(key: string, spec: QuerySpec): QuerySnapshot | undefined {
      if (!kept.keeps(spec.kind)) return undefined;
      const record = kept.load();
      const entry = record?.entries[key];
      if (!record || !entry) return undefined;
      if (!fitsKind(spec.kind, entry.data, record.userId)) {
        // Not what the broker would have sent: never shown, and gone from the copy.
        delete record.entries[key];
        dropped();
        return undefined;
      }
      const userScoped = spec.kind !== 'project';
      return {
        status: 'success',
        data: entry.data,
        error: null,
        updatedAtMillis: entry.updatedAtMillis,
        isFetching: false,
        isStale: true,
        ...(userScoped ? { userId: record.userId } : {}),
      };
    },
    load(): StoredRecord | null {
      if (kept.loaded) return kept.record;
      kept.loaded = true;
      try {
        const text = storage()?.getItem(storageKey) ?? null;
        const parsed: unknown = text === null ? null : JSON.parse(text);
        // Anything unexpected (another version's format, a damaged value) is dropped, not trusted.
        kept.record = isRecord(parsed) ? parsed : null;
        kept.fromStorage = kept.record !== null;
        if (text !== null && kept.record === null) storage()?.removeItem(storageKey);
        if (kept.record !== null && dropMalformedEntries(kept.record)) dropped();
      } catch {
        kept.record = null;
        storage()?.removeItem(storageKey);
      }
      return kept.record;
    },
    storage,
    isRecord,
  };
  return kept;
}
