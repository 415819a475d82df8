import type { HttpMethod } from './codec.js';
import type { KnownErrorCode } from './errors/catalogue.js';
import { codeBelongsTo } from './errors/lineage.js';
import type { Clock } from './clock.js';

/** Attempts per call, all causes together (PROTOCOL.md §9.1.6). */
export const MAX_ATTEMPTS = 5;
/** Base of the exponential backoff. */
export const BACKOFF_BASE_MILLIS = 1000;
/** A Retry-After longer than this is not waited out: the call fails with the 429 instead. */
export const MAX_RETRY_AFTER_MILLIS = 60_000;

/**
 * Methods whose network failures and transient 5xx are retried: sending them twice does no harm.
 * PATCH is here because every PATCH of API v1 sets fields to the values it carries (none adds or
 * increments), so a second application changes nothing; a call that is not may say `idempotent: false`.
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PUT',
  'PATCH',
  'DELETE',
]);

/**
 * Server errors that say "not now" rather than "never": a crashed worker, a gateway that lost its
 * upstream, an overloaded service, a timeout. Retried for idempotent calls only: a POST that got a
 * 5xx may have been applied.
 */
export const TRANSIENT_SERVER_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** How one attempt failed. */
export type AttemptOutcome =
  /** fetch threw (a TypeError in every runtime), or the attempt timed out with no answer. */
  | { kind: 'network-error' }
  /** A response with an error status that is not a known error. */
  | { kind: 'http-error'; status: number; body: string; retryAfter: string | null }
  /**
   * A known error. `tokenRenewable` says whether the credential it complains about can be
   * renewed and has not been renewed for this call yet.
   */
  | { kind: 'known-error'; code: KnownErrorCode; tokenRenewable: boolean };

/** Whether to try a request again, and after how long. */
export type RetryDecision = { retry: true; delayMillis: number; reason: RetryReason } | { retry: false };

/** Why a request is tried again. */
export type RetryReason = 'network' | 'rate-limited' | 'loop-detected' | 'server-error' | 'token-renewed';

/** What {@link decideRetry} decides from: the attempt, its outcome, the method and the time. */
export interface RetryContext {
  /** Zero-based index of the attempt that just failed. */
  attempt: number;
  outcome: AttemptOutcome;
  method: HttpMethod | string;
  /** Current time in ms since the epoch (for Retry-After dates). */
  now: number;
  /** A uniform random number in [0, 1). */
  random: number;
  maxAttempts?: number;
  /** Overrides the method-based idempotency check (e.g. a refresh grant is safe to repeat). */
  idempotent?: boolean;
}

/** The wait after failed attempt k (0-based): uniformly 0.5–1.5 × 1000 × 2^k ms. */
export function backoffDelay(attempt: number, random: number): number {
  return (random + 0.5) * BACKOFF_BASE_MILLIS * 2 ** attempt;
}

/**
 * Retry-After as milliseconds to wait: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
 * Returns null when the header is missing or unreadable.
 */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The server's Retry-After when it gives one (and it is not absurdly long), else the backoff. */
function afterRetryAfter(
  header: string | null,
  attempt: number,
  now: number,
  random: number,
  reason: RetryReason,
): RetryDecision {
  const wait = parseRetryAfter(header, now);
  if (wait === null) return { retry: true, delayMillis: backoffDelay(attempt, random), reason };
  return wait > MAX_RETRY_AFTER_MILLIS ? { retry: false } : { retry: true, delayMillis: wait, reason };
}

/**
 * Decides whether to try a call again, and when. A pure function: the caller supplies the
 * clock and the random number, so every branch can be tested exactly.
 */
export function decideRetry(context: RetryContext): RetryDecision {
  const { attempt, outcome, method, now, random } = context;
  if (attempt + 1 >= (context.maxAttempts ?? MAX_ATTEMPTS)) return { retry: false };
  const idempotent = context.idempotent ?? IDEMPOTENT_METHODS.has(method.toUpperCase());
  switch (outcome.kind) {
    case 'network-error':
      return idempotent
        ? { retry: true, delayMillis: backoffDelay(attempt, random), reason: 'network' }
        : { retry: false };
    case 'http-error': {
      if (outcome.status === 429) return afterRetryAfter(outcome.retryAfter, attempt, now, random, 'rate-limited');
      if (outcome.status === 508 && outcome.body.includes('INFINITE_LOOP_DETECTED')) {
        return { retry: true, delayMillis: backoffDelay(attempt, random), reason: 'loop-detected' };
      }
      if (idempotent && TRANSIENT_SERVER_STATUSES.has(outcome.status))
        return afterRetryAfter(outcome.retryAfter, attempt, now, random, 'server-error');
      return { retry: false };
    }
    case 'known-error': {
      // The refresh is the wait: once the token is renewed the call can go again at once.
      // (The upstream admin SDK also renews on API_KEY_NOT_FOUND; that is a genuine 404 of
      // /internal/api-keys/{id}, so renewing there would only waste a refresh.)
      const renewable =
        codeBelongsTo(outcome.code, 'INVALID_ACCESS_TOKEN') ||
        codeBelongsTo(outcome.code, 'INVALID_ADMIN_ACCESS_TOKEN');
      return renewable && outcome.tokenRenewable
        ? { retry: true, delayMillis: 0, reason: 'token-renewed' }
        : { retry: false };
    }
  }
}

/** How a retry waits: `delayMillis`, or less when whoever waits knows better (the network is back). */
export type WaitBeforeRetry = (
  wait: { delayMillis: number; reason: RetryReason },
  signal: AbortSignal | undefined,
) => Promise<void>;

/** The plain wait: the whole delay on the clock. */
export const sleepOn =
  (clock: Clock): WaitBeforeRetry =>
  (wait, signal) =>
    clock.sleep(wait.delayMillis, signal);

export { systemClock, type Clock, type TimerHandle } from './clock.js';
