import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRuleInput, StatsSnapshot } from '../../emulator/index.js';
import { endpoints, refreshAccessToken } from '../../protocol/index.js';
import { devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw } from './httpSupport.js';

const emulator = useEmulator();
const CURRENT = '/api/v1/projects/current';

async function addFaults(rules: FaultRuleInput[], seed?: number): Promise<void> {
  await devRequest(emulator(), 'POST', '/emulator/faults', { rules, ...(seed === undefined ? {} : { seed }) });
}

afterEach(async () => {
  await devRequest(emulator(), 'DELETE', '/emulator/faults');
});

const get = () => raw(emulator(), 'GET', CURRENT, { headers: keyHeaders(emulator(), 'client') });

describe('POST /emulator/faults', () => {
  it('answers injected errors as infrastructure would: real status even with the override header', async () => {
    await addFaults([{ path: CURRENT, count: 1, effect: { type: 'status', status: 503 } }]);
    const response = await raw(emulator(), 'GET', CURRENT, {
      headers: { ...keyHeaders(emulator(), 'client'), 'x-stack-override-error-status': 'true' },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-stack-actual-status')).toBeNull();
  });

  it('adds latency and still answers', async () => {
    await addFaults([
      { path: '/api/v1/projects/current', method: 'GET', count: 1, effect: { type: 'latency', ms: 150 } },
    ]);
    const started = performance.now();
    const response = await get();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
  });

  it('answers 429 with or without Retry-After, 500 and 503, as plain errors', async () => {
    await addFaults([
      { path: CURRENT, count: 1, effect: { type: 'status', status: 429, retry_after: '3' } },
      { path: CURRENT, count: 1, effect: { type: 'status', status: 429 } },
      { path: CURRENT, count: 1, effect: { type: 'status', status: 500 } },
      { path: CURRENT, count: 1, effect: { type: 'status', status: 503 } },
    ]);
    const responses = [await get(), await get(), await get(), await get(), await get()];
    expect(responses.map((r) => r.status)).toEqual([429, 429, 500, 503, 200]);
    expect(responses[0]!.headers.get('retry-after')).toBe('3');
    expect(responses[1]!.headers.get('retry-after')).toBeNull();
    for (const r of responses.slice(0, 4)) {
      expect(r.headers.get('x-stack-known-error')).toBeNull();
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('answers 508 with INFINITE_LOOP_DETECTED', async () => {
    await addFaults([{ path: CURRENT, count: 1, effect: { type: 'loop-detected' } }]);
    const response = await get();
    expect(response.status).toBe(508);
    expect(response.text).toContain('INFINITE_LOOP_DETECTED');
  });

  it('drops the connection before the handler (nothing written) or after it (written)', async () => {
    const em = emulator();
    const signUp = (email: string) =>
      endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email,
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/v',
      });
    const send = (email: string) =>
      fetch(`${em.url}/api/v1/auth/password/sign-up`, {
        method: 'POST',
        headers: { ...keyHeaders(em, 'client'), 'content-type': 'application/json' },
        body: JSON.stringify({
          email,
          password: 'correct horse',
          verification_callback_url: 'http://localhost:3000/v',
        }),
      });
    const before = uniqueEmail('drop-before');
    await addFaults([
      { path: '/api/v1/auth/password/sign-up', method: 'POST', count: 1, effect: { type: 'drop', phase: 'before' } },
    ]);
    await expect(send(before)).rejects.toThrow(TypeError);
    expect((await signUp(before)).user_id).toEqual(expect.any(String));

    const after = uniqueEmail('drop-after');
    await addFaults([
      { path: '/api/v1/auth/password/sign-up', method: 'POST', count: 1, effect: { type: 'drop', phase: 'after' } },
    ]);
    await expect(send(after)).rejects.toThrow(TypeError);
    const existing = await signUp(after).then(
      () => 'created',
      (e: { code?: string }) => e.code,
    );
    expect(existing).toBe('USER_EMAIL_ALREADY_EXISTS');
  });

  it('fires count times, then stops', async () => {
    await addFaults([{ path: CURRENT, count: 2, effect: { type: 'status', status: 503 } }]);
    expect([(await get()).status, (await get()).status, (await get()).status]).toEqual([503, 503, 200]);
    const { rules } = await devRequest<{ rules: unknown[] }>(emulator(), 'GET', '/emulator/faults');
    expect(rules).toEqual([expect.objectContaining({ count: 0, injected: 2 })]);
  });

  it('is deterministic with a seed, and 0/1 probabilities are never/always', async () => {
    const pattern = async () => {
      await addFaults([{ path: CURRENT, probability: 0.5, effect: { type: 'status', status: 500 } }], 1234);
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await get()).status);
      await devRequest(emulator(), 'DELETE', '/emulator/faults');
      return statuses;
    };
    const first = await pattern();
    expect(await pattern()).toEqual(first);
    expect(first).toContain(500);
    expect(first).toContain(200);

    await addFaults([{ path: CURRENT, probability: 0, effect: { type: 'status', status: 500 } }]);
    expect((await get()).status).toBe(200);
    await addFaults([{ path: CURRENT, probability: 1, effect: { type: 'status', status: 503 } }]);
    expect((await get()).status).toBe(503);
  });

  it('matches path patterns and methods', async () => {
    const em = emulator();
    await addFaults([
      { path: '/api/v1/projects/*', method: 'GET', probability: 1, effect: { type: 'status', status: 503 } },
      { path: '/api/v1/auth/*', method: 'POST', probability: 1, effect: { type: 'status', status: 500 } },
    ]);
    expect((await get()).status).toBe(503);
    expect((await raw(em, 'GET', '/api/v1', { headers: keyHeaders(em, 'client') })).status).toBe(200);
    expect(
      (
        await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
          headers: keyHeaders(em, 'admin'),
          json: { description: 'x' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await raw(em, 'GET', '/api/v1/auth/sessions?user_id=me', { headers: keyHeaders(em, 'client') })).status,
    ).toBe(400);
    expect(
      (await raw(em, 'POST', '/api/v1/auth/password/sign-in', { headers: keyHeaders(em, 'client'), json: {} })).status,
    ).toBe(500);
  });

  it('clears every rule on DELETE', async () => {
    await addFaults([{ path: '*', probability: 1, effect: { type: 'status', status: 503 } }]);
    expect((await get()).status).toBe(503);
    expect(await devRequest(emulator(), 'DELETE', '/emulator/faults')).toEqual({ success: true });
    expect(await devRequest(emulator(), 'GET', '/emulator/faults')).toEqual({ rules: [] });
    expect((await get()).status).toBe(200);
  });

  it('refuses bad rules with 400 INVALID_ARGUMENT', async () => {
    const em = emulator();
    const bad = [
      { path: CURRENT, count: 1, effect: { type: 'status', status: 418 } },
      { path: CURRENT, effect: { type: 'latency', ms: 10 } },
      { path: '', count: 1, effect: { type: 'drop' } },
      { path: CURRENT, count: 1, probability: 2, effect: { type: 'drop' } },
      { path: CURRENT, count: 1, effect: { type: 'explode' } },
      { path: CURRENT, count: 1, effect: { type: 'latency', ms: 1 }, extra: true },
    ];
    for (const rule of bad) {
      const response = await raw(em, 'POST', '/emulator/faults', { json: { rules: [rule] } });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.any(String) });
    }
    expect(await devRequest(em, 'GET', '/emulator/faults')).toEqual({ rules: [] });
    expect(
      (await raw(em, 'POST', '/emulator/faults', { body: 'nope', headers: { 'content-type': 'text/plain' } })).status,
    ).toBe(400);
  });
});

