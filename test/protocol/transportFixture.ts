import { createKnownError } from '../../protocol/errors/create.js';
import type { KnownError } from '../../protocol/errors/knownError.js';
import { systemClock, type Clock, type RetryReason } from '../../protocol/retry.js';
import { createTransport, type TokenSource, type TransportOptions } from '../../protocol/transport.js';

/** A transport on a scripted fetch and a clock that records its sleeps: the transport tests' fixture. */
export const BASE = 'https://api.example.test';
export const PROJECT = 'internal';
export const NOW = 1_738_400_000_000;
export const PROBES = [`${BASE}/api/v1`, `${BASE}/health`];

export type Step = 'network' | 'hang' | 'stall' | (() => Response);
export interface Call {
  url: string;
  headers: Headers;
  signal: AbortSignal | undefined;
}

/** A scripted fetch: API calls take the next step; the two diagnostic probes go to `probe`. */
export function fakeFetch(
  steps: Step[],
  probe: () => Response | Promise<Response> = () => Promise.reject(new TypeError('probe failed')),
) {
  const calls: Call[] = [];
  const probes: string[] = [];
  const all: string[] = [];
  const fn = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    all.push(url);
    if (PROBES.includes(url)) {
      probes.push(url);
      return probe();
    }
    calls.push({ url, headers: new Headers(init.headers), signal: init.signal ?? undefined });
    const step = steps.shift();
    if (step === undefined) throw new Error(`unexpected call ${calls.length} to ${url}`);
    if (step === 'network') throw new TypeError('fetch failed');
    if (step === 'hang') {
      // Like a real fetch that never answers: settles only when aborted.
      return new Promise<Response>((_, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }),
      );
    }
    // A fetch that ignores its signal and never settles at all.
    if (step === 'stall') return new Promise<Response>(() => undefined);
    return step();
  }) as typeof fetch;
  return { fn, calls, probes, all };
}

export function fakeClock(random = 0.25) {
  const sleeps: number[] = [];
  const signals: Array<AbortSignal | undefined> = [];
  let now = NOW;
  const clock: Clock = {
    ...systemClock,
    now: () => now,
    random: () => random,
    sleep: async (millis, signal) => {
      sleeps.push(millis);
      signals.push(signal);
      now += millis;
      signal?.throwIfAborted();
    },
  };
  return { clock, sleeps, signals };
}

export const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
export const text =
  (body: string, status: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(body, { status, headers });
export const knownError = (error: KnownError) => () =>
  new Response(JSON.stringify(error.toWire()), {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'x-stack-known-error': error.code,
      'x-stack-actual-status': String(error.status),
    },
  });
export const expired = () => knownError(createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: NOW - 1 }));

export function renewable(tokens: string[]) {
  let index = 0;
  const invalidated: string[] = [];
  const source: TokenSource = {
    renewable: true,
    getAccessToken: async () => tokens[index] ?? null,
    invalidateAccessToken: (token) => {
      invalidated.push(token);
      if (token === tokens[index]) index++;
    },
  };
  return { source, invalidated };
}

export function setup(
  steps: Step[],
  options: Partial<TransportOptions<'client'>> = {},
  probe?: () => Response | Promise<Response>,
) {
  const fetch = fakeFetch(steps, probe);
  const time = fakeClock();
  const retries: Array<{ attempt: number; delayMillis: number; reason: RetryReason }> = [];
  const t = createTransport({
    baseUrl: BASE,
    projectId: PROJECT,
    accessType: 'client',
    publishableClientKey: 'pck_1',
    fetch: fetch.fn,
    clock: time.clock,
    navigatorOnline: () => true,
    observer: { onRetry: ({ attempt, delayMillis, reason }) => retries.push({ attempt, delayMillis, reason }) },
    ...options,
  });
  return { t, ...fetch, ...time, retries };
}

export const failure = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
