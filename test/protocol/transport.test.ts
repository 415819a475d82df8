import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, ProtocolError } from '../../protocol/errors/errors.js';
import { isKnownError, KnownError } from '../../protocol/errors/knownError.js';
import { createKnownError } from '../../protocol/errors/create.js';
import { systemClock, type Clock, type RetryReason } from '../../protocol/retry.js';
import { createTransport, staticTokenSource, type TokenSource, type TransportOptions } from '../../protocol/transport.js';

const BASE = 'https://api.example.test';
const PROJECT = 'internal';
const NOW = 1_738_400_000_000;
const PROBES = [`${BASE}/api/v1`, `${BASE}/health`];

type Step = 'network' | 'hang' | 'stall' | (() => Response);
interface Call {
  url: string;
  headers: Headers;
  signal: AbortSignal | undefined;
}

/** A scripted fetch: API calls take the next step; the two diagnostic probes go to `probe`. */
function fakeFetch(steps: Step[], probe: () => Response | Promise<Response> = () => Promise.reject(new TypeError('probe failed'))) {
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
      return new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));
    }
    // A fetch that ignores its signal and never settles at all.
    if (step === 'stall') return new Promise<Response>(() => undefined);
    return step();
  }) as typeof fetch;
  return { fn, calls, probes, all };
}

function fakeClock(random = 0.25) {
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

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const text = (body: string, status: number, headers: Record<string, string> = {}) => () => new Response(body, { status, headers });
const knownError = (error: KnownError) => () =>
  new Response(JSON.stringify(error.toWire()), {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-stack-known-error': error.code, 'x-stack-actual-status': String(error.status) },
  });
const expired = () => knownError(createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: NOW - 1 }));

