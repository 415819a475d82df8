import { describe, expect, it } from 'vitest';
import type { KnownErrorCode } from '../../protocol/errors/catalogue.js';
import {
  backoffDelay,
  decideRetry,
  IDEMPOTENT_METHODS,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MILLIS,
  parseRetryAfter,
  TRANSIENT_SERVER_STATUSES,
  systemClock,
  type AttemptOutcome,
  type RetryContext,
} from '../../protocol/retry.js';

const NOW = Date.UTC(2025, 1, 1, 12, 0, 0); // a whole second, so HTTP-dates are exact
const network: AttemptOutcome = { kind: 'network-error' };
const http = (status: number, body = '', retryAfter: string | null = null): AttemptOutcome => ({
  kind: 'http-error',
  status,
  body,
  retryAfter,
});
const known = (code: KnownErrorCode, tokenRenewable: boolean): AttemptOutcome => ({
  kind: 'known-error',
  code,
  tokenRenewable,
});
const decide = (outcome: AttemptOutcome, extra: Partial<RetryContext> = {}) =>
  decideRetry({ attempt: 0, outcome, method: 'GET', now: NOW, random: 0.5, ...extra });

describe('constants', () => {
  it('match PROTOCOL.md §9.1, with PATCH idempotent (every v1 PATCH sets fields) and transient 5xx retried', () => {
    expect(MAX_ATTEMPTS).toBe(5);
    expect([...IDEMPOTENT_METHODS].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT', 'TRACE']);
    expect([...TRANSIENT_SERVER_STATUSES].sort()).toEqual([500, 502, 503, 504]);
    expect(MAX_RETRY_AFTER_MILLIS).toBe(60_000);
  });
});

describe('network errors', () => {
  it.each(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'PATCH', 'DELETE', 'get', 'delete', 'patch'])(
    '%s is retried',
    (method) => {
      expect(decide(network, { method })).toEqual({ retry: true, delayMillis: 1000, reason: 'network' });
    },
  );

  it.each(['POST', 'CONNECT', 'post'])('%s is not retried', (method) => {
    expect(decide(network, { method })).toEqual({ retry: false });
  });

  it('the idempotent flag overrides the method', () => {
    expect(decide(network, { method: 'POST', idempotent: true })).toEqual({
      retry: true,
      delayMillis: 1000,
      reason: 'network',
    });
    expect(decide(network, { method: 'GET', idempotent: false })).toEqual({ retry: false });
  });
});

describe('attempt cap', () => {
  const retryable: AttemptOutcome[] = [
    network,
    http(429, '', '1'),
    http(429),
    http(508, 'INFINITE_LOOP_DETECTED'),
    known('ACCESS_TOKEN_EXPIRED', true),
  ];

  it.each(retryable.map((o) => [o.kind === 'http-error' ? `${o.kind} ${o.status}` : o.kind, o] as const))(
    '%s: attempt 3 retries, attempt 4 gives up',
    (_name, outcome) => {
      expect(decide(outcome, { attempt: 3 }).retry).toBe(true);
      expect(decide(outcome, { attempt: 4 })).toEqual({ retry: false });
      expect(decide(outcome, { attempt: 7 })).toEqual({ retry: false });
    },
  );

  it('honours maxAttempts', () => {
    expect(decide(network, { attempt: 0, maxAttempts: 2 }).retry).toBe(true);
    expect(decide(network, { attempt: 1, maxAttempts: 2 })).toEqual({ retry: false });
    expect(decide(network, { attempt: 0, maxAttempts: 1 })).toEqual({ retry: false });
  });
});

