import { Emitter } from '../contract/events.js';
import type { ConnectivitySnapshot } from '../contract/state.js';
import { diagnoseNetwork } from '../protocol/diagnostics.js';
import { messageOf, NetworkError } from '../protocol/errors/errors.js';
import { serializeError } from '../protocol/errors/serialize.js';
import type { Clock } from '../protocol/retry.js';

export type { ConnectivitySnapshot, ConnectivityState } from '../contract/state.js';

export interface ConnectivityOptions {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Probe backoff while offline: from 1 s, doubling, at most this. Default 15 s. */
  maxProbeIntervalMillis?: number;
}

/** Server errors in a row that make the state degraded. */
const DEGRADED_AFTER = 2;

export class Connectivity {
  private snap: ConnectivitySnapshot;
  private readonly changes = new Emitter<ConnectivitySnapshot>();
  private waiters: Array<() => void> = [];
  private probing: AbortController | null = null;
  private closed = false;

  constructor(private readonly options: ConnectivityOptions) {
    this.snap = {
      state: 'online',
      sinceMillis: options.clock.now(),
      browserOnline: null,
      lastError: null,
      lastErrorAtMillis: null,
      lastSuccessAtMillis: null,
      consecutiveFailures: 0,
      diagnostics: null,
    };
  }

  snapshot(): ConnectivitySnapshot {
    return this.snap;
  }

  subscribe(listener: (snapshot: ConnectivitySnapshot) => void): () => void {
    return this.changes.subscribe(listener);
  }

  /** The service answered (any status). 5xx/429/508 count as trouble, not as being offline. */
  recordResponse(status: number): void {
    const now = this.options.clock.now();
    if (status >= 500 || status === 429) {
      const failures = this.snap.consecutiveFailures + 1;
      this.update({
        consecutiveFailures: failures,
        lastError: { kind: 'http-status', code: 'HTTP_STATUS_ERROR', message: `The service answered ${status}.`, status, body: '' },
        lastErrorAtMillis: now,
        ...(failures >= DEGRADED_AFTER && this.snap.state === 'online' ? { state: 'degraded' as const } : {}),
      });
      return;
    }
    this.stopProbing();
    this.update({ state: 'online', consecutiveFailures: 0, lastSuccessAtMillis: now });
  }

  /** A request got no answer: check whether the service is reachable at all. */
  recordNetworkFailure(error: unknown): void {
    const now = this.options.clock.now();
    this.update({
      consecutiveFailures: this.snap.consecutiveFailures + 1,
      lastError: serializeError(error instanceof NetworkError ? error : new NetworkError('NETWORK_UNREACHABLE', messageOf(error), null, 1)),
      lastErrorAtMillis: now,
      ...(this.snap.state === 'online' ? { state: 'degraded' as const } : {}),
    });
    this.startProbing();
  }

  /** A tab forwarded `online`/`offline` (no such events fire inside a SharedWorker). */
  reportBrowser(online: boolean): void {
    this.update({ browserOnline: online });
    if (!online) {
      this.update({ state: 'offline' });
      this.startProbing();
    } else if (this.snap.state !== 'online') {
      // The browser thinks it is back: check now rather than at the next backoff step.
      this.restartProbing();
    }
  }

  /** Resolves when requests may go: at once unless offline. */
  waitUntilOnline(signal?: AbortSignal): Promise<void> {
    if (this.snap.state !== 'offline' || this.closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(done);
    });
  }

  /**
   * Waits out a retry's backoff, or less: after an outage (the broker went offline during the wait),
   * a request need not sleep on once the service is reachable again (a tab heard `online`, a probe
   * got through). That puts fresh data on screen within moments of the network's return. A single
   * dropped connection, with the service never found unreachable, waits its whole backoff.
   */
  backoff(millis: number, signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const { clock } = this.options;
      const finish = () => {
        clock.clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        finish();
        reject(signal?.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      const timer = clock.setTimeout(() => {
        finish();
        resolve();
      }, millis);
      let outage = this.snap.state === 'offline';
      const unsubscribe = this.changes.subscribe((snapshot) => {
        if (snapshot.state === 'offline') outage = true;
        if (snapshot.state !== 'online' || !outage) return;
        finish();
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get isOffline(): boolean {
    return this.snap.state === 'offline';
  }

  close(): void {
    this.closed = true;
    this.stopProbing();
    for (const wake of this.waiters.splice(0)) wake();
  }

  /**
   * Applies a patch. Subscribers hear about what they show (state, error, diagnostics, the
   * browser's word); bookkeeping such as the time of the last success changes silently, or every
   * answer from the service would wake every tab.
   */
  private update(patch: Partial<ConnectivitySnapshot>): void {
    const previous = this.snap;
    const next = { ...previous, ...patch };
    if (next.state !== previous.state) next.sinceMillis = this.options.clock.now();
    this.snap = next;
    const notable = (['state', 'lastError', 'diagnostics', 'browserOnline'] as const).some((key) => key in patch && patch[key] !== previous[key]);
    if (!notable) return;
    if (next.state !== 'offline') for (const wake of this.waiters.splice(0)) wake();
    this.changes.emit(next);
  }

  private restartProbing(): void {
    this.stopProbing();
    this.startProbing();
  }

  private stopProbing(): void {
    this.probing?.abort();
    this.probing = null;
  }

  /** Probes `/health` with backoff until it answers; the result decides offline or back online. */
  private startProbing(): void {
    if (this.probing || this.closed) return;
    const controller = new AbortController();
    this.probing = controller;
    const { clock } = this.options;
    const max = this.options.maxProbeIntervalMillis ?? 15_000;
    void (async () => {
      for (let interval = 1000; !controller.signal.aborted; interval = Math.min(interval * 2, max)) {
        const diagnostics = await diagnoseNetwork({
          baseUrl: this.options.baseUrl,
          fetch: this.options.fetch,
          navigatorOnline: this.snap.browserOnline,
          timeoutMillis: 5000,
          now: () => clock.now(),
        });
        if (controller.signal.aborted) return;
        const reachable = diagnostics.health.reachable || diagnostics.apiRoot.reachable;
        if (reachable && this.snap.browserOnline !== false) {
          this.probing = null;
          // The origin answering its health check while the API itself does not is trouble, not health.
          this.update(
            diagnostics.apiRoot.reachable
              ? { state: 'online', consecutiveFailures: 0, diagnostics, lastSuccessAtMillis: clock.now() }
              : { state: 'degraded', diagnostics },
          );
          return;
        }
        this.update({ state: 'offline', diagnostics });
        try {
          await clock.sleep(interval, controller.signal);
        } catch {
          return;
        }
      }
    })();
  }
}
