import { decodeJwt } from 'jose';
import { isKnownError } from '../protocol/errors/knownError.js';
import type { Clock } from '../protocol/retry.js';
import { accessTokenExpiry, isAccessTokenExpiring, refreshAccessToken, type TokenEndpointOptions } from '../protocol/tokens.js';
import type { TokenSource } from '../protocol/transport.js';
import type { Bus } from './bus.js';
import { withLock, type LockManagerLike } from './locks.js';
import { sessionEnd, type SessionEnd } from '../contract/state.js';
import { liveKey, type BrokerStorage, type SessionRecord, type StoredSession } from './storage/types.js';

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
  /** A write to storage failed (quota…): the session goes on in memory. */
  onStorageError?: (error: unknown) => void;
  /** This session renewed its access token (the broker's status counts them). */
  onRefreshed?: () => void;
  /** Each call of the single-flight refresh, with the caller `getAccessToken` was given (diagnostics). */
  onRefreshCall?: (call: { caller: unknown; joined: boolean; refresh: Promise<string | null> }) => void;
}

type RefreshOutcome = { token: string | null } | { changed: true };

function userIdOf(accessToken: string): string | null {
  try {
    const { sub } = decodeJwt(accessToken);
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
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
  private listeners = new Set<(state: SessionState, previous: SessionState) => void>();
  /** Token requests this session made (not those of other brokers). */
  refreshCount = 0;

  constructor(private readonly options: SessionOptions) {
    options.bus.onMessage((message) => {
      if ((message.type === 'session' || message.type === 'tokens') && message.slot === options.slot) void this.reload();
    });
    options.storage.onEvent((event) => {
      if (event.kind === 'cleared' && this.live) this.endLocally(sessionEnd('storage-cleared', options.clock.now()));
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
    return this.live ? { status: 'signed-in', sessionKey: this.live.sessionKey, userId: this.live.userId } : { status: 'signed-out', lastEnd: this.lastEnd };
  }

  get sessionKey(): string | null {
    return this.live?.sessionKey ?? null;
  }

  subscribe(listener: (state: SessionState, previous: SessionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** `caller`, if given, is passed on to `onRefreshCall` when a refresh is needed (who asked, for diagnostics). */
  async getAccessToken(caller?: unknown): Promise<string | null> {
    await this.start();
    // A few rounds at most: each round either returns or found the session replaced meanwhile.
    for (let round = 0; round < 3; round++) {
      const live = this.live;
      if (!live) return null;
      if (this.usable(live.accessToken)) return live.accessToken;
      const token = await this.refresh(caller);
      if (token !== null || !this.live) return token;
    }
    return this.live?.accessToken ?? null;
  }

  /** The access token if it can be used as it is, without renewing it; null otherwise. */
  async currentAccessToken(): Promise<string | null> {
    await this.start();
    const token = this.live?.accessToken ?? null;
    return this.usable(token) ? token : null;
  }

  invalidateAccessToken(token: string): void {
    // Remembered so that the token is not adopted again from storage, where it may still sit.
    this.refused.add(token);
    if (this.refused.size > 16) this.refused.delete(this.refused.values().next().value!);
    if (this.live?.accessToken === token) this.live = { ...this.live, accessToken: null };
  }

  private refused = new Set<string>();

  private usable(token: string | null): token is string {
    return token !== null && !this.refused.has(token) && !isAccessTokenExpiring(token, this.options.clock.now(), this.options.marginMillis);
  }

  async getRefreshToken(): Promise<string | null> {
    await this.start();
    return this.live?.refreshToken ?? null;
  }

  /** When the access token held now expires (ms), null when there is none or it never does. Never the token itself. */
  get accessTokenExpiresAtMillis(): number | null {
    const token = this.live?.accessToken ?? null;
    return token === null ? null : accessTokenExpiry(token);
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

  private async refreshOnce(): Promise<string | null> {
    const started = this.live;
    if (!started) return null;
    const { slot, storage, clock } = this.options;
    const { value } = await withLock(this.options.locks, `authbroker:refresh:${slot}`, this.options.lockTimeoutMillis ?? 10_000, async (): Promise<RefreshOutcome> => {
      // Another broker may have renewed or ended the session while we waited for the lock.
      const stored = await storage.loadSession(slot).catch(() => undefined);
      if (stored !== undefined && liveKey(stored) !== started.sessionKey) {
        this.apply(stored);
        return { changed: true };
      }
      if (stored?.status === 'active' && this.usable(stored.accessToken)) {
        this.live = { ...stored };
        return { token: stored.accessToken };
      }
      try {
        const { access_token } = await refreshAccessToken(this.options.tokenEndpoint, started.refreshToken);
        this.refreshCount++;
        this.options.onRefreshed?.();
        if (this.live?.sessionKey !== started.sessionKey) return { changed: true };
        const next: StoredSession = { ...this.live, accessToken: access_token, updatedAtMillis: clock.now() };
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
        if (isKnownError(error, 'REFRESH_TOKEN_ERROR')) {
          const reason = isKnownError(error, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED') ? 'session-revoked' : 'refresh-rejected';
          await this.end(sessionEnd(reason, clock.now(), error.code), started.sessionKey);
          return { token: null };
        }
        // Connectivity and server trouble keep the session: nobody is signed out for a bad network.
        throw error;
      }
    });
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
    this.endLocally(end);
    const tombstone: SessionRecord = { slot: this.options.slot, status: 'ended', sessionKey: key, end, updatedAtMillis: this.options.clock.now() };
    const replaced = await this.options.storage.replaceSession(tombstone, key).catch((error: unknown) => {
      this.options.onStorageError?.(error);
      return true;
    });
    if (!replaced) await this.reload();
    this.options.bus.post({ type: 'session', slot: this.options.slot, sessionKey: null, end });
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
    if (record?.status === 'active') {
      if (this.live?.sessionKey === record.sessionKey && (this.live.accessToken === record.accessToken || (record.accessToken !== null && this.refused.has(record.accessToken)))) return;
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
    for (const listener of this.listeners) listener(next, previous);
  }
}
