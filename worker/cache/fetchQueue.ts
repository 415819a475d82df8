/**
 * How an entry's fetches are scheduled: one at a time; a new fetch starts no sooner than REFETCH_THROTTLE_MILLIS
 * after the previous one started; callers that arrive while a fetch waits its turn share that fetch. Each fetch
 * carries the cause of the caller that started it, told of every caller that joins (diagnostics), and a claim naming
 * the tab of every caller, whose turns its requests may go out in (worker/requests/scheduler.ts).
 */
import type { Clock } from '../../protocol/clock.js';
import { partyOf } from '../requests/onBehalfOf.js';
import { Claim } from '../requests/scheduler.js';
import { REFETCH_THROTTLE_MILLIS, type FetchCause } from './cacheEntry.js';

export class FetchQueue {
  #lastStartMillis = Number.NEGATIVE_INFINITY;
  /** The fetch under way, and who started it. */
  running: Promise<void> | null = null;
  #runningCause: FetchCause | undefined;
  #runningClaim: Claim | undefined;
  /** The fetch waiting its turn, who started it, and the tabs it is for. */
  #queued: Promise<void> | null = null;
  #queuedCause: FetchCause | undefined;
  #queuedClaim: Claim | undefined;

  readonly #settled: () => void;
  readonly #run: (cause: FetchCause | undefined, claim: Claim) => Promise<void>;
  readonly #clock: Pick<Clock, 'now' | 'setTimeout'>;
  constructor(
    clock: Pick<Clock, 'now' | 'setTimeout'>,
    /**
     * One fetch; `cause` is its starter's (forked, so that joiners are counted on it), `claim` the tabs of every
     * caller that shares it.
     */
    run: (cause: FetchCause | undefined, claim: Claim) => Promise<void>,
    /** After each fetch, answered or failed. */
    settled: () => void,
  ) {
    this.#settled = settled;
    this.#run = run;
    this.#clock = clock;
  }

  /** A caller shares the fetch under way (`cause`: its own). */
  joinRunning(cause: FetchCause | undefined): void {
    this.#runningCause?.join();
    this.#runningClaim?.add(partyOf(cause));
  }

  fetch(cause?: FetchCause): Promise<void> {
    if (this.#queued) {
      this.#queuedCause?.join();
      this.#queuedClaim?.add(partyOf(cause));
      return this.#queued;
    }
    const own = cause?.fork();
    const claim = new Claim(partyOf(cause));
    this.#queuedCause = own;
    this.#queuedClaim = claim;
    // Started a microtask later, so that `queued` is stored before the body can clear it.
    const queued: Promise<void> = Promise.resolve().then(async () => {
      if (this.running) await this.running.catch(() => undefined);
      const wait = this.#lastStartMillis + REFETCH_THROTTLE_MILLIS - this.#clock.now();
      if (wait > 0) await new Promise<void>((resolve) => this.#clock.setTimeout(resolve, wait));
      // From here on, newcomers queue the next fetch: this one may already be out of date for them.
      if (this.#queued === queued) this.#queued = null;
      this.#runningCause = own;
      this.#runningClaim = claim;
      this.#lastStartMillis = this.#clock.now();
      const run = this.#run(own, claim);
      this.running = run;
      try {
        await run;
      } finally {
        if (this.running === run) this.running = null;
        this.#settled();
      }
    });
    this.#queued = queued;
    return queued;
  }
}
