/**
 * While a shown tab watches connectivity (a banner, the devtools), the service is confirmed every watch interval
 * unless it was heard from (or checked) meanwhile: an idle page that shows a banner sees a stopped service within about
 * one interval, and a busy one costs nothing more. A confirmation is one `GET /api/v1`; only when it finds no answer,
 * the whole check (checks.ts). Nobody watching, or every tab hidden: no confirmations at all.
 */
import type { Clock } from '../../protocol/clock.js';
import { probeApiRoot } from '../../protocol/diagnostics.js';
import { CHECK_TIMEOUT_MILLIS, type ConnectivityChecks } from './checks.js';

export interface WatchingOptions {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  /** How often (ms) the service is confirmed while watched; 0 never. */
  intervalMillis: number;
  /** When the service last answered anything. */
  lastHeardAtMillis(): number;
  /** A confirmation got an answer from the API (its status). */
  heard(status: number): void;
}

export class WatchedConfirmations {
  /** The next confirmation while someone watches, or null. */
  #timer: unknown = null;
  #closed = false;
  readonly #checks: ConnectivityChecks;
  readonly #options: WatchingOptions;

  constructor(checks: ConnectivityChecks, options: WatchingOptions) {
    this.#checks = checks;
    this.#options = options;
  }

  /** Whether a shown tab watches connectivity now. */
  setWatched(watched: boolean): void {
    const interval = this.#options.intervalMillis;
    if (!watched || interval <= 0 || this.#closed) return this.#stop();
    if (this.#timer === null) this.#schedule(interval);
  }

  close(): void {
    this.#closed = true;
    this.#stop();
  }

  #schedule(interval: number): void {
    const { clock } = this.#options;
    const checks = this.#checks;
    const due = () => Math.max(this.#options.lastHeardAtMillis(), checks.lastCheckAtMillis) + interval;
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = null;
        if (this.#closed) return;
        // Known to be down: the whole check (its first probe would only fail); else the one light request.
        if (clock.now() >= due()) checks.recovering ? checks.checkNow() : this.#confirmNow();
        this.#schedule(interval);
      },
      Math.max(0, Math.min(interval, due() - clock.now())),
    );
  }

  #stop(): void {
    if (this.#timer !== null) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** One `GET /api/v1`; only when it finds no answer, the whole check (the API root and `/health`). */
  #confirmNow(): void {
    const checks = this.#checks;
    if (checks.checking || this.#closed) return;
    checks.checking = true;
    const { clock } = this.#options;
    checks.lastCheckAtMillis = clock.now();
    void probeApiRoot({
      baseUrl: this.#options.baseUrl,
      fetch: this.#options.fetch,
      timeoutMillis: CHECK_TIMEOUT_MILLIS,
      now: () => clock.now(),
    }).then(
      (probe) => {
        checks.checking = false;
        if (this.#closed) return;
        if (probe.reachable) this.#options.heard(probe.status ?? 200);
        else checks.checkNow();
      },
      () => {
        checks.checking = false;
      },
    );
  }
}
