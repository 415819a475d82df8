import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { createAccessPolicy, exposureWarning, isLoopbackHost } from '../../emulator/http/guard.js';
import { InvalidArgumentError } from '../../protocol/index.js';
import { useEmulator } from '../support/emulator.js';
import { keyHeaders, raw } from './httpSupport.js';

/**
 * The emulator as a dev server left running: the API answers every origin (as the service does),
 * the dev endpoints only this emulator's own pages, the allowed origins and callers without an
 * origin; and no request with a foreign Host header is answered (DNS rebinding).
 */
const emulator = useEmulator();

const DEMO = 'http://localhost:5173';
const EVIL = 'https://evil.example';
const RULE = { rules: [{ path: '/api/v1/users/me', count: 1, effect: { type: 'status', status: 503 } }] };

/** A request with a Host header of our choosing (fetch always sends the real one). */
function withHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dev endpoints (/emulator/*) and origins', () => {
  it('refuses a foreign page before anything happens: 403, no CORS headers, no change', async () => {
    const em = emulator();
    em.env.mailbox.deliver({
      project_id: 'p',
      to: 'someone@example.com',
      subject: 'Reset your password',
      text: 'link',
      html: '',
      template: 'password_reset',
      link: 'http://localhost:5173/reset?code=secret',
    });
    const read = await raw(em, 'GET', '/emulator/mailbox', { headers: { origin: EVIL } });
    expect(read.status).toBe(403);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(read.text).not.toContain('secret');
    expect(read.text).toContain(`--allow-origin ${EVIL}`);

    const inject = await raw(em, 'POST', '/emulator/faults', { headers: { origin: EVIL }, json: RULE });
    expect(inject.status).toBe(403);
    // A "simple" request (no preflight in a browser) changes nothing either.
    const simple = await raw(em, 'POST', '/emulator/time', {
      headers: { origin: EVIL, 'content-type': 'text/plain' },
      body: '{"advance_millis":1000}',
    });
    expect(simple.status).toBe(403);
    const clear = await raw(em, 'DELETE', '/emulator/mailbox', { headers: { origin: 'null' } });
    expect(clear.status).toBe(403);
    expect(em.env.faults.list()).toEqual([]);
    expect(em.env.clock.offset).toBe(0);
    expect(em.env.mailbox.list('someone@example.com')).toHaveLength(1);

    const preflight = await raw(em, 'OPTIONS', '/emulator/faults', {
      headers: {
        origin: EVIL,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const page = await raw(em, 'GET', '/emulator', { headers: { origin: EVIL } });
    expect(page.status).toBe(403);
  });

  it('serves the allowed origins (the demo by default) with their own CORS headers', async () => {
    const em = emulator();
    const preflight = await raw(em, 'OPTIONS', '/emulator/faults', {
      headers: {
        origin: DEMO,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(DEMO);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('vary')).toBe('origin');
    const added = await raw(em, 'POST', '/emulator/faults', { headers: { origin: DEMO }, json: RULE });
    expect(added.status).toBe(200);
    expect(added.headers.get('access-control-allow-origin')).toBe(DEMO);
    await raw(em, 'DELETE', '/emulator/faults', { headers: { origin: DEMO } });
    expect(em.env.faults.list()).toEqual([]);
  });

  it('serves its own pages (same origin) and callers without an origin, without CORS headers', async () => {
    const em = emulator();
    const own = await raw(em, 'GET', '/emulator/stats', { headers: { origin: em.url } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const script = await raw(em, 'GET', '/emulator/stats');
    expect(script.status).toBe(200);
    expect(script.headers.get('access-control-allow-origin')).toBeNull();
    // The mock OAuth provider's consent form posts to its own origin.
    const consent = await raw(em, 'POST', '/emulator/oauth/github/authorize', {
      headers: { origin: em.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'state=s',
    });
    expect(consent.status).toBe(400);
    expect(consent.text).toContain('redirect_uri');
  });

  it("keeps the service's CORS on the API for every origin", async () => {
    const em = emulator();
    for (const origin of [EVIL, DEMO]) {
      const response = await raw(em, 'GET', '/api/v1/projects/current', {
        headers: { ...keyHeaders(em, 'client'), origin },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('takes the allowed origins as an option, checked', async () => {
    const em = await startEmulator({ port: 0, allowOrigins: ['http://localhost:3000', 'https://app.example.com/'] });
    try {
      expect((await raw(em, 'GET', '/emulator/stats', { headers: { origin: 'http://localhost:3000' } })).status).toBe(
        200,
      );
      expect((await raw(em, 'GET', '/emulator/stats', { headers: { origin: 'https://app.example.com' } })).status).toBe(
        200,
      );
      // The option replaces the default.
      expect((await raw(em, 'GET', '/emulator/stats', { headers: { origin: DEMO } })).status).toBe(403);
    } finally {
      await em.stop();
    }
    for (const bad of ['localhost:3000', 'http://localhost:3000/app', 'ftp://files.example', '*']) {
      await expect(startEmulator({ port: 0, allowOrigins: [bad] })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
  });
});

describe('Host header (DNS rebinding)', () => {
  it('answers loopback names and IP addresses, and refuses other names on every path', async () => {
    const em = emulator();
    for (const host of [
      `127.0.0.1:${em.port}`,
      `localhost:${em.port}`,
      `app.localhost:${em.port}`,
      `[::1]:${em.port}`,
      `192.168.1.20:${em.port}`,
    ]) {
      expect((await withHost(em.port, '/emulator/stats', host)).status, host).toBe(200);
    }
    for (const path of ['/emulator/mailbox', '/api/v1', '/health']) {
      const refused = await withHost(em.port, path, `attacker.example:${em.port}`);
      expect(refused.status, path).toBe(403);
      expect(refused.body).toContain('DNS rebinding');
    }
  });

  it('also answers the host it was started with', () => {
    const policy = createAccessPolicy({ host: 'devbox.lan', allowOrigins: [] });
    expect(policy.hostAllowed('devbox.lan:8102')).toBe(true);
    expect(policy.hostAllowed('DEVBOX.LAN')).toBe(true);
    expect(policy.hostAllowed('other.lan:8102')).toBe(false);
    expect(policy.hostAllowed('localhost:8102')).toBe(true);
    expect(policy.hostAllowed(undefined)).toBe(true);
    expect(policy.hostAllowed('not a host')).toBe(false);
  });
});

describe('listening beyond this machine', () => {
  it('warns for any address other machines can reach, and says the dev endpoints are unauthenticated', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])
      expect(exposureWarning(host), host).toBeNull();
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'devbox.lan']) {
      expect(exposureWarning(host), host).toContain(`listening on ${host}`);
      expect(exposureWarning(host)).toContain('no authentication');
    }
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
  });
});
