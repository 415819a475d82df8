/** What tabs say of `navigator.onLine`, each tab's latest word while it is connected; the latest report last. */

interface BrowserReport {
  online: boolean;
  atMillis: number;
}

export class BrowserReports {
  readonly #reports = new Map<number, BrowserReport>();

  /** Records tab `tab`'s word; returns what it said before (undefined for its first report). */
  report(tab: number, online: boolean, atMillis: number): boolean | undefined {
    const before = this.#reports.get(tab)?.online;
    this.#reports.delete(tab);
    this.#reports.set(tab, { online, atMillis });
    return before;
  }

  /** A tab went away: whether it had said anything. */
  forget(tab: number): boolean {
    return this.#reports.delete(tab);
  }

  /** The browser's word as the snapshot shows it: the latest report of a tab still connected, or null. */
  latest(): boolean | null {
    const latest = [...this.#reports.values()].at(-1);
    return latest === undefined ? null : latest.online;
  }

  /** The service answered at `now`: reports of "offline" made before then no longer count. Whether any went. */
  dropOfflineUntil(now: number): boolean {
    let dropped = false;
    for (const [tab, report] of this.#reports) {
      if (!report.online && report.atMillis <= now) dropped = this.#reports.delete(tab) || dropped;
    }
    return dropped;
  }
}
