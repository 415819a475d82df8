/**
 * When the broker checks the service (`/api/v1` and `/health`): at once after a request found no answer, then with
 * backoff until the API answers; when a tab connects or comes back into view and the last word from the service is
 * old; when tabs report the browser's `online`/`offline` (rate-limited: a page repeating itself gets one check a
 * second). One check at a time, whatever the number of tabs. What a check finds is the state's to decide
 * (connectivity.ts).
 *
 * Tabs' reports: "offline" has a check within the rate limit, however many tabs (or a page repeating it) say so. A
 * later "online" while the broker finds the service unreachable is the browser's `online` event, a network that came
 * back: checked within the same rate limit, not at the end of the probe's backoff, and at once when this tab said
 * offline before (one check ahead of the rate, which the next second pays for: a page alternating the two still
 * gets one check a second). A check under way may have started before the network came back: one more follows it.
 * A tab's first report is no news (its arrival has the contact verified anyway), nor is any with the broker online.
 */
import { diagnoseNetwork } from '../../protocol/diagnostics.js';
import type { NetworkDiagnostics } from '../../protocol/errors/errors.js';
import type { Clock } from '../../protocol/clock.js';
import type { ConnectivityState } from '../../contract/state.js';

/**
 * Checks that tabs' reports ask for: one a second, however many reports come (or which). A tab's
 * `online` after its own `offline` may use one more at once (the network came back right after the
 * check its `offline` asked for), which the next second pays for.
 */
const REPORT_CHECK_INTERVAL_MILLIS = 1000;
/** Probe backoff while the service cannot be reached: from 1 s, doubling, at most the maximum (default 15 s). */
const FIRST_PROBE_INTERVAL_MILLIS = 1000;
export const MAX_PROBE_INTERVAL_MILLIS = 15_000;
/**
 * How old the last word from the service may be before a tab that connects or comes back into view
 * has the broker check (once, whatever the number of tabs): the state it shows is then right within
 * about this long, also when nothing else is being fetched.
 */
export const CONTACT_FRESH_MILLIS = 2000;
/** How long one check waits for each of its two answers. */
export const CHECK_TIMEOUT_MILLIS = 5000;

export interface CheckOptions {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  maxProbeIntervalMillis?: number | undefined;
  /** The browser's word, as tabs last reported it (the check's diagnostics carry it). */
  browserOnline(): boolean | null;
  /** When the service last answered anything. */
  lastHeardAtMillis(): number;
  /** A check's result: whether the service is reachable is for the state to decide. */
  settle(diagnostics: NetworkDiagnostics): void;
}

/**
 * When the checks reports asked for so far have had their second each (they are rate-limited apart from the
 * probes): a check may go once this is past, or, for an `online` after an `offline`, up to one interval before it.
 */
class ReportRate {
  #paidUntilMillis = Number.NEGATIVE_INFINITY;

  earliest(now: number, back: boolean): number {
    return Math.max(now, back ? this.#paidUntilMillis - REPORT_CHECK_INTERVAL_MILLIS : this.#paidUntilMillis);
  }

  pay(atMillis: number): void {
    this.#paidUntilMillis = Math.max(this.#paidUntilMillis, atMillis) + REPORT_CHECK_INTERVAL_MILLIS;
  }
}

export class ConnectivityChecks {
  #closed = false;
  /** A check is under way (a confirmation while watched counts: watching.ts). */
  checking = false;
  /** The next check: a probe's backoff step, or the moment the last contact grows old. */
  #planned: { cancel: AbortController; atMillis: number; madeAtMillis: number } | null = null;
  /** Probing with backoff, after a failure, until the API answers. */
  recovering = false;
  #probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
  lastCheckAtMillis = Number.NEGATIVE_INFINITY;
  readonly #reportRate = new ReportRate();
  /**
   * A tab said "online" during a check: if that check finds the service unreachable, one more soon (rate-limited as
   * reports are; `back`: after its own `offline`).
   */
  #recheckAfterCheck: { back: boolean } | null = null;

  readonly #options: CheckOptions;
  constructor(options: CheckOptions) {
    this.#options = options;
  }

  /** A request got no answer: probe now, then with backoff, unless probing already (its backoff goes on). */
  startRecovering(): void {
    if (this.recovering) return;
    this.recovering = true;
    this.#probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
    this.checkNow();
  }

