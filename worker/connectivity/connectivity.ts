import { Emitter } from '../../contract/events.js';
import type { ConnectivitySnapshot } from '../../contract/state.js';
import { diagnoseNetwork } from '../../protocol/diagnostics.js';
import { messageOf, NetworkError, type NetworkDiagnostics } from '../../protocol/errors/errors.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import type { Clock } from '../../protocol/retry.js';

export type { ConnectivitySnapshot, ConnectivityState } from '../../contract/state.js';

export interface ConnectivityOptions {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  /** Probe backoff while offline: from 1 s, doubling, at most this. Default 15 s. */
  maxProbeIntervalMillis?: number;
}

/** Server errors in a row that make the state degraded. */
const DEGRADED_AFTER = 2;
/**
 * How old the last word from the service may be before a tab that connects or comes back into view
 * has the broker check (once, whatever the number of tabs): the state it shows is then right within
 * about this long, also when nothing else is being fetched.
 */
export const CONTACT_FRESH_MILLIS = 2000;
/**
 * Checks that tabs' reports ask for: one a second, however many reports come (or which). A tab's
 * `online` after its own `offline` may use one more at once (the network came back right after the
 * check its `offline` asked for), which the next second pays for.
 */
const REPORT_CHECK_INTERVAL_MILLIS = 1000;
const FIRST_PROBE_INTERVAL_MILLIS = 1000;

/** A tab's word on `navigator.onLine`. */
interface BrowserReport {
  online: boolean;
  atMillis: number;
}

/**
 * Online, degraded or offline, from what the broker's requests meet and from checks of the service
 * (`/api/v1` and `/health`). A tab's report of the browser's `online`/`offline` is a hint: it asks
 * for a check, it leaves with the tab, and any answer from the service outweighs it.
 */
export class Connectivity {
  private snap: ConnectivitySnapshot;
  private readonly changes = new Emitter<ConnectivitySnapshot>();
  private waiters: Array<() => void> = [];
  private closed = false;
  /** A check is under way. */
  private checking = false;
  /** The next check: a probe's backoff step, or the moment the last contact grows old. */
  private planned: { cancel: AbortController; atMillis: number; madeAtMillis: number } | null = null;
  /** Probing with backoff, after a failure, until the API answers. */
  private recovering = false;
  private probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
  private lastCheckAtMillis = Number.NEGATIVE_INFINITY;
  /**
   * When the checks reports asked for so far have had their second each (they are rate-limited
   * apart from the probes): a check may go once this is past, or, for an `online` after an
   * `offline`, up to one interval before it.
   */
  private reportChecksPaidUntilMillis = Number.NEGATIVE_INFINITY;
  /**
   * A tab said "online" during a check: if that check finds the service unreachable, one more soon (rate-limited as
   * reports are; `back`: after its own `offline`).
   */
  private recheckAfterCheck: { back: boolean } | null = null;
  /** The service's last answer of any kind; the broker's start counts as one (it starts "online"). */
  private lastHeardAtMillis: number;
  /** Each connected tab's last report, by the tab's number; the latest report last. */
  private readonly reports = new Map<number, BrowserReport>();

  constructor(private readonly options: ConnectivityOptions) {
    this.lastHeardAtMillis = options.clock.now();
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
    this.lastHeardAtMillis = now;
    if (status >= 500 || status === 429) {
      const failures = this.snap.consecutiveFailures + 1;
      this.update({
        consecutiveFailures: failures,
        lastError: {
          kind: 'http-status',
          code: 'HTTP_STATUS_ERROR',
          message: `The service answered ${status}.`,
          status,
          body: '',
        },
        lastErrorAtMillis: now,
        ...(failures >= DEGRADED_AFTER && this.snap.state === 'online' ? { state: 'degraded' as const } : {}),
      });
      return;
    }
    this.recovered(now);
    this.update({ state: 'online', consecutiveFailures: 0, lastSuccessAtMillis: now });
  }

