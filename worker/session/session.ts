/**
 * One signed-in session (or none) of one slot, shared by every tab through the broker: read from storage at the
 * start, kept in step with other brokers (the bus says something changed; storage says what), signed into and
 * ended, and renewed when a caller needs a token (renewal.ts). The refresh token never leaves this object except
 * towards the service.
 */
import { sessionEnd, type SessionEnd } from '../../contract/state.js';
import type { TokenSource } from '../../protocol/transport.js';
import { accessTokenExpiry } from '../../protocol/tokens.js';
import type { EndedSession, SessionRecord, StoredSession } from '../storage/types.js';
import { endRecords, type EndRecords } from './ends.js';
import { HeldSession, type SessionState } from './heldSession.js';
import { coalesced, EndChecks, type ClaimedEnd } from './hints.js';
import { Renewal, type RenewalOptions } from './renewal.js';
import { userIdOf } from './tokenChecks.js';

export type { SessionState } from './heldSession.js';
export { sessionEnd };

export interface SessionOptions extends RenewalOptions {
  /** Storage slot: the project id, or `admin:{projectId}` for a project owner's session. */
  slot: string;
  marginMillis: number;
}

export class Session implements TokenSource {
  readonly renewable = true;
  readonly held: HeldSession;
  private ready: Promise<void> | null = null;
  /** Where a session's end is stored, retried while storage refuses it. */
  private readonly ends: EndRecords;
  private readonly renewal: Renewal;
  /** Storage read again because of a message on the bus (which any page can post). */
  private readonly reloadForHint = coalesced(() => this.reload());
  /**
   * Another broker says the session held here ended, and storage does not say so: asked of the
   * service (a token request). Refused, the session is over here too; granted, the message was
   * not true and changes nothing.
   */
  private readonly endChecks: EndChecks;

  constructor(private readonly options: SessionOptions) {
    this.held = new HeldSession(options);
    this.renewal = new Renewal(options, this);
    this.endChecks = new EndChecks(options.clock, (claimed) => this.renewal.renewOnce(claimed));
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
        if (ended !== undefined) this.endChecks.claim(claimed, () => this.held.live?.sessionKey === ended);
      });
    });
    options.storage.onEvent((event) => {
      if (event.kind === 'cleared' && this.held.live)
        this.held.endLocally(sessionEnd('storage-cleared', options.clock.now()));
      if (event.kind === 'changed' && event.slot === options.slot) void this.reloadForHint();
    });
  }

  /** Loads the stored session once; later calls return the same promise. */
  start(): Promise<void> {
    this.ready ??= this.options.storage.loadSession(this.options.slot).then(
      (record) => {
        this.held.apply(record);
        this.held.loaded = true;
      },
      (error: unknown) => {
        this.held.loaded = true;
        this.options.onStorageError?.(error);
        this.held.emit({ status: 'loading' });
      },
    );
    return this.ready;
  }

  state(): SessionState {
    return this.held.state();
  }

  /** The storage slot this session lives in (the broker key, or `admin:` and the broker key). */
  get slot(): string {
    return this.options.slot;
  }

  get sessionKey(): string | null {
    return this.held.live?.sessionKey ?? null;
  }

  /** Token requests this session made (not those of other brokers). */
  get refreshCount(): number {
    return this.renewal.count;
  }

  subscribe(listener: (state: SessionState, previous: SessionState) => void): () => void {
    return this.held.subscribe(listener);
  }

  /** `caller`, if given, is passed on to `onRefreshCall` when a refresh is needed (who asked, for diagnostics). */
  async getAccessToken(caller?: unknown): Promise<string | null> {
    await this.start();
    // A few rounds at most: each round either returns or found the session replaced meanwhile.
    for (let round = 0; round < 3; round++) {
      const live = this.held.live;
      if (!live) return null;
      if (this.held.usable(live)) return live.accessToken;
      const token = await this.renewal.renew(caller);
      if (token !== null || !this.held.live) return token;
    }
    return this.held.live?.accessToken ?? null;
  }

  /** The access token if it can be used as it is, without renewing it; null otherwise. */
  async currentAccessToken(): Promise<string | null> {
    await this.start();
    const live = this.held.live;
    return live !== null && this.held.usable(live) ? live.accessToken : null;
  }

  invalidateAccessToken(token: string): void {
    this.held.refuse(token);
  }

  async getRefreshToken(): Promise<string | null> {
    await this.start();
    return this.held.live?.refreshToken ?? null;
  }

  /**
   * When the access token held now expires by this device's clock (ms), null when there is none or
   * it never does; for a token judged on arrival (clock skew), the expiry the broker goes by. Never
   * the token itself.
   */
  get accessTokenExpiresAtMillis(): number | null {
    const live = this.held.live;
    if (live === null || live.accessToken === null) return null;
    const renewAt = live.accessTokenRenewAtMillis;
    if (renewAt === undefined) return accessTokenExpiry(live.accessToken);
    return renewAt === null ? null : renewAt + this.options.marginMillis;
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
      accessTokenRenewAtMillis: this.held.renewAtFor(tokens.access_token),
      userId: userId ?? userIdOf(tokens.access_token),
      updatedAtMillis: this.options.clock.now(),
    };
    this.held.hold(record);
    await this.options.storage.saveSession(record).catch((error: unknown) => this.options.onStorageError?.(error));
    this.options.bus.post({ type: 'session', slot: this.options.slot, sessionKey: record.sessionKey, end: null });
  }

  /**
   * Ends the session (only if it is still `expectedKey`, when given) and tells every broker why.
   * The reason is stored too, so a broker that only reads storage later reports the same one.
   */
  async end(end: SessionEnd, expectedKey?: string): Promise<void> {
    await this.start();
    const key = this.held.live?.sessionKey ?? null;
    if (key === null || (expectedKey !== undefined && key !== expectedKey)) return;
    this.held.rememberEnded(key);
    this.held.endLocally(end);
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

  /**
   * Asks the service whether the session held is still alive, when an end may have been told and not
   * heard (an in-page broker back from the back/forward cache, whose tokens only other tabs' memory
   * holds): a token request, at most one per 30 s; refused, the session ends here.
   */
  confirmAlive(): void {
    const key = this.held.live?.sessionKey;
    if (key !== undefined)
      this.endChecks.claim({ reason: 'signed-out', atMillis: null }, () => this.held.live?.sessionKey === key);
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
    if (record === null && this.held.live) {
      // Our session vanished from storage without a tombstone: site data was cleared.
      this.held.endLocally(sessionEnd('storage-cleared', this.options.clock.now()));
      return;
    }
    this.held.apply(record);
  }
}
