import { isKnownError } from '../protocol/errors/knownError.js';
import type { Clock } from '../protocol/retry.js';
import {
  accessTokenExpiry,
  judgeArrivedAccessToken,
  type RefreshAccessToken,
  type TokenEndpointOptions,
} from '../protocol/tokens.js';
import type { TokenSource } from '../protocol/transport.js';
import type { Bus } from './bus.js';
import { withLock, type LockManagerLike } from './locks.js';
import { Emitter } from '../contract/events.js';
import { sessionEnd, type SessionEnd } from '../contract/state.js';
import { endRecords, type EndRecords } from './sessionEnds.js';
import { coalesced, EndChecks, type ClaimedEnd } from './sessionHints.js';
import {
  ARRIVAL_WARNINGS,
  FOREIGN_TOKENS_WARNING,
  isSameUser,
  isStoredTokenUsable,
  userIdOf,
} from './sessionTokens.js';
import {
  liveKey,
  type BrokerStorage,
  type EndedSession,
  type SessionRecord,
  type StoredSession,
} from './storage/types.js';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; lastEnd: SessionEnd | null }
  | { status: 'signed-in'; sessionKey: string; userId: string | null };

export interface SessionOptions {
  /** Storage slot: the project id, or `admin:{projectId}` for a project owner's session. */
  slot: string;
  storage: BrokerStorage;
  bus: Bus;
  locks: LockManagerLike | null;
  clock: Clock;
  marginMillis: number;
  /** How long to wait for another broker's refresh before refreshing anyway. Default 10 s. */
  lockTimeoutMillis?: number;
  tokenEndpoint: TokenEndpointOptions;
  /** The refresh-token grant (loaded on first use: worker/tokenGrant.ts). */
  refreshAccessToken: RefreshAccessToken;
  /** A write to storage failed (quota…): the session goes on in memory. */
  onStorageError?: (error: unknown) => void;
  /** Something about the session the app should know (odd tokens, a sign-out held in memory). */
  onWarning?: (warning: string) => void;
  /** This session renewed its access token (the broker's status counts them). */
  onRefreshed?: () => void;
  /** Each call of the single-flight refresh, with the caller `getAccessToken` was given (diagnostics). */
  onRefreshCall?: (call: { caller: unknown; joined: boolean; refresh: Promise<string | null> }) => void;
}

type RefreshOutcome = { token: string | null } | { changed: true };

/** Sessions remembered as ended (so a stale copy in storage is never adopted again). */
const ENDED_KEYS_KEPT = 32;
/** Refused access tokens remembered (so one still in storage is not adopted again). */
const REFUSED_TOKENS_KEPT = 16;

/** Adds to a set that keeps only the newest `max` values. */
function remember(set: Set<string>, value: string, max: number): void {
  set.add(value);
  if (set.size > max) set.delete(set.values().next().value!);
}

export { sessionEnd };

/**
 * One signed-in session (or none) of one slot, shared by every tab through the broker. The refresh
 * token never leaves this object except towards the service.
 */
export class Session implements TokenSource {
  readonly renewable = true;
  private live: StoredSession | null = null;
  private lastEnd: SessionEnd | null = null;
  private loaded = false;
  private ready: Promise<void> | null = null;
  private inFlight: Promise<string | null> | null = null;
  private readonly changes = new Emitter<{ state: SessionState; previous: SessionState }>();
  /** Sessions that ended here or in another broker; a copy of them still in storage is never adopted. */
  private readonly endedKeys = new Set<string>();
  /** Where a session's end is stored, retried while storage refuses it. */
  private readonly ends: EndRecords;
  /** Token requests this session made (not those of other brokers). */
  refreshCount = 0;
  /** Storage read again because of a message on the bus (which any page can post). */
  private readonly reloadForHint = coalesced(() => this.reload());
  /**
   * Another broker says the session held here ended, and storage does not say so: asked of the
   * service (a token request). Refused, the session is over here too; granted, the message was
   * not true and changes nothing.
   */
  private readonly endChecks: EndChecks;