  /** A request got no answer: check whether the service is reachable at all. */
  recordNetworkFailure(error: unknown): void {
    const now = this.options.clock.now();
    this.update({
      consecutiveFailures: this.snap.consecutiveFailures + 1,
      lastError: serializeError(
        error instanceof NetworkError ? error : new NetworkError('NETWORK_UNREACHABLE', messageOf(error), null, 1),
      ),
      lastErrorAtMillis: now,
      ...(this.snap.state === 'online' ? { state: 'degraded' as const } : {}),
    });
    // Already probing: its backoff goes on (every failing request must not restart it).
    if (this.recovering) return;
    this.recovering = true;
    this.probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
    this.checkNow();
  }

  /**
   * A tab forwarded `online`/`offline` (no such events fire inside a SharedWorker). A hint only: it
   * has the service checked soon, and the check decides. So a page that says "offline" (wrongly,
   * or to do harm) cannot stop writes or hold reads while the service answers.
   */
  reportBrowser(tab: number, online: boolean): void {
    const before = this.reports.get(tab)?.online;
    this.reports.delete(tab);
    this.reports.set(tab, { online, atMillis: this.options.clock.now() });
    this.updateBrowserOnline();
    // "Offline": at most one check a second, however many tabs (or a page repeating it) say so.
    // A later "online" while the broker finds the service unreachable is the browser's `online`
    // event, a network that came back: checked within the same rate limit, not at the end of the
    // probe's backoff, and at once when this tab said offline before (one check ahead of the rate,
    // which the next second pays for: a page alternating the two still gets one check a second).
    // A check under way may have started before the network came back: one more follows it. A
    // tab's first report is no news (its arrival has the contact verified anyway), nor is any with
    // the broker online.
    if (!online) this.checkSoon(false);
    else if (before === undefined || this.snap.state === 'online') return;
    else if (this.checking)
      this.recheckAfterCheck = { back: before === false || this.recheckAfterCheck?.back === true };
    else this.checkSoon(before === false);
  }

  /** A tab went away: its report goes with it. */
  forgetTab(tab: number): void {
    if (this.reports.delete(tab)) this.updateBrowserOnline();
  }

  /**
   * A tab connected or came back into view: it must not show a state older than
   * CONTACT_FRESH_MILLIS. Checks now if the last word from the service (or the last check) is
   * older, else when it will be, unless the service is heard from meanwhile. One check for any
   * number of tabs.
   */
  verifyContact(): void {
    if (this.closed || this.checking) return;
    const freshUntil = Math.max(this.lastHeardAtMillis, this.lastCheckAtMillis) + CONTACT_FRESH_MILLIS;
    if (this.options.clock.now() >= freshUntil) this.checkNow();
    else this.plan(freshUntil);
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
    this.cancelPlan();
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
    const notable = (['state', 'lastError', 'diagnostics', 'browserOnline'] as const).some(
      (key) => key in patch && patch[key] !== previous[key],
    );
    if (!notable) return;
    if (next.state !== 'offline') for (const wake of this.waiters.splice(0)) wake();
    this.changes.emit(next);
  }

  /** The browser's word as the snapshot shows it: the latest report of a tab still connected. */
  private updateBrowserOnline(): void {
    const latest = [...this.reports.values()].at(-1);
    this.update({ browserOnline: latest === undefined ? null : latest.online });
  }

  /** The API answered: probing ends, and reports of "offline" made before the answer no longer count. */
  private recovered(now: number): void {
    this.recovering = false;
    this.probeIntervalMillis = FIRST_PROBE_INTERVAL_MILLIS;
    this.cancelPlan();
    let dropped = false;
    for (const [tab, report] of this.reports) {
      if (!report.online && report.atMillis <= now) dropped = this.reports.delete(tab) || dropped;
    }
    if (dropped) this.updateBrowserOnline();
  }

