import type { Clock } from '../../protocol/clock.js';

/**
 * A clock whose time moves only when the test says so: timers, sleeps and `now()` all follow it.
 * (Named for the Scheduler it replaced; it is the package's one Clock.)
 */
export class ManualScheduler implements Clock {
  private time = 0;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }
  random(): number {
    return 0.5;
  }
  setTimeout(callback: () => void, millis: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + millis, callback });
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
    const target = this.time + millis;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = target;
    await flush();
  }
  get pending(): number {
    return this.timers.size;
  }
}

/** The name the tests use for it: one clock for time, timers and sleeps. */
export { ManualScheduler as ManualClock };

export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The broker's clock in a test against the emulator: `now()` is the emulator's time (so both agree
 * on token expiry), timers and sleeps fire only when the test calls `advance`, which moves the
 * emulator's time too. A throttle, a debounce or a GC delay is then tested without waiting.
 */
export class EmulatorClock implements Clock {
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  constructor(private readonly emulatorClock: { now(): number; advance(millis: number): void }) {}

  now(): number {
    return this.emulatorClock.now();
  }
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
  /** Moves both clocks forward, firing due timers in order and letting promises settle between them. */
  async advance(millis: number): Promise<void> {
    const target = this.now() + millis;
    for (;;) {
      await flush();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      if (due[1].at > this.now()) this.emulatorClock.advance(due[1].at - this.now());
      due[1].callback();
    }
    if (target > this.now()) this.emulatorClock.advance(target - this.now());
    await flush();
  }
}
