import { sessionEnd, type SessionEndReason } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import type { Bus } from '../coordination/bus.js';
import type { BrokerStorage } from '../storage/types.js';
import type { HeldSession } from './heldSession.js';

/** What another broker said of an end: the reason, and when (null when it did not say). */
export interface ClaimedEnd {
  reason: SessionEndReason;
  atMillis: number | null;
}

/** Between two questions to the service about sessions other brokers say ended. */
export const CHECK_ENDED_MILLIS = 30_000;

/**
 * `task` for many callers: one run at a time, and one more queued that serves every caller asking
 * while it waits (they all ask the same thing), however many there are.
 */
export function coalesced(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  return () => {
    if (queued !== null) return queued;
    const next: Promise<void> = (running ?? Promise.resolve()).then(async () => {
      queued = null;
      running = next;
      try {
        await task();
      } finally {
        if (running === next) running = null;
      }
    });
    queued = next;
    return next;
  };
}

/**
 * Claims that a session ended, asked of the service (`check`) one at a time and at most once per
 * CHECK_ENDED_MILLIS; a claim meanwhile is asked once the wait is over, if it still matters then.
 * Anyone on the origin can make claims: this bounds what they cost the service and the broker.
 */
export class EndChecks {
  #running = false;
  #later: unknown = null;
  #lastMillis = Number.NEGATIVE_INFINITY;
  #closed = false;

  readonly #check: (claimed: ClaimedEnd) => Promise<unknown>;
  readonly #clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  constructor(
    clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>,
    check: (claimed: ClaimedEnd) => Promise<unknown>,
  ) {
    this.#check = check;
    this.#clock = clock;
  }

  /** `stillHeld` says whether the session claimed ended is still the one held (when the check would run). */
  claim(claimed: ClaimedEnd, stillHeld: () => boolean): void {
    if (this.#closed || !stillHeld()) return;
    const wait = this.#lastMillis + CHECK_ENDED_MILLIS - this.#clock.now();
    if (this.#running || wait > 0) {
      this.#later ??= this.#clock.setTimeout(
        () => {
          this.#later = null;
          this.claim(claimed, stillHeld);
        },
        Math.max(wait, 0),
      );
      return;
    }
    this.#lastMillis = this.#clock.now();
    this.#running = true;
    // A check that cannot reach the service (offline) leaves the session: its next renewal tells.
    void this.#check(claimed)
      .catch(() => undefined)
      .finally(() => {
        this.#running = false;
      });
  }

  close(): void {
    this.#closed = true;
    if (this.#later !== null) this.#clock.clearTimeout(this.#later);
  }
}

/**
 * What a session does with what other brokers say (the bus, which any page can post to) and with what storage says
 * changed: storage is read again, and that is what holds. An end another broker told of that storage does not show
 * (its storage refused it, or the message is not true) is asked of the service (`endChecks`).
 */
export function listenToOtherBrokers(
  options: { slot: string; bus: Bus; storage: BrokerStorage; clock: Pick<Clock, 'now'> },
  session: { readonly held: HeldSession; reload(): Promise<void> },
  endChecks: EndChecks,
): void {
  const reloadForHint = coalesced(() => session.reload());
  const { held } = session;
  options.bus.onMessage((message) => {
    if ((message.type !== 'session' && message.type !== 'tokens') || message.slot !== options.slot) return;
    const ended = message.type === 'session' ? message.endedSessionKey : undefined;
    const claimed: ClaimedEnd = {
      reason: (message.type === 'session' ? message.end?.reason : undefined) ?? 'signed-out',
      atMillis: (message.type === 'session' ? message.end?.atMillis : undefined) ?? null,
    };
    void reloadForHint().then(() => {
      // Still held after the re-read: its end may not have reached storage, or the message is not true.
      if (ended !== undefined) endChecks.claim(claimed, () => held.live?.sessionKey === ended);
    });
  });
  options.storage.onEvent((event) => {
    if (event.kind === 'cleared' && held.live) held.endLocally(sessionEnd('storage-cleared', options.clock.now()));
    if (event.kind === 'changed' && event.slot === options.slot) void reloadForHint();
  });
}

/**
 * Asks the service whether the session held is still alive, when an end may have been told and not heard (an in-page
 * broker back from the back/forward cache, whose tokens only other tabs' memory holds): a token request, at most one
 * per 30 s; refused, the session ends here.
 */
export function askWhetherAlive(held: HeldSession, endChecks: EndChecks): void {
  const key = held.live?.sessionKey;
  if (key !== undefined) endChecks.claim({ reason: 'signed-out', atMillis: null }, () => held.live?.sessionKey === key);
}