  constructor(private readonly options: SessionOptions) {
    this.endChecks = new EndChecks(options.clock, (claimed) => this.refreshOnce(claimed));
    this.ends = endRecords(options);
    options.bus.onMessage((message) => {
      if ((message.type !== 'session' && message.type !== 'tokens') || message.slot !== options.slot) return;
      // A hint, whoever sent it: storage is read again, and that is what holds.
      const ended = message.type === 'session' ? message.endedSessionKey : undefined;
      const claimed: ClaimedEnd = {
        reason: (message.type === 'session' ? message.end?.reason : undefined) ?? 'signed-out',
        atMillis: (message.type === 'session' ? message.end?.atMillis : undefined) ?? null,
      };
      void this.reloadForHint().then(() => {
        // Still held after the re-read: its end may not have reached storage (the other broker's
        // storage refused it), or the message is not true. The service knows which.
        if (ended !== undefined) this.endChecks.claim(claimed, () => this.live?.sessionKey === ended);
      });
    });
    options.storage.onEvent((event) => {
      if (event.kind === 'cleared' && this.live) this.endLocally(sessionEnd('storage-cleared', options.clock.now()));
      if (event.kind === 'changed' && event.slot === options.slot) void this.reloadForHint();
    });
  }

  /** Loads the stored session once; later calls return the same promise. */
  start(): Promise<void> {
    this.ready ??= this.options.storage.loadSession(this.options.slot).then(
      (record) => {
        this.apply(record);
        this.loaded = true;
      },
      (error: unknown) => {
        this.loaded = true;
        this.options.onStorageError?.(error);
        this.emit({ status: 'loading' });
      },
    );
    return this.ready;
  }

  state(): SessionState {
    if (!this.loaded) return { status: 'loading' };
    return this.live
      ? { status: 'signed-in', sessionKey: this.live.sessionKey, userId: this.live.userId }
      : { status: 'signed-out', lastEnd: this.lastEnd };
  }

  /** The storage slot this session lives in (the broker key, or `admin:` and the broker key). */
  get slot(): string {
    return this.options.slot;
  }

  get sessionKey(): string | null {
    return this.live?.sessionKey ?? null;
  }

  subscribe(listener: (state: SessionState, previous: SessionState) => void): () => void {
    return this.changes.subscribe(({ state, previous }) => listener(state, previous));
  }

  /** `caller`, if given, is passed on to `onRefreshCall` when a refresh is needed (who asked, for diagnostics). */
  async getAccessToken(caller?: unknown): Promise<string | null> {
    await this.start();
    // A few rounds at most: each round either returns or found the session replaced meanwhile.
    for (let round = 0; round < 3; round++) {
      const live = this.live;
      if (!live) return null;
      if (this.usable(live)) return live.accessToken;
      const token = await this.refresh(caller);
      if (token !== null || !this.live) return token;
    }
    return this.live?.accessToken ?? null;
  }

  /** The access token if it can be used as it is, without renewing it; null otherwise. */
  async currentAccessToken(): Promise<string | null> {
    await this.start();
    return this.live !== null && this.usable(this.live) ? this.live.accessToken : null;
  }

  invalidateAccessToken(token: string): void {
    // Remembered so that the token is not adopted again from storage, where it may still sit.
    remember(this.refused, token, REFUSED_TOKENS_KEPT);
    if (this.live?.accessToken === token) this.live = { ...this.live, accessToken: null };
  }

  private refused = new Set<string>();

  /** Whether a record's access token can be sent as it is (not refused, not due for renewal). */
  private usable(record: StoredSession): record is StoredSession & { accessToken: string } {
    return isStoredTokenUsable(record, this.refused, this.options.clock.now(), this.options.marginMillis);
  }

  /** When to renew a token that just arrived; tells the app once when tokens look wrong. */
  private renewAtFor(accessToken: string): number | null {
    const judged = judgeArrivedAccessToken(accessToken, this.options.clock.now(), this.options.marginMillis);
    if (judged.problem !== null) this.options.onWarning?.(ARRIVAL_WARNINGS[judged.problem]);
    return judged.renewAtMillis;
  }

  async getRefreshToken(): Promise<string | null> {
    await this.start();
    return this.live?.refreshToken ?? null;
  }

  /**
   * When the access token held now expires by this device's clock (ms), null when there is none or
   * it never does; for a token judged on arrival (clock skew), the expiry the broker goes by. Never
   * the token itself.
   */
  get accessTokenExpiresAtMillis(): number | null {
    const live = this.live;
    if (live === null || live.accessToken === null) return null;
    const renewAt = live.accessTokenRenewAtMillis;
    if (renewAt === undefined) return accessTokenExpiry(live.accessToken);
    return renewAt === null ? null : renewAt + this.options.marginMillis;
  }

