/**
 * How an entry's fetches are scheduled: one at a time; a new fetch starts no sooner than REFETCH_THROTTLE_MILLIS
 * after the previous one started; callers that arrive while a fetch waits its turn share that fetch. Each fetch
 * carries the cause of the caller that started it, told of every caller that joins (diagnostics).
 */
import type { Clock } from '../../protocol/clock.js';
import { REFETCH_THROTTLE_MILLIS, type FetchCause } from './cacheEntry.js';

export class FetchQueue {
  private lastStartMillis = Number.NEGATIVE_INFINITY;
  /** The fetch under way, and who started it. */
  running: Promise<void> | null = null;
  runningCause: FetchCause | undefined;
  /** The fetch waiting its turn, and who started it. */
  private queued: Promise<void> | null = null;
  private queuedCause: FetchCause | undefined;

  constructor(
    private readonly clock: Pick<Clock, 'now' | 'setTimeout'>,
    /** One fetch; `cause` is its starter's (forked, so that joiners are counted on it). */
    private readonly run: (cause: FetchCause | undefined) => Promise<void>,
    /** After each fetch, answered or failed. */
    private readonly settled: () => void,
  ) {}

  fetch(cause?: FetchCause): Promise<void> {
    if (this.queued) {
      this.queuedCause?.join();
      return this.queued;
    }
    const own = cause?.fork();
    this.queuedCause = own;
    // Started a microtask later, so that `queued` is stored before the body can clear it.
    const queued: Promise<void> = Promise.resolve().then(async () => {
      if (this.running) await this.running.catch(() => undefined);
      const wait = this.lastStartMillis + REFETCH_THROTTLE_MILLIS - this.clock.now();
      if (wait > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, wait));
      // From here on, newcomers queue the next fetch: this one may already be out of date for them.
      if (this.queued === queued) this.queued = null;
      this.runningCause = own;
      this.lastStartMillis = this.clock.now();
      const run = this.run(own);
      this.running = run;
      try {
        await run;
      } finally {
        if (this.running === run) this.running = null;
        this.settled();
      }
    });
    this.queued = queued;
    return queued;
  }
}
