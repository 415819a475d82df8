import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors/errors.js';
import { createServerApp } from '../../protocol/server.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import { compressedClock, tokenRequests } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';

/**
 * A server (or whatever answers in its place: a captive portal, a proxy) that answers wrongly must
 * not sign anyone in, must not receive credentials meant for the service, and must not turn into a
 * token request per call.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
let broker: Broker | undefined;
let servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

async function openTab(fetchFn: typeof fetch) {
  const started = await scope.start({ fetch: fetchFn, clock: compressedClock });
  broker = started.broker;
  const tab = await scope.tab(started);
  await tab.subscribe('session', { kind: 'session' });
  return tab;
}

/** The demo user's sign-in, answered by `answer` instead of the service. */
function signInAnsweredBy(answer: () => Response): typeof fetch {
  return async (input, init) => (String(input).endsWith('/auth/password/sign-in') ? answer() : fetch(input, init));
}

const json = (body: unknown) => () =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

describe('a sign-in answered 200 without a usable session', () => {
  it.each([
    ['an empty object', json({})],
    [
      'an error body on a success status',
      json({ code: 'EMAIL_PASSWORD_MISMATCH', error: 'Wrong e-mail or password.' }),
    ],
    ['tokens that are not strings', json({ access_token: 1, refresh_token: { value: 'x' }, user_id: 'u' })],
    ['the string "undefined" for a token', json({ access_token: 'undefined', refresh_token: 'r', user_id: 'u' })],
    [
      'a captive portal page',
      () => new Response('<html>Log in to the Wi-Fi</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    ],
  ])('%s: a typed PROTOCOL_ERROR, and nobody is signed in', async (_name, answer) => {
    const t = await openTab(signInAnsweredBy(answer));
    const error = await t.api
      .signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'PROTOCOL_ERROR' });
    expect((error as Error).message).not.toContain('Wi-Fi');
    expect(broker!.status().session).toMatchObject({ status: 'signed-out' });
    expect(await t.api.getAccessToken()).toBeNull();
  });
});

describe('access tokens the broker cannot read', () => {
  it('are renewed at most once a minute, not before every call, and the status says why', async () => {
    const em = emulator();
    // Between the broker and the service: the broker only ever sees opaque handles for the real JWTs.
    const real = new Map<string, string>();
    const opaque = (jwt: string) => {
      const handle = `opaque-${real.size + 1}-${'x'.repeat(20)}`;
      real.set(handle, jwt);
      return handle;
    };
    const translating: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const sent = headers.get('x-stack-access-token');
      if (sent !== null && real.has(sent)) headers.set('x-stack-access-token', real.get(sent)!);
      const response = await fetch(input, { ...init, headers });
      if (!response.headers.get('content-type')?.includes('json') || response.status !== 200) return response;
      const body = (await response.json()) as Record<string, unknown>;
      if (typeof body.access_token === 'string') body.access_token = opaque(body.access_token);
      return new Response(JSON.stringify(body), { status: 200, headers: response.headers });
    };
    const t = await openTab(translating);
    await t.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    em.env.stats.reset();
    for (const kind of ['currentUser', 'teams', 'contactChannels', 'sessions', 'project'] as const) {
      await t.api.refetch({ kind });
      expect(await t.api.getAccessToken()).toMatch(/^opaque-/);
    }
    expect(await tokenRequests(em)).toBe(0);
    expect(broker!.status().warnings.some((w) => w.includes('not a JWT'))).toBe(true);
  });
});

/** A server on loopback that redirects every request to `target`, recording what reached it. */
async function redirectingServer(target: string): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(307, { location: `${target}${request.url}` }).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('an API URL that redirects', () => {
  it('the broker: sign-in fails with a ProtocolError and neither the password nor the key reach the redirect target', async () => {
    const em = emulator();
    const elsewhere = await redirectingServer(em.url);
    const { demo, internal } = em.projects;
    const locks = new LocalLockManager();
    broker = scope.track(
      await createBroker(
        {
          baseUrl: elsewhere.url,
          projectId: demo.id,
          publishableClientKey: demo.publishableClientKey,
          internalPublishableClientKey: internal.publishableClientKey,
        },
        { mode: 'shared-worker', clock: compressedClock, locks },
      ),
    );
    const tab = await scope.tab({ broker, locks });
    em.env.stats.reset();
    const error = await tab.api
      .signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('redirect');
    // One sign-in went there, and no more (the broker's connectivity checks, GETs without credentials, may too).
    expect(elsewhere.seen.filter((headers) => headers['content-type'] !== undefined)).toHaveLength(1);
    // The service (the redirect's target) never heard of it.
    expect(Object.keys(em.env.stats.snapshot().requests).filter((route) => !route.startsWith('GET '))).toEqual([]);
    expect(broker.status().session).toMatchObject({ status: 'signed-out' });
  });

  it('authbroker/server: the secret key is never re-sent to where a redirect points', async () => {
    const em = emulator();
    const elsewhere = await redirectingServer(em.url);
    const app = createServerApp({
      baseUrl: elsewhere.url,
      projectId: em.projects.demo.id,
      secretServerKey: em.projects.demo.secretServerKey,
    });
    em.env.stats.reset();
    expect(await app.listUsers({ limit: 1 }).catch((e: unknown) => e)).toBeInstanceOf(ProtocolError);
    expect(elsewhere.seen).toHaveLength(1);
    expect(em.env.stats.snapshot().requests_total).toBe(0);
  });
});