function renewable(tokens: string[]) {
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

function setup(steps: Step[], options: Partial<TransportOptions<'client'>> = {}, probe?: () => Response | Promise<Response>) {
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

const failure = (promise: Promise<unknown>) => promise.then(
  (value) => {
    throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
  },
  (error: unknown) => error,
);

describe('network failures', () => {
  it('retries a GET four times with the exact backoff, then succeeds', async () => {
    const { t, calls, sleeps, retries, probes } = setup(['network', 'network', 'network', 'network', json({ id: 'me' })]);
    await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ id: 'me' });
    expect(calls).toHaveLength(5);
    expect(new Set(calls.map((c) => c.url))).toEqual(new Set([`${BASE}/api/v1/users/me`]));
    expect(sleeps).toEqual([750, 1500, 3000, 6000]);
    expect(retries).toEqual([0, 1, 2, 3].map((attempt) => ({ attempt, delayMillis: [750, 1500, 3000, 6000][attempt], reason: 'network' })));
    expect(probes).toEqual([]);
    // Every attempt is a fresh request.
    expect(new Set(calls.map((c) => c.headers.get('x-stack-random-nonce'))).size).toBe(5);
  });

  it('gives up after five attempts with diagnostics of the service origin only', async () => {
    const { t, calls, sleeps, probes, all } = setup(['network', 'network', 'network', 'network', 'network', 'network'], { baseUrl: `${BASE}/` });
    const error = await failure(t.request({ method: 'GET', path: '/teams' }));
    expect(error).toBeInstanceOf(NetworkError);
    const e = error as NetworkError;
    expect(e.code).toBe('NETWORK_UNREACHABLE');
    expect(e.attempts).toBe(5);
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(5);
    expect(sleeps).toEqual([750, 1500, 3000, 6000]);
    expect([...probes].sort()).toEqual([...PROBES].sort());
    expect(all.every((url) => new URL(url).origin === BASE)).toBe(true);
    expect(e.diagnostics).toMatchObject({
      navigatorOnline: true,
      apiRoot: { url: `${BASE}/api/v1`, reachable: false, status: null, error: 'probe failed' },
      health: { url: `${BASE}/health`, reachable: false, status: null },
    });
    expect(e.message).toContain('could not be reached');
  });

  it('says so when the health check answers', async () => {
    const { t } = setup(['network', 'network', 'network', 'network', 'network'], {}, () => new Response('{"status":"ok"}', { status: 200 }));
    const e = (await failure(t.request({ method: 'GET', path: '/teams' }))) as NetworkError;
    expect(e.diagnostics?.health).toMatchObject({ reachable: true, status: 200, error: null });
    expect(e.message).toContain('answers its health check');
  });

  it('reports NETWORK_OFFLINE without probing when the runtime is offline', async () => {
    const { t, calls, probes } = setup(['network', 'network', 'network', 'network', 'network'], { navigatorOnline: () => false });
    const e = (await failure(t.request({ method: 'GET', path: '/teams' }))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.code).toBe('NETWORK_OFFLINE');
    expect(e.diagnostics).toBeNull();
    expect(e.attempts).toBe(5);
    expect(calls).toHaveLength(5);
    expect(probes).toEqual([]);
  });

  it('a PATCH is retried: every PATCH of API v1 sets fields, so a second application changes nothing', async () => {
    const { t, calls, sleeps } = setup(['network', json({ id: 'me' })]);
    await expect(t.request({ method: 'PATCH', path: '/users/me', body: { display_name: 'A' } })).resolves.toEqual({ id: 'me' });
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([750]);
  });

  it.each([
    ['a POST', { method: 'POST' }],
    ['a call marked not idempotent', { method: 'PATCH', idempotent: false }],
  ] as const)('%s is tried exactly once', async (_name, shape) => {
    const { t, calls, sleeps } = setup(['network', json({})], { diagnoseFailures: false });
    const e = (await failure(t.request({ ...shape, path: '/users/me', body: {} }))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.attempts).toBe(1);
    expect(e.diagnostics).toBeNull();
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('an attempt that gets no answer in time is a network failure', async () => {
    const { t, calls, sleeps } = setup(['hang', 'hang', 'hang', 'hang', 'hang'], { attemptTimeoutMillis: 5 }, () => new Response('ok'));
    const e = (await failure(t.request({ method: 'GET', path: '/users/me' }))) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.attempts).toBe(5);
    expect(e.cause).toBeInstanceOf(TypeError);
    expect((e.cause as Error).message).toContain('5 ms');
    expect(sleeps).toEqual([750, 1500, 3000, 6000]);
    expect(calls.every((c) => c.signal?.aborted === true)).toBe(true);
  });

  it('the timeout holds even when fetch ignores its signal', async () => {
    const { t, calls, sleeps } = setup(['stall', 'stall', json({ ok: 2 })], { attemptTimeoutMillis: 5 });
    await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ ok: 2 });
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([750, 1500]);
    const cancelled = setup(['stall'], { attemptTimeoutMillis: 60_000 });
    const controller = new AbortController();
    const pending = failure(cancelled.t.request({ method: 'GET', path: '/x', signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error('gone');
    controller.abort(reason);
    expect(await pending).toBe(reason);
  }, 3000);

  it('the deadline covers the body: headers followed by a stalled body time out, and the attempt is retried', async () => {
    const stalledBody = () =>
      new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"id":')) }), { status: 200, headers: { 'content-type': 'application/json' } });
    const { t, calls, sleeps } = setup([stalledBody, json({ id: 'me' })], { attemptTimeoutMillis: 5 });
    await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ id: 'me' });
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([750]);
    expect(calls[0]!.signal?.aborted).toBe(true);
  }, 3000);

  it('a timed-out attempt is retried like any network failure, but not for a POST', async () => {
    const get = setup(['hang', json({ ok: 1 })], { attemptTimeoutMillis: 5 });
    await expect(get.t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ ok: 1 });
    expect(get.sleeps).toEqual([750]);
    const post = setup(['hang', json({ ok: 1 })], { attemptTimeoutMillis: 5, diagnoseFailures: false });
    expect(await failure(post.t.request({ method: 'POST', path: '/auth/otp/sign-in', body: {} }))).toBeInstanceOf(NetworkError);
    expect(post.calls).toHaveLength(1);
  });
});

