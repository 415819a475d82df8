import type { SessionEnd } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import type { Bus } from '../coordination/bus.js';
import type { BrokerStorage, EndedSession } from '../storage/types.js';
import type { HeldSession } from './heldSession.js';

/** Waits between attempts to store a sign-out that storage refused: 1 s, doubling, at most a minute. */
const RETRY_MILLIS = 1000;
const RETRY_MAX_MILLIS = 60_000;

export interface EndRecordsOptions {
  slot: string;
  storage: BrokerStorage;
  bus: Bus;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  onStorageError?: ((error: unknown) => void) | undefined;
  onWarning?: ((warning: string) => void) | undefined;
}

export interface EndRecords {
  /**
   * Stores `tombstone` over the session it ends: whether the record was replaced, or null when
   * storage refused.
   */
  store(tombstone: EndedSession): Promise<boolean | null>;
  /** Whether an end is still waiting to be stored (storage refused it so far). */
  pending(): boolean;
  /** The broker is stopping: no more retries of a sign-out its closed storage could not take anyway. */
  close(): void;
}

/**
 * A session's end, recorded in storage. When storage refuses (quota, a broken database), the end is
 * held in memory, the stale record is deleted if storage allows that much, and the write is retried
 * with growing waits until it succeeds: a broker that starts later must not find the session alive.
 */
export function endRecords({ slot, storage, bus, clock, onStorageError, onWarning }: EndRecordsOptions): EndRecords {
  /** A sign-out storage refused to record: retried until it is, meanwhile held in memory. */
  let waiting: { record: EndedSession; waitMillis: number; retry: unknown } | null = null;
  let closed = false;
  const store = async (tombstone: EndedSession): Promise<boolean | null> => {
    const key = tombstone.sessionKey!;
    try {
      const replaced = await storage.replaceSession(tombstone, key);
      if (waiting?.record === tombstone) {
        waiting = null;
        // Stored at last: other brokers read it now rather than whenever they next look.
        bus.post({ type: 'session', slot, sessionKey: null, end: tombstone.end, endedSessionKey: key });
      }
      return replaced;
    } catch (error) {
      onStorageError?.(error);
      if (waiting?.record !== tombstone) {
        onWarning?.('The sign-out could not be saved (retrying): a browser restart before then could undo it.');
        await storage.removeSession(slot, key).catch(() => false);
        waiting = { record: tombstone, waitMillis: RETRY_MILLIS, retry: null };
      }
      const retrying = waiting!;
      if (!closed) retrying.retry = clock.setTimeout(() => void store(tombstone), retrying.waitMillis);
      retrying.waitMillis = Math.min(retrying.waitMillis * 2, RETRY_MAX_MILLIS);
      return null;
    }
  };
  return {
    store,
    pending: () => waiting !== null,
    close() {
      closed = true;
      if (waiting !== null) clock.clearTimeout(waiting.retry);
    },
  };
}

/**
 * Ends the session `held` holds (only if it is still `expectedKey`, when given) and tells every broker why. The
 * reason is stored too, so a broker that only reads storage later reports the same one; when the end no longer
 * replaces what storage holds, storage is read again (`reload`).
 */
export async function endHeldSession(
  held: HeldSession,
  records: EndRecords,
  options: { slot: string; bus: Bus; clock: Pick<Clock, 'now'> },
  end: SessionEnd,
  expectedKey: string | undefined,
  reload: () => Promise<void>,
): Promise<void> {
  const key = held.live?.sessionKey ?? null;
  if (key === null || (expectedKey !== undefined && key !== expectedKey)) return;
  held.rememberEnded(key);
  held.endLocally(end);
  const tombstone: EndedSession = {
    slot: options.slot,
    status: 'ended',
    sessionKey: key,
    end,
    updatedAtMillis: options.clock.now(),
  };
  // Told before storage is written: every broker holds the sign-out whatever storage does.
  options.bus.post({ type: 'session', slot: options.slot, sessionKey: null, end, endedSessionKey: key });
  const replaced = await records.store(tombstone);
  if (replaced === false) await reload();
}
