/**
 * Time, timers and randomness: the one time abstraction of the package, injectable so that tests
 * run retries, throttles and expiries on a clock they move themselves.
 */
export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  /** Resolves after `millis`, or rejects with the signal's reason when it aborts first. */
  sleep(millis: number, signal?: AbortSignal): Promise<void>;
  random(): number;
  setTimeout(callback: () => void, millis: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

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
