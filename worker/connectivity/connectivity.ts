/**
 * Online, degraded or offline, from what the broker's requests meet and from checks of the service
 * (`/api/v1` and `/health`, scheduled by checks.ts). A tab's report of the browser's `online`/`offline` is a hint:
 * it asks for a check, it leaves with the tab, and any answer from the service outweighs it.
 */
import { Emitter } from '../../contract/events.js';
import type { ConnectivitySnapshot } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';
import type { NetworkDiagnostics } from '../../protocol/errors/errors.js';
import { BrowserReports } from './browserReports.js';
import { ConnectivityChecks } from './checks.js';
import { WatchedConfirmations } from './watching.js';
import { afterCheck, afterNetworkFailure, afterResponse, initialSnapshot } from './transitions.js';
import { backoff, waitUntilOnline } from './waits.js';

export type { ConnectivitySnapshot, ConnectivityState } from '../../contract/state.js';

export interface ConnectivityOptions {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Probe backoff while offline: from 1 s, doubling, at most this. Default 15 s. */
  maxProbeIntervalMillis?: number;
  /** While a shown tab watches connectivity, the service is confirmed this often (ms); 0 never. Default 0. */
  watchIntervalMillis?: number;
}

export { CONTACT_FRESH_MILLIS } from './checks.js';

export class Connectivity {
  #snap: ConnectivitySnapshot;
  readonly #changes = new Emitter<ConnectivitySnapshot>();
  readonly #closing = new Emitter();
  closed = false;
  readonly #checks: ConnectivityChecks;
  readonly #watching: WatchedConfirmations;
  /** The service's last answer of any kind; the broker's start counts as one (it starts "online"). */
  #lastHeardAtMillis: number;
  /** Each connected tab's last report. */
  readonly #reports = new BrowserReports();

  readonly #options: ConnectivityOptions;
  constructor(options: ConnectivityOptions) {
    this.#options = options;
    this.#lastHeardAtMillis = options.clock.now();
    this.#snap = initialSnapshot(options.clock.now());
    this.#checks = new ConnectivityChecks({
      ...options,
      browserOnline: () => this.#snap.browserOnline,
      lastHeardAtMillis: () => this.#lastHeardAtMillis,
      settle: (diagnostics) => this.#settle(diagnostics),
    });
    this.#watching = new WatchedConfirmations(this.#checks, {
      ...options,
      intervalMillis: options.watchIntervalMillis ?? 0,
      lastHeardAtMillis: () => this.#lastHeardAtMillis,
      heard: (status) => this.recordResponse(status),
    });
  }

  snapshot(): ConnectivitySnapshot {
    return this.#snap;
  }

  subscribe(listener: (snapshot: ConnectivitySnapshot) => void): () => void {
    return this.#changes.subscribe(listener);
  }

  onClose(listener: () => void): () => void {
    return this.#closing.subscribe(listener);
  }

  /** The service answered (any status). 5xx/429/508 count as trouble, not as being offline. */
  recordResponse(status: number): void {
    const now = this.#options.clock.now();
    this.#lastHeardAtMillis = now;
    const patch = afterResponse(this.#snap, status, now);
    if (patch.state === 'online') this.#recovered(now);
    this.#update(patch);
  }

  /** A request got no answer: check whether the service is reachable at all. */
  recordNetworkFailure(error: unknown): void {
    this.#update(afterNetworkFailure(this.#snap, error, this.#options.clock.now()));
    this.#checks.startRecovering();
  }

  /**
   * A tab forwarded `online`/`offline` (no such events fire inside a SharedWorker). A hint only: it
   * has the service checked soon, and the check decides. So a page that says "offline" (wrongly,
   * or to do harm) cannot stop writes or hold reads while the service answers.
   */
  reportBrowser(tab: number, online: boolean): void {
    const before = this.#reports.report(tab, online, this.#options.clock.now());
    this.#updateBrowserOnline();
    this.#checks.afterReport(online, before, this.#snap.state);
  }

  /** A tab went away: its report goes with it. */
  forgetTab(tab: number): void {
    if (this.#reports.forget(tab)) this.#updateBrowserOnline();
  }

  /**
   * A tab connected or came back into view: it must not show a state older than CONTACT_FRESH_MILLIS (checks.ts).
   */
  verifyContact(): void {
    if (!this.closed) this.#checks.verifyContact();
  }

  /** Whether a shown tab watches connectivity: then the service is confirmed at the watch interval (checks.ts). */
  setWatched(watched: boolean): void {
    this.#watching.setWatched(watched);
  }

  /** Resolves when requests may go: at once unless offline. */
  waitUntilOnline(signal?: AbortSignal): Promise<void> {
    return waitUntilOnline(this, signal);
  }

  /** A retry's backoff, cut short when the service is reachable again after an outage (waits.ts). */
  backoff(millis: number, signal?: AbortSignal): Promise<void> {
    return backoff(this, this.#options.clock, millis, signal);
  }

  get isOffline(): boolean {
    return this.#snap.state === 'offline';
  }

  close(): void {
    this.closed = true;
    this.#checks.close();
    this.#watching.close();
    this.#closing.emit();
  }

  /**
   * Applies a patch. Subscribers hear about what they show (state, error, diagnostics, the
   * browser's word); bookkeeping such as the time of the last success changes silently, or every
   * answer from the service would wake every tab.
   */
  #update(patch: Partial<ConnectivitySnapshot>): void {
    const previous = this.#snap;
    const next = { ...previous, ...patch };
    if (next.state !== previous.state) next.sinceMillis = this.#options.clock.now();
    this.#snap = next;
    const notable = (['state', 'lastError', 'diagnostics', 'browserOnline'] as const).some(
      (key) => key in patch && patch[key] !== previous[key],
    );
    if (notable) this.#changes.emit(next);
  }

  /** The browser's word as the snapshot shows it: the latest report of a tab still connected. */
  #updateBrowserOnline(): void {
    this.#update({ browserOnline: this.#reports.latest() });
  }

  /** The API answered: probing ends, and reports of "offline" made before the answer no longer count. */
  #recovered(now: number): void {
    this.#checks.recovered();
    if (this.#reports.dropOfflineUntil(now)) this.#updateBrowserOnline();
  }

  /** What a check found decides the state; unreachable, the probes go on with their backoff. */
  #settle(diagnostics: NetworkDiagnostics): void {
    const now = this.#options.clock.now();
    if (diagnostics.apiRoot.reachable) {
      this.#checks.reachable();
      this.#lastHeardAtMillis = now;
      const wasDown = this.#checks.recovering || this.#snap.state === 'offline';
      this.#recovered(now);
      this.#update(afterCheck(this.#snap, diagnostics, wasDown, now, this.#options.baseUrl));
      return;
    }
    this.#checks.recovering = true;
    this.#update(afterCheck(this.#snap, diagnostics, false, now, this.#options.baseUrl));
    this.#checks.unreachable(now);
  }
}