  /** Every caller in every tab shares one refresh. */
  private refresh(caller?: unknown): Promise<string | null> {
    const joined = this.inFlight !== null;
    this.inFlight ??= this.refreshOnce().finally(() => {
      this.inFlight = null;
    });
    this.options.onRefreshCall?.({ caller, joined, refresh: this.inFlight });
    return this.inFlight;
  }

  /**
   * One token request (after another broker's, if it renewed meanwhile). With `ifEnded`, the
   * request checks a session another broker says ended: it goes to the service even when the
   * stored token is still good, and a refusal ends the session here for the reason given.
   */
  private async refreshOnce(ifEnded?: ClaimedEnd): Promise<string | null> {
    const started = this.live;
    if (!started) return null;
    const { slot, storage, clock } = this.options;
    const { value } = await withLock(
      this.options.locks,
      `authbroker:refresh:${slot}`,
      this.options.lockTimeoutMillis ?? 10_000,
      async (): Promise<RefreshOutcome> => {
        // Another broker may have renewed or ended the session while we waited for the lock.
        const stored = await storage.loadSession(slot).catch(() => undefined);
        if (stored !== undefined && liveKey(stored) !== started.sessionKey) {
          this.apply(stored);
          return { changed: true };
        }
        if (
          ifEnded === undefined &&
          stored?.status === 'active' &&
          this.usable(stored) &&
          isSameUser(started.userId, stored)
        ) {
          this.live = { ...stored };
          return { token: stored.accessToken };
        }
        try {
          const { access_token } = await this.options.refreshAccessToken(
            this.options.tokenEndpoint,
            started.refreshToken,
          );
          this.refreshCount++;
          this.options.onRefreshed?.();
          if (this.live?.sessionKey !== started.sessionKey) return { changed: true };
          if (!isSameUser(started.userId, { accessToken: access_token, userId: null })) {
            // The refresh token held was another user's: this session is not the one it claims to be.
            this.options.onWarning?.(FOREIGN_TOKENS_WARNING);
            await this.end(sessionEnd('refresh-rejected', clock.now()), started.sessionKey);
            return { token: null };
          }
          const next: StoredSession = {
            ...this.live,
            accessToken: access_token,
            accessTokenRenewAtMillis: this.renewAtFor(access_token),
            updatedAtMillis: clock.now(),
          };
          this.live = next;
          const stillOurs = await storage.replaceSession(next, started.sessionKey).catch((error: unknown) => {
            this.options.onStorageError?.(error);
            return true;
          });
          if (!stillOurs) {
            await this.reload();
            return { changed: true };
          }
          this.options.bus.post({ type: 'tokens', slot, sessionKey: started.sessionKey });
          return { token: access_token };
        } catch (error) {
          if (isKnownError(error, 'REFRESH_TOKEN_ERROR') && ifEnded !== undefined) {
            // The broker that ended it stores the end (or keeps trying to): this one only holds it.
            this.rememberEnded(started.sessionKey);
            if (this.live?.sessionKey === started.sessionKey)
              this.endLocally(sessionEnd(ifEnded.reason, Math.min(ifEnded.atMillis ?? clock.now(), clock.now())));
            return { token: null };
          }
          if (isKnownError(error, 'REFRESH_TOKEN_ERROR')) {
            const reason = isKnownError(error, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED')
              ? 'session-revoked'
              : 'refresh-rejected';
            await this.end(sessionEnd(reason, clock.now(), error.code), started.sessionKey);
            return { token: null };
          }
          // Connectivity and server trouble keep the session: nobody is signed out for a bad network.
          throw error;
        }
      },
    );
    return 'token' in value ? value.token : (this.live?.accessToken ?? null);
  }

  /** Starts a new session from a sign-in response; replaces whatever session the slot had. */
  async signIn(tokens: { access_token: string; refresh_token: string }, userId?: string | null): Promise<void> {
    await this.start();
    const record: StoredSession = {
      slot: this.options.slot,
      status: 'active',
      sessionKey: crypto.randomUUID(),
      refreshToken: tokens.refresh_token,
      accessToken: tokens.access_token,
      accessTokenRenewAtMillis: this.renewAtFor(tokens.access_token),
      userId: userId ?? userIdOf(tokens.access_token),
      updatedAtMillis: this.options.clock.now(),
    };
    const previous = this.state();
    this.live = record;
    this.emit(previous);
    await this.options.storage.saveSession(record).catch((error: unknown) => this.options.onStorageError?.(error));
    this.options.bus.post({ type: 'session', slot: this.options.slot, sessionKey: record.sessionKey, end: null });
  }

  /**
   * Ends the session (only if it is still `expectedKey`, when given) and tells every broker why.
   * The reason is stored too, so a broker that only reads storage later reports the same one.
   */
  async end(end: SessionEnd, expectedKey?: string): Promise<void> {
    await this.start();
    const key = this.live?.sessionKey ?? null;
    if (key === null || (expectedKey !== undefined && key !== expectedKey)) return;
    this.rememberEnded(key);
    this.endLocally(end);
    const tombstone: EndedSession = {
      slot: this.options.slot,
      status: 'ended',
      sessionKey: key,
      end,
      updatedAtMillis: this.options.clock.now(),
    };
    // Told before storage is written: every broker holds the sign-out whatever storage does.
    this.options.bus.post({ type: 'session', slot: this.options.slot, sessionKey: null, end, endedSessionKey: key });
    const replaced = await this.ends.store(tombstone);
    if (replaced === false) await this.reload();
  }

  private rememberEnded(sessionKey: string): void {
    remember(this.endedKeys, sessionKey, ENDED_KEYS_KEPT);
  }

  /**
   * Asks the service whether the session held is still alive, when an end may have been told and not
   * heard (an in-page broker back from the back/forward cache, whose tokens only other tabs' memory
   * holds): a token request, at most one per 30 s; refused, the session ends here.
   */
  confirmAlive(): void {
    const key = this.live?.sessionKey;
    if (key !== undefined)
      this.endChecks.claim({ reason: 'signed-out', atMillis: null }, () => this.live?.sessionKey === key);
  }

  /** The broker is stopping: no more retries of a sign-out its closed storage could not take anyway. */
  close(): void {
    this.ends.close();
    this.endChecks.close();
  }

  /** Whether this broker is still trying to record a sign-out (storage refused it so far). */
  get endPending(): boolean {
    return this.ends.pending();
  }

  /** Re-reads storage (another broker changed something) and adopts it. */
  async reload(): Promise<void> {
    await this.start();
    let record: SessionRecord | null;
    try {
      record = await this.options.storage.loadSession(this.options.slot);
    } catch {
      return;
    }
    if (record === null && this.live) {
      // Our session vanished from storage without a tombstone: site data was cleared.
      this.endLocally(sessionEnd('storage-cleared', this.options.clock.now()));
      return;
    }
    this.apply(record);
  }

  private apply(record: SessionRecord | null): void {
    const previous = this.state();
    // A session that ended is over even if storage still holds it (its end could not be written).
    if (record?.status === 'active' && this.endedKeys.has(record.sessionKey)) {
      if (this.live?.sessionKey === record.sessionKey) this.live = null;
      return this.emit(previous);
    }
    if (record?.status === 'active') {
      const heldUserId = this.live?.sessionKey === record.sessionKey ? this.live.userId : null;
      if (!isSameUser(heldUserId, record)) {
        // Another user's tokens under a session this broker holds: never taken for it.
        if (heldUserId !== null) return this.options.onWarning?.(FOREIGN_TOKENS_WARNING);
        // A record whose access token names another user than the record does: the token is not this
        // session's, so it is never sent; the refresh token renews it, and the renewal's user is checked.
        record = { ...record, accessToken: null, accessTokenRenewAtMillis: null };
      }
      if (
        this.live?.sessionKey === record.sessionKey &&
        (this.live.accessToken === record.accessToken ||
          (record.accessToken !== null && this.refused.has(record.accessToken)))
      )
        return;
      this.live = { ...record };
    } else {
      if (!this.live && (record === null || record.end.atMillis === this.lastEnd?.atMillis) && this.loaded) return;
      this.live = null;
      this.lastEnd = record?.status === 'ended' ? record.end : this.lastEnd;
    }
    this.emit(previous);
  }

  private endLocally(end: SessionEnd): void {
    const previous = this.state();
    this.live = null;
    this.lastEnd = end;
    this.emit(previous);
  }

  private emit(previous: SessionState): void {
    const next = this.state();
    const same =
      next.status === previous.status &&
      (next.status !== 'signed-in' || (previous.status === 'signed-in' && previous.sessionKey === next.sessionKey)) &&
      (next.status !== 'signed-out' || (previous.status === 'signed-out' && previous.lastEnd === next.lastEnd));
    if (same) return;
    this.changes.emit({ state: next, previous });
  }
}
