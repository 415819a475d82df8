/**
 * The session a broker holds for one slot, as a state machine: loading, signed out (and why), or signed in. It
 * decides which stored record to adopt (never an ended session, never another user's tokens under a session held
 * here, never a token the service refused) and tells its watchers only of real changes. Renewal and storage writes
 * are elsewhere (renewal.ts, session.ts): this is what "the session held now" means.
 */
import { Emitter } from '../../contract/events.js';
import { sessionEnd, type SessionEnd } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import { accessTokenExpiry, judgeArrivedAccessToken } from '../../protocol/tokens.js';
import type { SessionRecord, StoredSession } from '../storage/types.js';
import { ARRIVAL_WARNINGS, FOREIGN_TOKENS_WARNING, isSameUser, isStoredTokenUsable } from './tokenChecks.js';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; lastEnd: SessionEnd | null }
  | { status: 'signed-in'; sessionKey: string; userId: string | null };

/** Sessions remembered as ended (so a stale copy in storage is never adopted again). */
const ENDED_KEYS_KEPT = 32;
/** Refused access tokens remembered (so one still in storage is not adopted again). */
const REFUSED_TOKENS_KEPT = 16;

/** Adds to a set that keeps only the newest `max` values. */
function remember(set: Set<string>, value: string, max: number): void {
  set.add(value);
  if (set.size > max) set.delete(set.values().next().value!);
}

export interface HeldSessionOptions {
  clock: Clock;
  marginMillis: number;
  onWarning?: ((warning: string) => void) | undefined;
}

export class HeldSession {
  /** The session held now, or null. */
  live: StoredSession | null = null;
  #lastEnd: SessionEnd | null = null;
  /** The stored session was read (or could not be). */
  loaded = false;
  readonly #changes = new Emitter<{ state: SessionState; previous: SessionState }>();
  /** Sessions that ended here or in another broker; a copy of them still in storage is never adopted. */
  readonly #endedKeys = new Set<string>();
  readonly #refused = new Set<string>();

  readonly #options: HeldSessionOptions;
  constructor(options: HeldSessionOptions) {
    this.#options = options;
  }

  state(): SessionState {
    if (!this.loaded) return { status: 'loading' };
    return this.live
      ? { status: 'signed-in', sessionKey: this.live.sessionKey, userId: this.live.userId }
      : { status: 'signed-out', lastEnd: this.#lastEnd };
  }

  subscribe(listener: (state: SessionState, previous: SessionState) => void): () => void {
    return this.#changes.subscribe(({ state, previous }) => listener(state, previous));
  }

  /** Whether a record's access token can be sent as it is (not refused, not due for renewal). */
  usable(record: StoredSession): record is StoredSession & { accessToken: string } {
    return isStoredTokenUsable(record, this.#refused, this.#options.clock.now(), this.#options.marginMillis);
  }

  /** The service refused `token`: it is never sent again, nor adopted again from storage, where it may still sit. */
  refuse(token: string): void {
    remember(this.#refused, token, REFUSED_TOKENS_KEPT);
    if (this.live?.accessToken === token) this.live = { ...this.live, accessToken: null };
  }

  /** When to renew a token that just arrived; tells the app once when tokens look wrong. */
  renewAtFor(accessToken: string): number | null {
    const judged = judgeArrivedAccessToken(accessToken, this.#options.clock.now(), this.#options.marginMillis);
    if (judged.problem !== null) this.#options.onWarning?.(ARRIVAL_WARNINGS[judged.problem]);
    return judged.renewAtMillis;
  }

  /**
   * When the access token held now expires by this device's clock (ms), null when there is none or it never does;
   * for a token judged on arrival (clock skew), the expiry the broker goes by.
   */
  expiresAtMillis(): number | null {
    const live = this.live;
    if (live === null || live.accessToken === null) return null;
    const renewAt = live.accessTokenRenewAtMillis;
    if (renewAt === undefined) return accessTokenExpiry(live.accessToken);
    return renewAt === null ? null : renewAt + this.#options.marginMillis;
  }

  /** `sessionKey` ended: a copy of it in storage is never adopted again. */
  rememberEnded(sessionKey: string): void {
    remember(this.#endedKeys, sessionKey, ENDED_KEYS_KEPT);
  }

  /** A new session from a sign-in response, held from now on (it replaces whatever session the slot had). */
  signIn(tokens: { access_token: string; refresh_token: string }, userId: string | null, slot: string): StoredSession {
    const record: StoredSession = {
      slot,
      status: 'active',
      sessionKey: crypto.randomUUID(),
      refreshToken: tokens.refresh_token,
      accessToken: tokens.access_token,
      accessTokenRenewAtMillis: this.renewAtFor(tokens.access_token),
      userId,
      updatedAtMillis: this.#options.clock.now(),
    };
    this.hold(record);
    return record;
  }

  /** Holds `record` (a sign-in, a renewal): watchers hear if that changes who is signed in. */
  hold(record: StoredSession): void {
    const previous = this.state();
    this.live = record;
    this.emit(previous);
  }

  /** Adopts what storage holds, unless it is an ended session, another user's tokens, or a refused token. */
  apply(record: SessionRecord | null): void {
    const previous = this.state();
    // A session that ended is over even if storage still holds it (its end could not be written).
    if (record?.status === 'active' && this.#endedKeys.has(record.sessionKey)) {
      if (this.live?.sessionKey === record.sessionKey) this.live = null;
      return this.emit(previous);
    }
    if (record?.status === 'active') {
      const heldUserId = this.live?.sessionKey === record.sessionKey ? this.live.userId : null;
      if (!isSameUser(heldUserId, record)) {
        // Another user's tokens under a session this broker holds: never taken for it.
        if (heldUserId !== null) return this.#options.onWarning?.(FOREIGN_TOKENS_WARNING);
        // A record whose access token names another user than the record does: the token is not this
        // session's, so it is never sent; the refresh token renews it, and the renewal's user is checked.
        record = { ...record, accessToken: null, accessTokenRenewAtMillis: null };
      }
      if (
        this.live?.sessionKey === record.sessionKey &&
        (this.live.accessToken === record.accessToken ||
          (record.accessToken !== null && this.#refused.has(record.accessToken)))
      )
        return;
      this.live = { ...record };
    } else {
      if (!this.live && (record === null || record.end.atMillis === this.#lastEnd?.atMillis) && this.loaded) return;
      this.live = null;
      this.#lastEnd = record?.status === 'ended' ? record.end : this.#lastEnd;
    }
    this.emit(previous);
  }

  /** What storage holds after another broker changed it: nothing at all while a session is held means site data was cleared. */
  adoptReloaded(record: SessionRecord | null, now: number): void {
    if (record === null && this.live) this.endLocally(sessionEnd('storage-cleared', now));
    else this.apply(record);
  }

  /** The session ends here, for `end`. */
  endLocally(end: SessionEnd): void {
    const previous = this.state();
    this.live = null;
    this.#lastEnd = end;
    this.emit(previous);
  }

  /** Tells watchers the state, unless it is the same as `previous`. */
  emit(previous: SessionState): void {
    const next = this.state();
    const same =
      next.status === previous.status &&
      (next.status !== 'signed-in' || (previous.status === 'signed-in' && previous.sessionKey === next.sessionKey)) &&
      (next.status !== 'signed-out' || (previous.status === 'signed-out' && previous.lastEnd === next.lastEnd));
    if (same) return;
    this.#changes.emit({ state: next, previous });
  }
}
