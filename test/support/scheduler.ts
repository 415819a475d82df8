import type { Scheduler } from '../../worker/cache/query.js';

/** A scheduler whose time moves only when the test says so. */
export class ManualScheduler implements Scheduler {
  private time = 0;
  private timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, millis: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + millis, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
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

export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