describe('status retries', () => {
  it('waits out a 429 Retry-After, then succeeds', async () => {
    const { t, calls, sleeps, retries } = setup([text('slow down', 429, { 'retry-after': '2' }), json({ ok: true })]);
    await expect(t.request({ method: 'POST', path: '/auth/password/sign-in', body: {} })).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
    expect(retries).toEqual([{ attempt: 0, delayMillis: 2000, reason: 'rate-limited' }]);
  });

  it('backs off on an overridden 429 without Retry-After', async () => {
    const { t, sleeps } = setup([text('slow down', 200, { 'x-stack-actual-status': '429' }), json({ ok: true })]);
    await expect(t.request({ method: 'GET', path: '/x' })).resolves.toEqual({ ok: true });
    expect(sleeps).toEqual([750]);
  });

  it('gives up at once on a Retry-After beyond the limit', async () => {
    const { t, calls } = setup([text('later', 429, { 'retry-after': '3600' })]);
    expect(await failure(t.request({ method: 'GET', path: '/x' }))).toMatchObject({ status: 429, body: 'later' });
    expect(calls).toHaveLength(1);
  });

  it('retries a 508 INFINITE_LOOP_DETECTED, then succeeds', async () => {
    const { t, calls, sleeps, retries } = setup([text('INFINITE_LOOP_DETECTED', 508), json([1, 2])]);
    await expect(t.request({ method: 'GET', path: '/x' })).resolves.toEqual([1, 2]);
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([750]);
    expect(retries[0]?.reason).toBe('loop-detected');
  });

  it('retries a transient 5xx of an idempotent call, honouring Retry-After, within five attempts', async () => {
    const { t, calls, sleeps, retries } = setup([text('Bad Gateway', 502), text('busy', 503, { 'retry-after': '2' }), text('oops', 500), text('gateway timeout', 504), json({ ok: 1 })]);
    await expect(t.request({ method: 'GET', path: '/teams' })).resolves.toEqual({ ok: 1 });
    expect(calls).toHaveLength(5);
    expect(sleeps).toEqual([750, 2000, 3000, 6000]);
    expect(retries.map((r) => r.reason)).toEqual(['server-error', 'server-error', 'server-error', 'server-error']);
    const exhausted = setup([text('a', 503), text('b', 503), text('c', 503), text('d', 503), text('e', 503), json({})]);
    expect(await failure(exhausted.t.request({ method: 'DELETE', path: '/teams/1' }))).toMatchObject({ status: 503, body: 'e' });
    expect(exhausted.calls).toHaveLength(5);
  });

  it('throws a 5xx of a POST at once: it may have been applied', async () => {
    const post = setup([text('Internal Server Error', 500), json({})]);
    const e = await failure(post.t.request({ method: 'POST', path: '/teams', body: {} }));
    expect(e).toBeInstanceOf(HttpStatusError);
    expect(e).toMatchObject({ status: 500, body: 'Internal Server Error' });
    expect(post.calls).toHaveLength(1);
  });

  it('throws other statuses, known errors and protocol violations at once', async () => {
    const plain = setup([text('Not Implemented', 501), json({})]);
    const e = await failure(plain.t.request({ method: 'GET', path: '/x' }));
    expect(e).toBeInstanceOf(HttpStatusError);
    expect(e).toMatchObject({ status: 501, body: 'Not Implemented' });
    expect(plain.calls).toHaveLength(1);

    const known = setup([knownError(createKnownError('USER_NOT_FOUND')), json({})]);
    const k = await failure(known.t.request({ method: 'GET', path: '/users/x' }));
    expect(isKnownError(k, 'USER_NOT_FOUND')).toBe(true);
    expect(k).toMatchObject({ status: 404 });
    expect(known.calls).toHaveLength(1);

    const bad = setup([text('{}', 200, { 'x-stack-actual-status': 'nope' }), json({})]);
    expect(await failure(bad.t.request({ method: 'GET', path: '/x' }))).toBeInstanceOf(ProtocolError);
    expect(bad.calls).toHaveLength(1);
  });
});