  /** The API answered: probing ends. */
  recovered(): void {
    this.recovering = false;
    this.#probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
    this.#cancelPlan();
  }

  /** A tab reported the browser's word (`before`: its previous report); see the rules at the top of this file. */
  afterReport(online: boolean, before: boolean | undefined, state: ConnectivityState): void {
    if (!online) this.checkSoon(false);
    else if (before === undefined || state === 'online') return;
    else if (this.checking)
      this.#recheckAfterCheck = { back: before === false || this.#recheckAfterCheck?.back === true };
    else this.checkSoon(before === false);
  }

  /** Checks now if the last word from the service (or the last check) is old, else when it will be. */
  verifyContact(): void {
    if (this.checking) return;
    const freshUntil = Math.max(this.#options.lastHeardAtMillis(), this.lastCheckAtMillis) + CONTACT_FRESH_MILLIS;
    if (this.#options.clock.now() >= freshUntil) this.checkNow();
    else this.plan(freshUntil);
  }

  /** The check found the service reachable: a recheck asked for during it is moot. */
  reachable(): void {
    this.#recheckAfterCheck = null;
  }

  /** The check found the service unreachable: probe again after the backoff, and recheck if a tab asked. */
  unreachable(now: number): void {
    this.recovering = true;
    const recheck = this.#recheckAfterCheck;
    this.plan(now + this.#probeIntervalMillis);
    if (recheck !== null) {
      this.#recheckAfterCheck = null;
      return this.checkSoon(recheck.back);
    }
    this.#probeIntervalMillis = Math.min(
      this.#probeIntervalMillis * 2,
      this.#options.maxProbeIntervalMillis ?? MAX_PROBE_INTERVAL_MILLIS,
    );
  }

  /**
   * A check for a report: now if the reports' rate allows it (`back`: a tab's `online` after its own
   * `offline`, which may go one interval ahead), else when it does. A check already planned by then
   * serves this report too.
   */
  checkSoon(back: boolean): void {
    if (this.#closed || this.checking) return;
    const now = this.#options.clock.now();
    const atMillis = this.#reportRate.earliest(now, back);
    if (this.#planned !== null && this.#planned.atMillis <= atMillis) return;
    this.#reportRate.pay(atMillis);
    if (atMillis <= now) this.checkNow();
    else this.plan(atMillis);
  }

  /**
   * A check at `atMillis` (an earlier plan stands). When it comes, it is skipped if the service
   * answered meanwhile, unless probing after a failure.
   */
  plan(atMillis: number): void {
    if (this.#closed || (this.#planned !== null && this.#planned.atMillis <= atMillis)) return;
    this.#cancelPlan();
    const { clock } = this.#options;
    const madeAtMillis = clock.now();
    const cancel = new AbortController();
    this.#planned = { cancel, atMillis, madeAtMillis };
    clock.sleep(Math.max(0, atMillis - madeAtMillis), cancel.signal).then(
      () => {
        if (this.#planned?.cancel !== cancel) return;
        this.#planned = null;
        if (this.recovering || this.#options.lastHeardAtMillis() <= madeAtMillis) this.checkNow();
      },
      () => undefined,
    );
  }

  /** Checks `/api/v1` and `/health` once; the answer decides the state. */
  checkNow(): void {
    if (this.checking || this.#closed) return;
    this.#cancelPlan();
    this.checking = true;
    const { clock } = this.#options;
    this.lastCheckAtMillis = clock.now();
    void diagnoseNetwork({
      baseUrl: this.#options.baseUrl,
      fetch: this.#options.fetch,
      navigatorOnline: this.#options.browserOnline(),
      timeoutMillis: CHECK_TIMEOUT_MILLIS,
      now: () => clock.now(),
    }).then(
      (diagnostics) => {
        this.checking = false;
        if (!this.#closed) this.#options.settle(diagnostics);
      },
      () => {
        this.checking = false;
      },
    );
  }

  close(): void {
    this.#closed = true;
    this.#cancelPlan();
  }

  #cancelPlan(): void {
    if (this.#planned === null) return;
    this.#planned.cancel.abort();
    this.#planned = null;
  }
}