describe('/emulator/stats', () => {
  it('counts requests by route and status, writes, token refreshes and faults; DELETE resets', async () => {
    const em = emulator();
    const demo = em.projects.demo;
    expect(await devRequest(em, 'DELETE', '/emulator/stats')).toEqual({ success: true });
    const zero = await devRequest<StatsSnapshot>(em, 'GET', '/emulator/stats');
    expect(zero).toMatchObject({
      requests_total: 0,
      token_refreshes: 0,
      writes: { total: 0 },
      faults_injected: { total: 0 },
    });

    await get();
    await get();
    await raw(em, 'GET', CURRENT, {
      headers: { ...keyHeaders(em, 'client'), 'x-stack-publishable-client-key': 'pck_wrong' },
    });
    const signedIn = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: 'demo@authbroker.dev',
      password: 'demo-password',
    });
    await refreshAccessToken(
      { baseUrl: em.url, projectId: demo.id, publishableClientKey: demo.publishableClientKey },
      signedIn.refresh_token,
    );
    await raw(em, 'POST', '/api/v1/auth/sessions/current/refresh', {
      headers: { ...keyHeaders(em, 'client'), 'x-stack-refresh-token': signedIn.refresh_token },
      json: {},
    });
    await addFaults([{ path: CURRENT, count: 1, effect: { type: 'status', status: 503 } }]);
    await get();

    const stats = await devRequest<StatsSnapshot>(em, 'GET', '/emulator/stats');
    expect(stats.requests['GET /projects/current']).toEqual({ '200': 2, '401': 1, '503': 1 });
    expect(stats.requests['POST /auth/password/sign-in']).toEqual({ '200': 1 });
    expect(stats.token_refreshes).toBe(2);
    expect(stats.token_grants).toMatchObject({ refresh_token: 1, session_refresh_endpoint: 1 });
    expect(stats.writes.by_route['POST /auth/password/sign-in']).toBe(1);
    expect(stats.writes.by_route['GET /projects/current']).toBeUndefined();
    expect(stats.faults_injected).toEqual({ total: 1, by_effect: { 'status-503': 1 } });
    expect(stats.requests_total).toBe(7);

    await devRequest(em, 'DELETE', '/emulator/stats');
    expect((await devRequest<StatsSnapshot>(em, 'GET', '/emulator/stats')).requests).toEqual({});
  });

  it('exists only under /emulator, never under /api/v1', async () => {
    const em = emulator();
    for (const path of ['/api/v1/emulator/stats', '/api/v1/emulator/faults', '/api/v1/emulator/time']) {
      const response = await raw(em, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.text.startsWith("404 — this page does not exist in Stack Auth's API.")).toBe(true);
    }
    expect((await raw(em, 'POST', '/api/v1/emulator/faults', { json: { rules: [] } })).status).toBe(404);
  });
});

describe('faults on /health and lenient dev endpoints', () => {
  it('a fault rule can target /health (to make the service look unreachable)', async () => {
    await addFaults([{ path: '/health', count: 1, effect: { type: 'status', status: 503 } }]);
    expect((await fetch(`${emulator().url}/health`)).status).toBe(503);
    expect((await fetch(`${emulator().url}/health`)).status).toBe(200);
  });

  it('DELETE /emulator/faults with a JSON content type and no body works', async () => {
    const response = await fetch(`${emulator().url}/emulator/faults`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
  });
});