describe('backoff', () => {
  it('is (random + 0.5) × 1000 × 2^attempt', () => {
    for (const attempt of [0, 1, 2, 3]) {
      for (const random of [0, 0.1, 0.5, 0.73]) {
        expect(backoffDelay(attempt, random)).toBeCloseTo((random + 0.5) * 1000 * 2 ** attempt, 9);
        const decision = decide(network, { attempt, random });
        expect(decision).toEqual({ retry: true, delayMillis: backoffDelay(attempt, random), reason: 'network' });
      }
    }
  });

  it.each([
    [0, 500, 1500],
    [1, 1000, 3000],
    [2, 2000, 6000],
    [3, 4000, 12000],
  ])('attempt %i waits within [%i, %i)', (attempt, low, high) => {
    expect(backoffDelay(attempt, 0)).toBe(low);
    const nearlyOne = 1 - Number.EPSILON;
    const top = backoffDelay(attempt, nearlyOne);
    expect(top).toBeLessThan(high);
    expect(top).toBeGreaterThan(high - 0.001);
    expect(backoffDelay(attempt, 0.999999)).toBeLessThan(high);
  });

  it('totals at most 22.5 s over the four waits', () => {
    const total = [0, 1, 2, 3].reduce((sum, attempt) => sum + backoffDelay(attempt, 1 - Number.EPSILON), 0);
    expect(total).toBeLessThanOrEqual(22_500);
    expect(total).toBeGreaterThan(22_499);
  });
});

