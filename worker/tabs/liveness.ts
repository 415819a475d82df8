import type { Clock } from '../../protocol/clock.js';
import type { LockManagerLike } from '../coordination/locks.js';

/** How long a tab has to answer the broker over its own port before it counts as gone. */
export const TAB_PING_TIMEOUT_MILLIS = 5000;
/**
 * A tab that names no held lifetime lock this long after connecting is asked whether it is there, and again once per
 * this period while it names none.
 */
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
  /** When the tab last showed it is there (it connected, or answered a question asked then). */
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
 * again every LOCKLESS_CHECK_MILLIS while it names none: a page that left while no other tab came
 * is found gone all the same (issue 39, item 1), and the brokers it made are freed.
 */
export class TabLiveness<T extends object> {
  readonly #watched = new Map<T, Watched>();
  /** The periodic check of lock-less tabs, set while there is one. */
  #locklessTimer: unknown = undefined;

  readonly #options: LivenessOptions<T>;
  constructor(options: LivenessOptions<T>) {
    this.#options = options;
  }

  /** A tab connected; `ping` is how to ask it (none for a tab in the broker's own page). */
  add(tab: T, ping: Ping | undefined): void {
    const { clock } = this.#options;
    const now = clock.now();
    const state: Watched = {
      ping,
      lockName: undefined,
      watcher: undefined,
      firstCheck: undefined,
      confirmedAtMillis: now,
      asking: false,
    };
    this.#watched.set(tab, state);
    if (ping !== undefined) {
      state.firstCheck = clock.setTimeout(() => {
        state.firstCheck = undefined;
        if (state.lockName === undefined) void this.#ask(tab);
        this.#checkLocklessLater();
      }, LOCKLESS_CHECK_MILLIS);
    }
  }

  remove(tab: T): void {
    const state = this.#watched.get(tab);
    if (state === undefined) return;
    this.#watched.delete(tab);
    state.watcher?.abort();
    const { clock } = this.#options;
    if (state.firstCheck !== undefined) clock.clearTimeout(state.firstCheck);
    if (this.#locklessTimer !== undefined && !this.#anyLockless()) {
      clock.clearTimeout(this.#locklessTimer);
      this.#locklessTimer = undefined;
    }
  }

  /**
   * The tab names the lock it holds for its life: once held after connecting, and a fresh one if
   * another page took that. A lock nobody holds changes nothing: it would read as a tab already gone.
   */
  async watch(tab: T, lockName: string): Promise<void> {
    const { locks } = this.#options;
    const state = this.#watched.get(tab);
    if (locks === null || state === undefined || state.lockName === lockName) return;
    let held: boolean;
    try {
      held = await locks.request(lockName, { ifAvailable: true }, (lock) => lock === null);
    } catch {
      return;
    }
    if (!held || this.#watched.get(tab) !== state) return;
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
    if (state.watcher !== watcher || this.#watched.get(tab) !== state) return;
    // Freed: the tab is gone, or another page took the lock from a tab that is still there.
    state.lockName = undefined;
    state.watcher = undefined;
    await this.#ask(tab);
    // Lock-less now, unless it names a fresh lock.
    this.#checkLocklessLater();
  }

  /**
   * Asks the tab over its own port; releases it unless it answers in time. With no way to ask, a freed lock is the last
   * word.
   */
  async #ask(tab: T): Promise<void> {
    const state = this.#watched.get(tab);
    if (state === undefined || state.asking) return;
    if (state.ping === undefined) return this.#options.release(tab);
    state.asking = true;
    const askedAtMillis = this.#options.clock.now();
    const alive = await this.#answered(state.ping);
    state.asking = false;
    if (this.#watched.get(tab) !== state) return;
    // There when asked: so the next periodic check asks it again, one period after this one.
    if (alive) state.confirmedAtMillis = askedAtMillis;
    else this.#options.release(tab);
  }

  #answered(ping: Ping): Promise<boolean> {
    const { clock } = this.#options;
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), TAB_PING_TIMEOUT_MILLIS);
      const settle = (alive: boolean) => {
        clock.clearTimeout(timer);
        resolve(alive);
      };
      ping().then(settle, () => settle(false));
    });
  }

  /** Whether a tab may answer but names no lock watched now, past its first check. */
  static #lockless(state: Watched): boolean {
    return state.ping !== undefined && state.lockName === undefined && state.firstCheck === undefined;
  }

  #anyLockless(): boolean {
    for (const state of this.#watched.values()) if (TabLiveness.#lockless(state)) return true;
    return false;
  }

  /**
   * In LOCKLESS_CHECK_MILLIS, asks every lock-less tab not heard from for that long (one question per tab and period),
   * then again, as long as there is one.
   */
  #checkLocklessLater(): void {
    if (this.#locklessTimer !== undefined || !this.#anyLockless()) return;
    const { clock } = this.#options;
    this.#locklessTimer = clock.setTimeout(() => {
      this.#locklessTimer = undefined;
      const now = clock.now();
      for (const [tab, state] of this.#watched)
        if (TabLiveness.#lockless(state) && now - state.confirmedAtMillis >= LOCKLESS_CHECK_MILLIS) void this.#ask(tab);
      this.#checkLocklessLater();
    }, LOCKLESS_CHECK_MILLIS);
  }
}
