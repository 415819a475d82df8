import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, ProtocolError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { createKnownError } from '../../protocol/errors/create.js';
import { BASE, failure, json, knownError, PROBES, setup, text } from './transportFixture.js';

describe('network failures', () => {
  it('retries a GET four times with the exact backoff, then succeeds', async () => {
    const { t, calls, sleeps, retries, probes } = setup([
      'network',
      'network',
      'network',
      'network',
      json({ id: 'me' }),
    ]);
    await expect(t.request({ method: 'GET', path: '/users/me' })).resolves.toEqual({ id: 'me' });
    expect(calls).toHaveLength(5);
    expect(new Set(calls.map((c) => c.url))).toEqual(new Set([`${BASE}/api/v1/users/me`]));
    expect(sleeps).toEqual([750, 1500, 3000, 6000]);
    expect(retries).toEqual(
      [0, 1, 2, 3].map((attempt) => ({ attempt, delayMillis: [750, 1500, 3000, 6000][attempt], reason: 'network' })),
    );
    expect(probes).toEqual([]);
    // Every attempt is a fresh request.
    expect(new Set(calls.map((c) => c.headers.get('x-stack-random-nonce'))).size).toBe(5);
  });

  it('gives up after five attempts with diagnostics of the service origin only', async () => {
    const { t, calls, sleeps, probes, all } = setup(
      ['network', 'network', 'network', 'network', 'network', 'network'],
      { baseUrl: `${BASE}/` },
    );
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
    const { t } = setup(
      ['network', 'network', 'network', 'network', 'network'],
      {},
      () => new Response('{"status":"ok"}', { status: 200 }),
    );
    const e = (await failure(t.request({ method: 'GET', path: '/teams' }))) as NetworkError;
    expect(e.diagnostics?.health).toMatchObject({ reachable: true, status: 200, error: null });
    expect(e.message).toContain('answers its health check');
  });

  it('reports NETWORK_OFFLINE without probing when the runtime is offline', async () => {
    const { t, calls, probes } = setup(['network', 'network', 'network', 'network', 'network'], {
      navigatorOnline: () => false,
    });
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
    await expect(t.request({ method: 'PATCH', path: '/users/me', body: { display_name: 'A' } })).resolves.toEqual({
      id: 'me',
    });
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
    const { t, calls, sleeps } = setup(
      ['hang', 'hang', 'hang', 'hang', 'hang'],
      { attemptTimeoutMillis: 5 },
      () => new Response('ok'),
    );
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
      new Response(
        new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"id":')) }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
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
    expect(await failure(post.t.request({ method: 'POST', path: '/auth/otp/sign-in', body: {} }))).toBeInstanceOf(
      NetworkError,
    );
    expect(post.calls).toHaveLength(1);
  });
});

describe('status retries', () => {
  it('waits out a 429 Retry-After, then succeeds', async () => {
    const { t, calls, sleeps, retries } = setup([text('slow down', 429, { 'retry-after': '2' }), json({ ok: true })]);
    await expect(t.request({ method: 'POST', path: '/auth/password/sign-in', body: {} })).resolves.toEqual({
      ok: true,
    });
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
    const { t, calls, sleeps, retries } = setup([
      text('Bad Gateway', 502),
      text('busy', 503, { 'retry-after': '2' }),
      text('oops', 500),
      text('gateway timeout', 504),
      json({ ok: 1 }),
    ]);
    await expect(t.request({ method: 'GET', path: '/teams' })).resolves.toEqual({ ok: 1 });
    expect(calls).toHaveLength(5);
    expect(sleeps).toEqual([750, 2000, 3000, 6000]);
    expect(retries.map((r) => r.reason)).toEqual(['server-error', 'server-error', 'server-error', 'server-error']);
    const exhausted = setup([text('a', 503), text('b', 503), text('c', 503), text('d', 503), text('e', 503), json({})]);
    expect(await failure(exhausted.t.request({ method: 'DELETE', path: '/teams/1' }))).toMatchObject({
      status: 503,
      body: 'e',
    });
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
