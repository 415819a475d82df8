import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { chromiumAvailable, launchChromium } from '../e2e/support/chromium.js';
import { useEmulator } from '../support/emulator.js';
import { keyHeaders, raw, signInAdmin } from './httpSupport.js';

/**
 * The demo project's secret server key, super secret admin key and admin password are public
 * constants: server and admin access is served to callers without an Origin (servers, scripts,
 * tests), the emulator's own pages and the allowed origins only, never to any other web page.
 */
const emulator = useEmulator();

const DEMO = 'http://localhost:5173';
const EVIL = 'https://evil.example';

function expectRefused(response: Awaited<ReturnType<typeof raw>>, origin: string): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('x-stack-known-error')).toBe('INSUFFICIENT_ACCESS_TYPE');
  // Readable by the page, so its developer sees why.
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  const body = response.json<{ code: string; error: string; details: unknown }>();
  expect(body.code).toBe('INSUFFICIENT_ACCESS_TYPE');
  expect(body.details).toMatchObject({ allowed_access_types: ['client'] });
  expect(body.error).toContain(`--allow-origin ${origin}`);
}

async function sessionCount(em: RunningEmulator): Promise<number> {
  return Object.keys(em.env.store.project(em.projects.demo.id)!.sessions).length;
}

describe('server and admin access from web pages', () => {
  it('refuses the demo keys to a page of another origin, before anything happens', async () => {
    const em = emulator();
    for (const origin of [EVIL, 'null', 'http://localhost:3000', `http://localhost:${em.port}`]) {
      expectRefused(
        await raw(em, 'GET', '/api/v1/users', { headers: { ...keyHeaders(em, 'server'), origin } }),
        origin,
      );
      expectRefused(
        await raw(em, 'GET', '/api/v1/internal/api-keys', { headers: { ...keyHeaders(em, 'admin'), origin } }),
        origin,
      );
    }
    // A session minted for the demo user, the attack that matters most: refused, and none made.
    const before = await sessionCount(em);
    const userId = Object.keys(em.env.store.project(em.projects.demo.id)!.users)[0]!;
    const mint = await raw(em, 'POST', '/api/v1/auth/sessions', {
      headers: { ...keyHeaders(em, 'server'), origin: EVIL },
      json: { user_id: userId },
    });
    expectRefused(mint, EVIL);
    expect(await sessionCount(em)).toBe(before);
    // The other header family and a wrong key are refused alike: a page learns nothing about a key it guessed.
    const hexclave = Object.fromEntries(
      Object.entries(keyHeaders(em, 'server')).map(([name, value]) => [name.replace('x-stack-', 'x-hexclave-'), value]),
    );
    expectRefused(await raw(em, 'GET', '/api/v1/users', { headers: { ...hexclave, origin: EVIL } }), EVIL);
    expectRefused(
      await raw(em, 'GET', '/api/v1/users', {
        headers: { ...keyHeaders(em, 'server'), 'x-stack-secret-server-key': 'ssk_wrong', origin: EVIL },
      }),
      EVIL,
    );
  });

  it("refuses admin access through the published admin user's token too", async () => {
    const em = emulator();
    // Signing in to `internal` is client access: any page may, as on the service.
    const { access_token } = await signInAdmin(em);
    const headers = {
      'x-stack-project-id': em.projects.demo.id,
      'x-stack-access-type': 'admin',
      'x-stack-admin-access-token': access_token,
    };
    expectRefused(await raw(em, 'GET', '/api/v1/internal/api-keys', { headers: { ...headers, origin: EVIL } }), EVIL);
    expect((await raw(em, 'GET', '/api/v1/internal/api-keys', { headers: { ...headers, origin: DEMO } })).status).toBe(
      200,
    );
  });

  it('serves callers without an Origin, its own pages and the allowed origins (the demo by default)', async () => {
    const em = emulator();
    for (const origin of [undefined, em.url, DEMO]) {
      const extra: Record<string, string> = origin === undefined ? {} : { origin };
      const users = await raw(em, 'GET', '/api/v1/users', { headers: { ...keyHeaders(em, 'server'), ...extra } });
      expect(users.status, String(origin)).toBe(200);
      const keys = await raw(em, 'GET', '/api/v1/internal/api-keys', {
        headers: { ...keyHeaders(em, 'admin'), ...extra },
      });
      expect(keys.status, String(origin)).toBe(200);
    }
  });

  it('keeps the client API open to every origin, as the service does', async () => {
    const em = emulator();
    for (const origin of [EVIL, DEMO]) {
      const project = await raw(em, 'GET', '/api/v1/projects/current', {
        headers: { ...keyHeaders(em, 'client'), origin },
      });
      expect(project.status).toBe(200);
      const signIn = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
        headers: { ...keyHeaders(em, 'client'), origin },
        json: { email: em.demoUser!.email, password: em.demoUser!.password },
      });
      expect(signIn.status).toBe(200);
    }
  });

  it('takes its allowed origins from allowOrigins, which replaces the default', async () => {
    const em = await startEmulator({ port: 0, allowOrigins: ['http://localhost:3000'] });
    try {
      const as = (origin: string) =>
        raw(em, 'GET', '/api/v1/users', { headers: { ...keyHeaders(em, 'server'), origin } });
      expect((await as('http://localhost:3000')).status).toBe(200);
      expectRefused(await as(DEMO), DEMO);
    } finally {
      await em.stop();
    }
  });
});

describe.skipIf(!chromiumAvailable)('in Chromium', () => {
  /** A page of its own origin on loopback: what any website open in the developer's browser can do. */
  async function servePage(): Promise<{ url: string; close(): Promise<void> }> {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>another site</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it('a page of another origin gets no server or admin answer, and reads the refusal; the client API answers it', async () => {
    const em = emulator();
    const site = await servePage();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(site.url);
      const results = await page.evaluate(
        async ({ base, headers }) => {
          const call = async (path: string, access: Record<string, string>) => {
            const response = await fetch(`${base}/api/v1${path}`, { headers: access });
            return { status: response.status, code: response.headers.get('x-stack-known-error') };
          };
          return {
            server: await call('/users', headers.server),
            admin: await call('/internal/api-keys', headers.admin),
            client: await call('/projects/current', headers.client),
          };
        },
        {
          base: em.url,
          headers: {
            server: keyHeaders(em, 'server'),
            admin: keyHeaders(em, 'admin'),
            client: keyHeaders(em, 'client'),
          },
        },
      );
      expect(results).toEqual({
        server: { status: 401, code: 'INSUFFICIENT_ACCESS_TYPE' },
        admin: { status: 401, code: 'INSUFFICIENT_ACCESS_TYPE' },
        client: { status: 200, code: null },
      });
    } finally {
      await browser.close();
      await site.close();
    }
  });
});
