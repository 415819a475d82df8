/**
 * Time, timers and randomness: the one time abstraction of the package, injectable so that tests
 * run retries, throttles and expiries on a clock they move themselves.
 */
export type TimerHandle = unknown;

/** Time, timers and randomness in one place, so that tests can move time themselves. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `millis`, or rejects with the signal's reason when it aborts first. */
  sleep(millis: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), like `Math.random()`. */
  random(): number;
  /** Calls `callback` after `millis`. */
  setTimeout(callback: () => void, millis: number): TimerHandle;
  /** Cancels a timer. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now`, `Math.random` and the runtime's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  setTimeout: (callback, millis) => setTimeout(callback, millis),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  sleep: (millis, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, millis);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
