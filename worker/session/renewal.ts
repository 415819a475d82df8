/**
 * Renewing a session's access token: one token request however many callers in however many tabs ask (a single
 * flight here, and the refresh lock across brokers of the origin), storage read again under the lock (another
 * broker may have renewed or ended the session meanwhile), and what the service's answer means for the session.
 * How the request itself is retried is the protocol's (protocol/tokenGrant.ts, protocol/retryLoop.ts).
 */
import type { SessionEnd } from '../../contract/state.js';
import { sessionEnd } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { RefreshAccessToken, TokenEndpointOptions } from '../../protocol/tokens.js';
import type { Bus } from '../coordination/bus.js';
import { withLock, type LockManagerLike } from '../coordination/locks.js';
import { liveKey, type BrokerStorage, type StoredSession } from '../storage/types.js';
import type { HeldSession } from './heldSession.js';
import type { ClaimedEnd } from './hints.js';
import { FOREIGN_TOKENS_WARNING, isSameUser } from './tokenChecks.js';

/** How long a renewal waits for another broker's renewal (the refresh lock) before renewing anyway. */
export const RENEWAL_LOCK_TIMEOUT_MILLIS = 10_000;

export interface RenewalOptions {
  slot: string;
  storage: BrokerStorage;
  bus: Bus;
  locks: LockManagerLike | null;
  clock: Clock;
  /** Default RENEWAL_LOCK_TIMEOUT_MILLIS. */
  lockTimeoutMillis?: number | undefined;
  tokenEndpoint: TokenEndpointOptions;
  /** The refresh-token grant (loaded on first use: lazy/refreshGrant.ts). */
  refreshAccessToken: RefreshAccessToken;
  onStorageError?: ((error: unknown) => void) | undefined;
  onWarning?: ((warning: string) => void) | undefined;
  /** This session renewed its access token (the broker's status counts them). */
  onRefreshed?: (() => void) | undefined;
  /** Each call of the single flight, with the caller `getAccessToken` was given (diagnostics). */
  onRefreshCall?: ((call: { caller: unknown; joined: boolean; refresh: Promise<string | null> }) => void) | undefined;
}

/** What a renewal may do to the session it renews besides holding a new token. */
export interface RenewedSession {
  readonly held: HeldSession;
  end(end: SessionEnd, expectedKey?: string): Promise<void>;
  reload(): Promise<void>;
}

type RenewalOutcome = { token: string | null } | { changed: true };

export class Renewal {
  #inFlight: Promise<string | null> | null = null;
  /** Token requests this session made (not those of other brokers). */
  count = 0;

  readonly #session: RenewedSession;
  readonly #options: RenewalOptions;
  constructor(options: RenewalOptions, session: RenewedSession) {
    this.#session = session;
    this.#options = options;
  }

  /** Every caller in every tab shares one renewal. */
  renew(caller?: unknown): Promise<string | null> {
    const joined = this.#inFlight !== null;
    this.#inFlight ??= this.renewOnce().finally(() => {
      this.#inFlight = null;
    });
    this.#options.onRefreshCall?.({ caller, joined, refresh: this.#inFlight });
    return this.#inFlight;
  }

  /**
   * One token request (after another broker's, if it renewed meanwhile). With `ifEnded`, the
   * request checks a session another broker says ended: it goes to the service even when the
   * stored token is still good, and a refusal ends the session here for the reason given.
   */
  async renewOnce(ifEnded?: ClaimedEnd): Promise<string | null> {
    const started = this.#session.held.live;
    if (!started) return null;
    const { value } = await withLock(
      this.#options.locks,
      `authbroker:refresh:${this.#options.slot}`,
      this.#options.lockTimeoutMillis ?? RENEWAL_LOCK_TIMEOUT_MILLIS,
      () => this.#underLock(started, ifEnded),
    );
    return 'token' in value ? value.token : (this.#session.held.live?.accessToken ?? null);
  }

  async #underLock(started: StoredSession, ifEnded: ClaimedEnd | undefined): Promise<RenewalOutcome> {
    const { held } = this.#session;
    // Another broker may have renewed or ended the session while we waited for the lock.
    const stored = await this.#options.storage.loadSession(this.#options.slot).catch(() => undefined);
    if (stored !== undefined && liveKey(stored) !== started.sessionKey) {
      held.apply(stored);
      return { changed: true };
    }
    if (
      ifEnded === undefined &&
      stored?.status === 'active' &&
      held.usable(stored) &&
      isSameUser(started.userId, stored)
    ) {
      held.live = { ...stored };
      return { token: stored.accessToken };
    }
    let accessToken: string;
    try {
      accessToken = (await this.#options.refreshAccessToken(this.#options.tokenEndpoint, started.refreshToken))
        .access_token;
    } catch (error) {
      return this.#refused(error, started, ifEnded);
    }
    this.count++;
    this.#options.onRefreshed?.();
    return this.#renewed(accessToken, started);
  }

  /** The service gave a new access token: held, stored and told to other brokers, if the session is still this one. */
  async #renewed(accessToken: string, started: StoredSession): Promise<RenewalOutcome> {
    const { held } = this.#session;
    const { clock, slot } = this.#options;
    if (held.live?.sessionKey !== started.sessionKey) return { changed: true };
    if (!isSameUser(started.userId, { accessToken, userId: null })) {
      // The refresh token held was another user's: this session is not the one it claims to be.
      this.#options.onWarning?.(FOREIGN_TOKENS_WARNING);
      await this.#session.end(sessionEnd('refresh-rejected', clock.now()), started.sessionKey);
      return { token: null };
    }
    const next: StoredSession = {
      ...held.live,
      accessToken,
      accessTokenRenewAtMillis: held.renewAtFor(accessToken),
      updatedAtMillis: clock.now(),
    };
    held.live = next;
    const stillOurs = await this.#options.storage.replaceSession(next, started.sessionKey).catch((error: unknown) => {
      this.#options.onStorageError?.(error);
      return true;
    });
    if (!stillOurs) {
      await this.#session.reload();
      return { changed: true };
    }
    this.#options.bus.post({ type: 'tokens', slot, sessionKey: started.sessionKey });
    return { token: accessToken };
  }

  /** The request failed: the service's refusal ends the session; connectivity and server trouble keep it. */
  async #refused(error: unknown, started: StoredSession, ifEnded: ClaimedEnd | undefined): Promise<RenewalOutcome> {
    const { held } = this.#session;
    const { clock } = this.#options;
    if (!isKnownError(error, 'REFRESH_TOKEN_ERROR')) throw error;
    if (ifEnded !== undefined) {
      // The broker that ended it stores the end (or keeps trying to): this one only holds it.
      held.rememberEnded(started.sessionKey);
      if (held.live?.sessionKey === started.sessionKey)
        held.endLocally(sessionEnd(ifEnded.reason, Math.min(ifEnded.atMillis ?? clock.now(), clock.now())));
      return { token: null };
    }
    const reason = isKnownError(error, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED') ? 'session-revoked' : 'refresh-rejected';
    await this.#session.end(sessionEnd(reason, clock.now(), error.code), started.sessionKey);
    return { token: null };
  }
}