  /**
   * A check for a report: now if the reports' rate allows it (`back`: a tab's `online` after its own
   * `offline`, which may go one interval ahead), else when it does. A check already planned by then
   * serves this report too.
   */
  private checkSoon(back: boolean): void {
    if (this.closed || this.checking) return;
    const now = this.options.clock.now();
    const paidUntil = this.reportChecksPaidUntilMillis;
    const atMillis = Math.max(now, back ? paidUntil - REPORT_CHECK_INTERVAL_MILLIS : paidUntil);
    if (this.planned !== null && this.planned.atMillis <= atMillis) return;
    this.reportChecksPaidUntilMillis = Math.max(paidUntil, atMillis) + REPORT_CHECK_INTERVAL_MILLIS;
    if (atMillis <= now) this.checkNow();
    else this.plan(atMillis);
  }

  /**
   * A check at `atMillis` (an earlier plan stands). When it comes, it is skipped if the service
   * answered meanwhile, unless probing after a failure.
   */
  private plan(atMillis: number): void {
    if (this.closed || (this.planned !== null && this.planned.atMillis <= atMillis)) return;
    this.cancelPlan();
    const { clock } = this.options;
    const madeAtMillis = clock.now();
    const cancel = new AbortController();
    this.planned = { cancel, atMillis, madeAtMillis };
    clock.sleep(Math.max(0, atMillis - madeAtMillis), cancel.signal).then(
      () => {
        if (this.planned?.cancel !== cancel) return;
        this.planned = null;
        if (this.recovering || this.lastHeardAtMillis <= madeAtMillis) this.checkNow();
      },
      () => undefined,
    );
  }

  private cancelPlan(): void {
    if (this.planned === null) return;
    this.planned.cancel.abort();
    this.planned = null;
  }

  /** Checks `/api/v1` and `/health` once; the answer decides the state. */
  private checkNow(): void {
    if (this.checking || this.closed) return;
    this.cancelPlan();
    this.checking = true;
    const { clock } = this.options;
    this.lastCheckAtMillis = clock.now();
    void diagnoseNetwork({
      baseUrl: this.options.baseUrl,
      fetch: this.options.fetch,
      navigatorOnline: this.snap.browserOnline,
      timeoutMillis: 5000,
      now: () => clock.now(),
    }).then(
      (diagnostics) => {
        this.checking = false;
        if (!this.closed) this.settle(diagnostics);
      },
      () => {
        this.checking = false;
      },
    );
  }

  private settle(diagnostics: NetworkDiagnostics): void {
    const now = this.options.clock.now();
    if (diagnostics.apiRoot.reachable) {
      this.recheckAfterCheck = null;
      this.lastHeardAtMillis = now;
      const wasDown = this.recovering || this.snap.state === 'offline';
      this.recovered(now);
      // Nothing to tell the tabs when the state stands: an online broker stays online, and one
      // degraded by server errors stays so until a real call is answered well.
      if (this.snap.state === 'online' || (this.snap.state === 'degraded' && !wasDown)) {
        this.update({ lastSuccessAtMillis: now });
        return;
      }
      this.update({ state: 'online', consecutiveFailures: 0, diagnostics, lastSuccessAtMillis: now });
      return;
    }
    // The origin answering its health check while the API itself does not is trouble, not health;
    // neither answering is offline. Either way, probe again after the backoff.
    this.recovering = true;
    this.update(diagnostics.health.reachable ? { state: 'degraded', diagnostics } : { state: 'offline', diagnostics });
    const recheck = this.recheckAfterCheck;
    if (recheck !== null) {
      this.recheckAfterCheck = null;
      this.plan(now + this.probeIntervalMillis);
      return this.checkSoon(recheck.back);
    }
    this.plan(now + this.probeIntervalMillis);
    this.probeIntervalMillis = Math.min(this.probeIntervalMillis * 2, this.options.maxProbeIntervalMillis ?? 15_000);
  }
}