describe('429', () => {
  it('waits Retry-After seconds', () => {
    expect(decide(http(429, '', '3'))).toEqual({ retry: true, delayMillis: 3000, reason: 'rate-limited' });
    expect(decide(http(429, '', ' 7 '))).toEqual({ retry: true, delayMillis: 7000, reason: 'rate-limited' });
    expect(decide(http(429, '', '0'))).toEqual({ retry: true, delayMillis: 0, reason: 'rate-limited' });
  });

  it('waits until an HTTP-date, relative to now', () => {
    const date = new Date(NOW + 10_000).toUTCString();
    expect(decide(http(429, '', date))).toEqual({ retry: true, delayMillis: 10_000, reason: 'rate-limited' });
    expect(decide(http(429, '', date), { now: NOW + 4_000 })).toEqual({
      retry: true,
      delayMillis: 6_000,
      reason: 'rate-limited',
    });
  });

  it('does not wait for a date in the past', () => {
    expect(decide(http(429, '', new Date(NOW - 60_000).toUTCString()))).toEqual({
      retry: true,
      delayMillis: 0,
      reason: 'rate-limited',
    });
  });

  it.each(['soon', 'tomorrow-ish', '1.5', '-5', '', '3s'])('falls back to the backoff for garbage %j', (value) => {
    expect(decide(http(429, '', value), { attempt: 2, random: 0.25 })).toEqual({
      retry: true,
      delayMillis: 3000,
      reason: 'rate-limited',
    });
  });

  it('falls back to the backoff when missing', () => {
    expect(decide(http(429), { attempt: 1, random: 0 })).toEqual({
      retry: true,
      delayMillis: 1000,
      reason: 'rate-limited',
    });
  });

  it('gives up when asked to wait longer than MAX_RETRY_AFTER_MILLIS', () => {
    expect(decide(http(429, '', '60'))).toEqual({ retry: true, delayMillis: 60_000, reason: 'rate-limited' });
    expect(decide(http(429, '', '61'))).toEqual({ retry: false });
    expect(decide(http(429, '', '3600'))).toEqual({ retry: false });
    expect(decide(http(429, '', new Date(NOW + 120_000).toUTCString()))).toEqual({ retry: false });
  });

  it('is retried whatever the method', () => {
    expect(decide(http(429, '', '1'), { method: 'POST' })).toEqual({
      retry: true,
      delayMillis: 1000,
      reason: 'rate-limited',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and dates, null otherwise', () => {
    expect(parseRetryAfter(null, NOW)).toBeNull();
    expect(parseRetryAfter('120', NOW)).toBe(120_000);
    expect(parseRetryAfter(new Date(NOW + 2_000).toUTCString(), NOW)).toBe(2_000);
    expect(parseRetryAfter('Sat, 01 Feb 2025 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2020 00:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('garbage', NOW)).toBeNull();
    expect(parseRetryAfter('12.5', NOW)).toBeNull();
    expect(parseRetryAfter('2025', NOW)).toBe(2_025_000);
  });
});

describe('508 and other statuses', () => {
  it('retries a 508 whose body says INFINITE_LOOP_DETECTED, with the backoff', () => {
    expect(decide(http(508, 'Error: INFINITE_LOOP_DETECTED (hosting)'), { attempt: 1, random: 0 })).toEqual({
      retry: true,
      delayMillis: 1000,
      reason: 'loop-detected',
    });
    expect(decide(http(508, 'INFINITE_LOOP_DETECTED'), { method: 'POST' }).retry).toBe(true);
  });

  it('does not retry a 508 without it', () => {
    expect(decide(http(508, 'Loop Detected'))).toEqual({ retry: false });
    expect(decide(http(508))).toEqual({ retry: false });
  });

  it.each([400, 401, 403, 404, 405, 409, 501, 505, 511])('does not retry %i', (status) => {
    expect(decide(http(status, 'INFINITE_LOOP_DETECTED', '1'))).toEqual({ retry: false });
  });
});

describe('transient server errors', () => {
  it.each([500, 502, 503, 504])('retries %i of an idempotent call with the backoff', (status) => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      expect(decide(http(status), { method, attempt: 1, random: 0 })).toEqual({
        retry: true,
        delayMillis: 1000,
        reason: 'server-error',
      });
    }
    expect(decide(http(status), { method: 'POST', idempotent: true }).retry).toBe(true);
  });

  it.each([500, 502, 503, 504])('never retries %i of a POST: it may have been applied', (status) => {
    expect(decide(http(status), { method: 'POST' })).toEqual({ retry: false });
    expect(decide(http(status), { method: 'GET', idempotent: false })).toEqual({ retry: false });
  });

  it('honours Retry-After on a 503, and gives up on one beyond a minute', () => {
    expect(decide(http(503, '', '2'))).toEqual({ retry: true, delayMillis: 2000, reason: 'server-error' });
    expect(decide(http(503, '', '120'))).toEqual({ retry: false });
  });

  it('stays within five attempts', () => {
    expect(decide(http(503), { attempt: 3 }).retry).toBe(true);
    expect(decide(http(503), { attempt: 4 })).toEqual({ retry: false });
  });
});

describe('known errors', () => {
  it.each(['UNPARSABLE_ACCESS_TOKEN', 'ACCESS_TOKEN_EXPIRED', 'INVALID_PROJECT_FOR_ACCESS_TOKEN'] as const)(
    '%s is retried at once only when the token can be renewed',
    (code) => {
      expect(decide(known(code, true), { attempt: 2, method: 'POST' })).toEqual({
        retry: true,
        delayMillis: 0,
        reason: 'token-renewed',
      });
      expect(decide(known(code, false))).toEqual({ retry: false });
    },
  );

  it('the admin-token family is renewed too', () => {
    expect(decide(known('ADMIN_ACCESS_TOKEN_EXPIRED', true))).toEqual({
      retry: true,
      delayMillis: 0,
      reason: 'token-renewed',
    });
    expect(decide(known('UNPARSABLE_ADMIN_ACCESS_TOKEN', false))).toEqual({ retry: false });
  });

  it.each([
    'USER_NOT_FOUND',
    'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    'API_KEY_NOT_FOUND',
    'INSUFFICIENT_ACCESS_TYPE',
    'INVALID_PUBLISHABLE_CLIENT_KEY',
    'CLIENT_AUTHENTICATION_REQUIRED',
    'SCHEMA_ERROR',
  ] as const)('%s is never retried', (code) => {
    expect(decide(known(code, true))).toEqual({ retry: false });
    expect(decide(known(code, false))).toEqual({ retry: false });
  });
});

describe('systemClock', () => {
  it('rejects a sleep whose signal is already aborted, without waiting', async () => {
    const reason = new Error('stop');
    await expect(systemClock.sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('rejects a pending sleep when aborted', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    const reason = new Error('later');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });
});
