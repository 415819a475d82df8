import type { Clock } from '../../protocol/clock.js';
import type { LockManagerLike } from '../coordination/locks.js';

/** How long a tab has to answer the broker over its own port before it counts as gone. */
export const TAB_PING_TIMEOUT_MILLIS = 5000;
/** A tab that names no held lifetime lock this long after connecting is asked whether it is there. */
export const LOCKLESS_CHECK_MILLIS = 10_000;

/** Asks a tab over its own port: true when it answers, false when its port is known to be closed. */
export type Ping = () => Promise<boolean>;

interface Watched {
  ping: Ping | undefined;
  /** The held lock watched now; undefined before the tab names one, or after it was freed. */
  lockName: string | undefined;
  watcher: AbortController | undefined;
  /** Pending until the tab first names a held lock. */
  firstCheck: unknown;
  /** When the tab last showed it is there (it connected, or answered). */
  confirmedAtMillis: number;
  asking: boolean;
}

export interface LivenessOptions<T> {
  locks: LockManagerLike | null;
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  /** The tab is gone. */
  release(tab: T): void;
}

/**
 * How the broker learns that a tab is gone. Ports never say so, and a lock cannot prove it alone:
 * every page of the origin sees the tabs' lock names (`navigator.locks.query()`) and can take one
 * from its holder (`steal`) and let it go. So a freed lock only makes the broker ask the tab over
 * its own port, which no other page can reach, and only silence releases it. A tab that names no
 * held lock (no Web Locks, or a page that never names one) is asked a while after connecting, and
 * again when later tabs connect.
 */
export class TabLiveness<T extends object> {
  private readonly watched = new Map<T, Watched>();
  private lastSweepMillis = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: LivenessOptions<T>) {}

  /** A tab connected; `ping` is how to ask it (none for a tab in the broker's own page). */
  add(tab: T, ping: Ping | undefined): void {
    const { clock } = this.options;
    const now = clock.now();
    this.sweepLockless(now);
    const state: Watched = {
      ping,
      lockName: undefined,
      watcher: undefined,
      firstCheck: undefined,
      confirmedAtMillis: now,
      asking: false,
    };
    this.watched.set(tab, state);
    if (ping !== undefined) {
      state.firstCheck = clock.setTimeout(() => {
        state.firstCheck = undefined;
        if (state.lockName === undefined) void this.ask(tab);
      }, LOCKLESS_CHECK_MILLIS);
    }
  }

  remove(tab: T): void {
    const state = this.watched.get(tab);
    if (state === undefined) return;
    this.watched.delete(tab);
    state.watcher?.abort();
    if (state.firstCheck !== undefined) this.options.clock.clearTimeout(state.firstCheck);
  }

  /**
   * The tab names the lock it holds for its life: once held after connecting, and a fresh one if
   * another page took that. A lock nobody holds changes nothing: it would read as a tab already gone.
   */
  async watch(tab: T, lockName: string): Promise<void> {
    const { locks } = this.options;
    const state = this.watched.get(tab);
    if (locks === null || state === undefined || state.lockName === lockName) return;
    let held: boolean;
    try {
      held = await locks.request(lockName, { ifAvailable: true }, (lock) => lock === null);
    } catch {
      return;
    }
    if (!held || this.watched.get(tab) !== state) return;
    state.watcher?.abort();
    const watcher = new AbortController();
    state.lockName = lockName;
    state.watcher = watcher;
    try {
      await locks.request(lockName, { signal: watcher.signal }, () => undefined);
    } catch {
      // Aborted: the tab named another lock, or it was released.
      return;
    }
    if (state.watcher !== watcher || this.watched.get(tab) !== state) return;
    // Freed: the tab is gone, or another page took the lock from a tab that is still there.
    state.lockName = undefined;
    state.watcher = undefined;
    await this.ask(tab);
  }

  /**
   * Asks the tab over its own port; releases it unless it answers in time. With no way to ask, a freed lock is the last
   * word.
   */
  private async ask(tab: T): Promise<void> {
    const state = this.watched.get(tab);
    if (state === undefined || state.asking) return;
    if (state.ping === undefined) return this.options.release(tab);
    state.asking = true;
    const alive = await this.answered(state.ping);
    state.asking = false;
    if (this.watched.get(tab) !== state) return;
    if (alive) state.confirmedAtMillis = this.options.clock.now();
    else this.options.release(tab);
  }

  private answered(ping: Ping): Promise<boolean> {
    const { clock } = this.options;
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), TAB_PING_TIMEOUT_MILLIS);
      const settle = (alive: boolean) => {
        clock.clearTimeout(timer);
        resolve(alive);
      };
      ping().then(settle, () => settle(false));
    });
  }

  /**
   * A tab connecting is the hint: tabs without a watched lock, not heard from for a while, are asked again (at most
   * once per period).
   */
  private sweepLockless(now: number): void {
    if (now - this.lastSweepMillis < LOCKLESS_CHECK_MILLIS) return;
    this.lastSweepMillis = now;
    for (const [tab, state] of this.watched) {
      if (
        state.ping !== undefined &&
        state.lockName === undefined &&
        state.firstCheck === undefined &&
        now - state.confirmedAtMillis >= LOCKLESS_CHECK_MILLIS
      )
        void this.ask(tab);
    }
  }
}