describe('token renewal', () => {
  it('renews an expired access token once and retries with the new one', async () => {
    const tokens = renewable(['tok-1', 'tok-2', 'tok-3']);
    const { t, calls, sleeps, retries } = setup([expired(), json({ id: 'me' })], { userTokens: tokens.source });
    await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ id: 'me' });
    expect(tokens.invalidated).toEqual(['tok-1']);
    expect(calls.map((c) => c.headers.get('x-stack-access-token'))).toEqual(['tok-1', 'tok-2']);
    expect(sleeps).toEqual([]);
    expect(retries).toEqual([{ attempt: 0, delayMillis: 0, reason: 'token-renewed' }]);
  });

  it('renews again when the renewed token is refused too (a refresh under way when the first was refused), then gives up', async () => {
    const tokens = renewable(['tok-1', 'tok-2', 'tok-3', 'tok-4']);
    const twice = setup([expired(), expired(), json({ id: 'team' })], { userTokens: tokens.source });
    await expect(twice.t.request({ method: 'POST', path: '/teams', body: {} })).resolves.toEqual({ id: 'team' });
    expect(twice.calls.map((c) => c.headers.get('x-stack-access-token'))).toEqual(['tok-1', 'tok-2', 'tok-3']);
    expect(tokens.invalidated).toEqual(['tok-1', 'tok-2']);

    const more = renewable(['tok-1', 'tok-2', 'tok-3', 'tok-4']);
    const thrice = setup([expired(), expired(), expired(), json({})], { userTokens: more.source });
    const e = await failure(thrice.t.request({ method: 'POST', path: '/teams', body: {} }));
    expect(isKnownError(e, 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(thrice.calls).toHaveLength(3);
    expect(more.invalidated).toEqual(['tok-1', 'tok-2']);
  });

  it('does not renew the same token twice: a source that hands it out again gets the error', async () => {
    const stuck: TokenSource = { renewable: true, getAccessToken: async () => 'same', invalidateAccessToken: () => undefined };
    const { t, calls } = setup([expired(), expired(), json({})], { userTokens: stuck });
    expect(isKnownError(await failure(t.request({ method: 'GET', path: '/users/me' })), 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('renews on every INVALID_ACCESS_TOKEN code', async () => {
    for (const error of [createKnownError('UNPARSABLE_ACCESS_TOKEN'), createKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN')]) {
      const tokens = renewable(['a', 'b']);
      const { t } = setup([knownError(error), json(1)], { userTokens: tokens.source });
      await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toBe(1);
      expect(tokens.invalidated).toEqual(['a']);
    }
  });

  it('throws at once with a static token source', async () => {
    const { t, calls } = setup([expired(), json({})], { userTokens: staticTokenSource('static-token') });
    const e = await failure(t.request({ method: 'GET', path: '/users/me' }));
    expect(isKnownError(e, 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.get('x-stack-access-token')).toBe('static-token');
  });

  it('does not renew a token that was not sent', async () => {
    const tokens = renewable(['tok-1', 'tok-2']);
    const { t, calls } = setup([expired(), json({})], { userTokens: tokens.source });
    expect(isKnownError(await failure(t.request({ method: 'POST', path: '/auth/otp/sign-in', body: {}, user: 'none' })), 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(calls[0]!.headers.has('x-stack-access-token')).toBe(false);
    expect(tokens.invalidated).toEqual([]);
  });

  it('renews an admin access token on the admin family', async () => {
    const admin = renewable(['adm-1', 'adm-2']);
    const { t, calls } = setup([knownError(createKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', { expired_at_millis: null })), json({ id: 'p' })], {
      adminTokens: admin.source,
    });
    await expect(t.request({ method: 'GET', path: '/projects/current' })).resolves.toEqual({ id: 'p' });
    expect(calls.map((c) => c.headers.get('x-stack-admin-access-token'))).toEqual(['adm-1', 'adm-2']);
    expect(calls.every((c) => !c.headers.has('x-stack-publishable-client-key'))).toBe(true);
  });
});

describe('hooks and cancellation', () => {
  it('awaits beforeAttempt before each attempt', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { t, calls } = setup(['network', json({ ok: 1 })], {
      beforeAttempt: async (event) => {
        log.push(`before ${event.attempt} ${event.method} ${event.path}`);
        if (event.attempt === 0) await gate;
        log.push(`after ${event.attempt}`);
      },
      observer: { onNetworkError: () => log.push('network error') },
    });
    const pending = t.request({ method: 'GET', path: '/users/me' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(['before 0 GET /users/me']);
    expect(calls).toHaveLength(0);
    release();
    await expect(pending).resolves.toEqual({ ok: 1 });
    expect(log).toEqual(['before 0 GET /users/me', 'after 0', 'network error', 'before 1 GET /users/me', 'after 1']);
    expect(calls).toHaveLength(2);
  });

  it('a rejecting beforeAttempt stops the call before any fetch', async () => {
    const stop = new Error('held');
    const { t, calls } = setup([json({})], { beforeAttempt: () => Promise.reject(stop) });
    expect(await failure(t.request({ method: 'GET', path: '/x' }))).toBe(stop);
    expect(calls).toHaveLength(0);
  });

  it('an already aborted signal rejects without fetching', async () => {
    const reason = new Error('cancelled');
    const { t, calls } = setup([json({})]);
    expect(await failure(t.request({ method: 'GET', path: '/x', signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(calls).toHaveLength(0);
  });

  it('aborting during a fetch rejects with the reason and does not retry', async () => {
    const controller = new AbortController();
    const reason = new Error('user left');
    const { t, calls, sleeps } = setup(['hang', json({})]);
    const pending = failure(t.request({ method: 'GET', path: '/x', signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('passes the signal to the backoff sleep', async () => {
    const controller = new AbortController();
    const reason = new Error('stop waiting');
    const { t, calls, signals } = setup(['network', json({})], {
      observer: { onRetry: () => controller.abort(reason) },
    });
    expect(await failure(t.request({ method: 'GET', path: '/x', signal: controller.signal }))).toBe(reason);
    expect(signals).toEqual([controller.signal]);
    expect(calls).toHaveLength(1);
  });
});

describe('answers that are not the service', () => {
  it('never follows a redirect: a 3xx is a ProtocolError, sent once, with nothing re-sent elsewhere', async () => {
    const { t, calls, all } = setup([text('', 302, { location: 'https://evil.example/steal' }), json({})], { userTokens: staticTokenSource('user-token') });
    const e = await failure(t.request({ method: 'POST', path: '/auth/password/sign-in', body: { email: 'a@b.c', password: 'secret' } }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain('redirect');
    expect(calls).toHaveLength(1);
    expect(all.every((url) => new URL(url).origin === BASE)).toBe(true);
  });

  it('asks fetch not to follow redirects', async () => {
    let seen: RequestRedirect | undefined;
    const t = createTransport({
      baseUrl: BASE,
      projectId: PROJECT,
      accessType: 'client',
      publishableClientKey: 'pck_1',
      fetch: (async (_input: string | URL | Request, init?: RequestInit) => {
        seen = init?.redirect;
        return json({})();
      }) as typeof fetch,
    });
    await t.request({ method: 'GET', path: '/users/me' });
    expect(seen).toBe('manual');
  });

  it('an opaque redirect (what a browser gives for redirect: manual) is a ProtocolError too', async () => {
    const opaque = () => Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' }) as Response;
    const { t, calls } = setup([opaque, json({})]);
    expect(await failure(t.request({ method: 'GET', path: '/users/me' }))).toBeInstanceOf(ProtocolError);
    expect(calls).toHaveLength(1);
  });

  it('a 200 that is not JSON (a captive portal) is a ProtocolError, never the data', async () => {
    const { t } = setup([text('<html><body>Log in to the hotel Wi-Fi</body></html>', 200, { 'content-type': 'text/html' })]);
    const e = await failure(t.request({ method: 'GET', path: '/users/me' }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain('text/html');
    expect((e as Error).message).not.toContain('hotel');
  });

  it('error messages and bodies never carry what looks like a credential', async () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
    const refresh = 'r3fr3shT0k3nAbcdefGhijkLmnopQrstuv';
    const echoed = `upstream failed for token ${jwt} refresh ${refresh} user 0f8fad5b-d9cb-469f-a165-70867728950e at /api/v1/auth/password/sign-in (REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED)`;
    const { t } = setup([text(echoed, 501)]);
    const e = (await failure(t.request({ method: 'GET', path: '/users/me' }))) as HttpStatusError;
    for (const text of [e.message, e.body, JSON.stringify(e.toJSON())]) {
      expect(text).not.toContain(jwt.split('.')[0]);
      expect(text).not.toContain(refresh);
      expect(text).toContain('0f8fad5b-d9cb-469f-a165-70867728950e');
      expect(text).toContain('/api/v1/auth/password/sign-in');
      expect(text).toContain('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    }
    const broken = setup([text(`{"access_token":"${jwt}"`, 200, { 'content-type': 'application/json' })]);
    const p = (await failure(broken.t.request({ method: 'POST', path: '/auth/password/sign-in', body: {} }))) as ProtocolError;
    expect(p).toBeInstanceOf(ProtocolError);
    expect(p.message).not.toContain('eyJ');
  });
});
