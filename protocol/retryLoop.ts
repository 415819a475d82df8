/**
 * The one retry loop of the package: attempt → deadline → classify → decide → wait, again until an attempt
 * succeeds or the policy (retry.ts) says stop. API calls (transport.ts) and the token endpoint's grants
 * (tokenGrant.ts) each say only how one attempt is sent and what its answer means; the loop, its deadline, its
 * observer events (each guarded: bookkeeping never changes a call's outcome) and the final network diagnosis are
 * shared. To change how a request is retried, change retry.ts (the decisions) or this file (the loop).
 */
import type { Clock } from './clock.js';
import { withDeadline } from './deadline.js';
import { decideRetry, sleepOn, type AttemptOutcome, type RetryReason, type WaitBeforeRetry } from './retry.js';

/** An attempt without its whole answer (body included) after this long counts as a network failure. */
export const DEFAULT_ATTEMPT_TIMEOUT_MILLIS = 30_000;

/** Which attempt of which request an observer hears about. */
export interface AttemptEvent {
  method: string;
  path: string;
  attempt: number;
}

/** Hooks for whoever keeps statistics and connectivity (the broker). None may throw. */
export interface TransportObserver {
  /** `code`: the known error the answer carried, when the caller reports it (the token endpoint does). */
  onResponse?(event: AttemptEvent & { status: number; durationMillis: number; code?: string | undefined }): void;
  /** An attempt got no answer (network failure, timeout). */
  onNetworkError?(event: AttemptEvent & { error: unknown }): void;
  /** The request will be tried again after `delayMillis`. */
  onRetry?(event: AttemptEvent & { delayMillis: number; reason: RetryReason }): void;
}

/** What one attempt came to, when it did not throw a network failure. */
export type AttemptResult<T> =
  | { ok: true; value: T; status: number }
  /**
   * `error` is what the call throws if this was its last attempt; `status` and `code`, when the service answered,
   * are what the observer hears.
   */
  | { ok: false; outcome: AttemptOutcome; error: unknown; status?: number; code?: string };

/** How one request is retried. */
export interface RetryLoopOptions {
  method: string;
  path: string;
  clock: Clock;
  attemptTimeoutMillis?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the method's idempotency (retry.ts). */
  idempotent?: boolean | undefined;
  maxAttempts?: number | undefined;
  observer?: TransportObserver | undefined;
  /** Awaited before every attempt (e.g. to hold requests while the network is known to be down). */
  beforeAttempt?: ((event: AttemptEvent, signal: AbortSignal | undefined) => Promise<void>) | undefined;
  /**
   * Awaited before every attempt, after `beforeAttempt`: the attempt's turn to be sent (the broker's request
   * scheduler), resolving with the function that ends the turn once the attempt is over. The deadline starts when the
   * turn does: time spent waiting for it is not the attempt's.
   */
  waitForTurn?: ((signal: AbortSignal | undefined) => Promise<() => void>) | undefined;
  /** The wait before a retry; default the whole delay on the clock. */
  waitBeforeRetry?: WaitBeforeRetry | undefined;
  /** After an attempt that failed without being a known error (the token renewals' count starts again). */
  onOtherFailure?: (() => void) | undefined;
  /** What a network failure on the last attempt becomes: a NetworkError with the diagnosis of the service. */
  networkFailure(cause: unknown, attempts: number): Promise<unknown>;
}

/**
 * One attempt: `prepare` runs before its deadline starts (e.g. getting a token, which may take a renewal) and
 * returns `send`, which runs under the deadline with its signal. `send` classifies what came back; a TypeError it
 * throws (fetch's network failure, or the deadline's) is a network failure, anything else ends the call.
 */
export interface Attempt<T> {
  prepare?(event: AttemptEvent): Promise<void>;
  send(signal: AbortSignal): Promise<AttemptResult<T>>;
}

/** Observers are bookkeeping: a failing one must never change the outcome of a call. */
function notify(call: () => void): void {
  try {
    call();
  } catch {
    // ignored on purpose
  }
}

/** Runs `attempt` until it succeeds or the policy says stop; returns its value or throws its error. */
export async function runWithRetries<T>(options: RetryLoopOptions, attempt: Attempt<T>): Promise<T> {
  const { clock, signal, observer } = options;
  const timeoutMillis = options.attemptTimeoutMillis ?? DEFAULT_ATTEMPT_TIMEOUT_MILLIS;
  for (let index = 0; ; index++) {
    const event: AttemptEvent = { method: options.method, path: options.path, attempt: index };
    await options.beforeAttempt?.(event, signal);
    signal?.throwIfAborted();
    const endTurn = await options.waitForTurn?.(signal);
    let started: number;
    let result: AttemptResult<T>;
    try {
      // After the turn: a token it renews is fresh when the request goes.
      await attempt.prepare?.(event);
      // Preparing may have taken a renewal; the caller may have given up meanwhile.
      signal?.throwIfAborted();
      started = clock.now();
      try {
        // The deadline covers the whole answer: headers followed by a stalled body must not hold the call either.
        result = await withDeadline(clock, timeoutMillis, signal, (attemptSignal) => attempt.send(attemptSignal));
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!(error instanceof TypeError)) throw error;
        notify(() => observer?.onNetworkError?.({ ...event, error }));
        result = { ok: false, outcome: { kind: 'network-error' }, error };
      }
    } finally {
      // Not held through the wait before a retry.
      endTurn?.();
    }
    const { status } = result;
    if (status !== undefined) {
      const code = result.ok ? undefined : result.code;
      const answered = { ...event, status, durationMillis: clock.now() - started, ...(code ? { code } : {}) };
      notify(() => observer?.onResponse?.(answered));
    }
    if (result.ok) return result.value;
    const { outcome, error } = result;
    if (outcome.kind !== 'known-error') options.onOtherFailure?.();
    const decision = decideRetry({
      attempt: index,
      outcome,
      method: options.method,
      now: clock.now(),
      random: clock.random(),
      ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    });
    if (!decision.retry)
      throw outcome.kind === 'network-error' ? await options.networkFailure(error, index + 1) : error;
    notify(() => observer?.onRetry?.({ ...event, delayMillis: decision.delayMillis, reason: decision.reason }));
    if (decision.delayMillis > 0)
      await (options.waitBeforeRetry ?? sleepOn(clock))(
        { delayMillis: decision.delayMillis, reason: decision.reason },
        signal,
      );
  }
}
