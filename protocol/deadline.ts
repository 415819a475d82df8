import type { Clock } from './clock.js';

/** What an attempt that ran out of time rejects with: a network failure, retried like one. */
export class AttemptTimeoutError extends TypeError {
  override readonly name = 'AttemptTimeoutError';
  constructor(readonly timeoutMillis: number) {
    super(`No complete answer within ${timeoutMillis} ms`);
  }
}

/**
 * Runs one attempt (a request and the reading of its whole answer) under a deadline. The work gets
 * a signal that aborts when the deadline passes or the caller gives up, and the result is raced
 * against both: a fetch or a body stream that ignores its signal cannot hold the caller forever.
 * Each rejection is issued before the abort, so that it, not the fetch's own AbortError, wins.
 */
export async function withDeadline<T>(
  clock: Clock,
  timeoutMillis: number,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  outer?.throwIfAborted();
  const controller = new AbortController();
  let timer: unknown;
  let forward: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const error = new AttemptTimeoutError(timeoutMillis);
      reject(error);
      controller.abort(error);
    }, timeoutMillis);
    forward = () => {
      reject(outer?.reason);
      controller.abort(outer?.reason);
    };
    outer?.addEventListener('abort', forward, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clock.clearTimeout(timer);
    if (forward !== undefined) outer?.removeEventListener('abort', forward);
  }
}
