/**
 * One signed-in session (or none) of one slot, shared by every tab through the broker: read from storage at the
 * start, kept in step with other brokers (the bus says something changed; storage says what), signed into and
 * ended, and renewed when a caller needs a token (renewal.ts). The refresh token never leaves this object except
 * towards the service.
 */
import { sessionEnd, type SessionEnd } from '../../contract/state.js';
import type { TokenSource } from '../../protocol/transport.js';
import type { SessionRecord } from '../storage/types.js';
import { endHeldSession, endRecords, type EndRecords } from './ends.js';
import { HeldSession, type SessionState } from './heldSession.js';
import { askWhetherAlive, EndChecks, listenToOtherBrokers } from './hints.js';
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
  #ready: Promise<void> | null = null;
  /** Where a session's end is stored, retried while storage refuses it. */
  readonly #ends: EndRecords;
  readonly #renewal: Renewal;
  /**
   * Another broker says the session held here ended, and storage does not say so: asked of the
   * service (a token request). Refused, the session is over here too; granted, the message was
   * not true and changes nothing.
   */
  readonly #endChecks: EndChecks;

  readonly #options: SessionOptions;
  constructor(options: SessionOptions) {
    this.#options = options;
    this.held = new HeldSession(options);
    this.#renewal = new Renewal(options, this);
    this.#endChecks = new EndChecks(options.clock, (claimed) => this.#renewal.renewOnce(claimed));
    this.#ends = endRecords(options);
    listenToOtherBrokers(options, this, this.#endChecks);
  }

  /** Loads the stored session once; later calls return the same promise. */
  start(): Promise<void> {
    this.#ready ??= this.#options.storage.loadSession(this.#options.slot).then(
      (record) => {
        this.held.apply(record);
        this.held.loaded = true;
      },
      (error: unknown) => {
        this.held.loaded = true;
        this.#options.onStorageError?.(error);
        this.held.emit({ status: 'loading' });
      },
    );
    return this.#ready;
  }

  state(): SessionState {
    return this.held.state();
  }

  /** The storage slot this session lives in (the broker key, or `admin:` and the broker key). */
  get slot(): string {
    return this.#options.slot;
  }

  get sessionKey(): string | null {
    return this.held.live?.sessionKey ?? null;
  }

  /** Token requests this session made (not those of other brokers). */
  get refreshCount(): number {
    return this.#renewal.count;
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
      const token = await this.#renewal.renew(caller);
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
    return this.held.expiresAtMillis();
  }

  /** Starts a new session from a sign-in response; replaces whatever session the slot had. */
  async signIn(tokens: { access_token: string; refresh_token: string }, userId?: string | null): Promise<void> {
    await this.start();
    const record = this.held.signIn(tokens, userId ?? userIdOf(tokens.access_token), this.#options.slot);
    await this.#options.storage.saveSession(record).catch((error: unknown) => this.#options.onStorageError?.(error));
    this.#options.bus.post({ type: 'session', slot: this.#options.slot, sessionKey: record.sessionKey, end: null });
  }

  /**
   * Ends the session (only if it is still `expectedKey`, when given) and tells every broker why.
   * The reason is stored too, so a broker that only reads storage later reports the same one.
   */
  async end(end: SessionEnd, expectedKey?: string): Promise<void> {
    await this.start();
    await endHeldSession(this.held, this.#ends, this.#options, end, expectedKey, () => this.reload());
  }

  /** Asks the service whether the session held is still alive (hints.ts's `askWhetherAlive`). */
  confirmAlive(): void {
    askWhetherAlive(this.held, this.#endChecks);
  }

  /** The broker is stopping: no more retries of a sign-out its closed storage could not take anyway. */
  close(): void {
    this.#ends.close();
    this.#endChecks.close();
  }

  /** Whether this broker is still trying to record a sign-out (storage refused it so far). */
  get endPending(): boolean {
    return this.#ends.pending();
  }

  /** Re-reads storage (another broker changed something) and adopts it. */
  async reload(): Promise<void> {
    await this.start();
    let record: SessionRecord | null;
    try {
      record = await this.#options.storage.loadSession(this.#options.slot);
    } catch {
      return;
    }
    this.held.adoptReloaded(record, this.#options.clock.now());
  }
}
