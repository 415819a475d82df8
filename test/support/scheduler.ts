import type { Clock } from '../../protocol/clock.js';

/**
 * Timers that fire only when the test moves time (`advance`); what the two clocks below share. The
 * subclass says what "now" is and how it moves.
 */
abstract class ManualTimers implements Clock {
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  abstract now(): number;
  protected abstract moveTo(time: number): void;

  random(): number {
    return 0.5;
  }
  setTimeout(callback: () => void, millis: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now() + millis, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  sleep(millis: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const id = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, millis);
      const onAbort = () => {
        this.clearTimeout(id);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  /** Moves time forward, firing due timers in order (and letting promises settle between them). */
  async advance(millis: number): Promise<void> {
    const target = this.now() + millis;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      if (due[1].at > this.now()) this.moveTo(due[1].at);
      due[1].callback();
    }
    if (target > this.now()) this.moveTo(target);
    await flush();
  }
  get pending(): number {
    return this.timers.size;
  }
}

/** A clock whose time moves only when the test says so: timers, sleeps and `now()` all follow it. */
export class ManualScheduler extends ManualTimers {
  private time: number;

  constructor(start = 0) {
    super();
    this.time = start;
  }
  now(): number {
    return this.time;
  }
  protected moveTo(time: number): void {
    this.time = time;
  }
}

/** The name the tests use for it: one clock for time, timers and sleeps. */
export { ManualScheduler as ManualClock };

/**
 * The broker's clock in a test against the emulator: `now()` is the emulator's time (so both agree
 * on token expiry), timers and sleeps fire only when the test calls `advance`, which moves the
 * emulator's time too. A throttle, a debounce or a GC delay is then tested without waiting.
 */
export class EmulatorClock extends ManualTimers {
  constructor(private readonly emulatorClock: { now(): number; advance(millis: number): void }) {
    super();
  }
  now(): number {
    return this.emulatorClock.now();
  }
  protected moveTo(time: number): void {
    this.emulatorClock.advance(time - this.now());
  }
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
