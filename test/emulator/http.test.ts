import { createLocalJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { authorizeUrl } from '../support/oauth.js';
import { freshProject, keyHeaders, raw } from './httpSupport.js';

const emulator = useEmulator();

// The service's request headers today (the 2026-04 backend), each as x-stack-* and as x-hexclave-*
// (@stackframe/js 2.8.108 and later).
const PROTOCOL_HEADERS = [
  'project-id',
  'override-error-status',
  'random-nonce',
  'client-version',
  'disable-artificial-development-delay',
  'access-type',
  'publishable-client-key',
  'secret-server-key',
  'super-secret-admin-key',
  'admin-access-token',
  'refresh-token',
  'access-token',
  'allow-anonymous-user',
  'branch-id',
];
const ALLOW_HEADERS = [
  'content-type',
  'authorization',
  ...['x-stack-', 'x-hexclave-'].flatMap((family) => PROTOCOL_HEADERS.map((name) => family + name)),
  'baggage',
  'sentry-trace',
  'x-vercel-protection-bypass',
  'ngrok-skip-browser-warning',
].join(', ');
const OVERRIDE = { 'x-stack-override-error-status': 'true' };
const WELCOME = 'Welcome to the Stack API endpoint! Please refer to the documentation at https://docs.stack-auth.com.';

function expectCors(headers: Headers): void {
  expect(headers.get('access-control-allow-origin')).toBe('*');
  expect(headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
  expect(headers.get('access-control-max-age')).toBe('86400');
  expect(headers.get('access-control-allow-headers')).toBe(ALLOW_HEADERS);
  expect(headers.get('access-control-expose-headers')).toBe(
    'content-type, x-stack-actual-status, x-stack-known-error, x-hexclave-actual-status, x-hexclave-known-error',
  );
}

describe('CORS and standard headers (§1.1, §2.7)', () => {
  it('answers preflights directly: 200, empty, CORS headers, never overridden', async () => {
    const em = emulator();
    for (const path of ['/api/v1/users/me', '/api/v1/does/not/exist']) {
      const response = await raw(em, 'OPTIONS', path, {
        headers: { ...OVERRIDE, origin: 'https://app.example.com', 'access-control-request-method': 'PATCH' },
      });
      expect(response.status).toBe(200);
      expect(response.text).toBe('');
      expect(response.headers.get('x-stack-actual-status')).toBeNull();
      expectCors(response.headers);
    }
  });

  it('puts CORS, a request id and cache-control on every API response', async () => {
    const em = emulator();
    const ids = new Set<string>();
    for (const headers of [keyHeaders(em, 'client'), {}]) {
      const response = await raw(em, 'GET', '/api/v1/projects/current', { headers });
      expectCors(response.headers);
      expect(response.headers.get('cache-control')).toBe('no-store, max-age=0');
      const id = response.headers.get('x-stack-request-id') ?? '';
      expect(id).toMatch(/^[0-9a-z]{16}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2);
  });

  it('serves /health outside the API with permissive CORS', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/health');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect((await raw(em, 'GET', '/api/v1/health')).status).toBe(404);
  });
});

describe('the x-hexclave-* header family (@stackframe/js 2.8.108 and later)', () => {
  const asHexclave = (headers: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.replace(/^x-stack-/i, 'x-hexclave-'), value]),
    );

  it('authenticates a request whose protocol headers are all x-hexclave-*, as the same request with x-stack-*', async () => {
    const em = emulator();
    const stack = await raw(em, 'GET', '/api/v1/projects/current', { headers: keyHeaders(em, 'client') });
    const hexclave = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: asHexclave(keyHeaders(em, 'client')),
    });
    expect(hexclave.status).toBe(200);
    expect(hexclave.json()).toEqual(stack.json());
  });

  it('x-stack-* wins when a request sends both families', async () => {
    const em = emulator();
    const both = {
      ...asHexclave({ ...keyHeaders(em, 'client'), 'x-stack-access-type': 'nonsense' }),
      ...keyHeaders(em, 'client'),
    };
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers: both })).status).toBe(200);
  });

  it('answers known errors and the status override in both families', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: { 'x-hexclave-override-error-status': 'true', 'x-hexclave-project-id': em.projects.demo.id },
    });
    expect(response.status).toBe(200);
    for (const family of ['x-stack-', 'x-hexclave-']) {
      expect(response.headers.get(`${family}actual-status`)).toBe('400');
      expect(response.headers.get(`${family}known-error`)).toBe('ACCESS_TYPE_REQUIRED');
    }
  });

  it('OAuth authorize answers JSON with the location when asked for hexclave_response_mode=json or stack_response_mode=json', async () => {
    const em = emulator();
    for (const mode of ['hexclave_response_mode', 'stack_response_mode']) {
      const { url } = await authorizeUrl(em);
      const asked = new URL(url);
      asked.searchParams.set(mode, 'json');
      const response = await fetch(asked, { redirect: 'manual' });
      expect(response.status).toBe(200);
      const { location } = (await response.json()) as { location: string };
      expect(new URL(location).pathname).toBe('/emulator/oauth/github/authorize');
      // The SDK drives a JSON-mode flow and PKCE guards it: no inner cookie, as the service answers.
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('error-status override (§2.4)', () => {
  it('turns known errors into 200 with x-stack-actual-status, body and headers unchanged', async () => {
    const em = emulator();
    const plain = await raw(em, 'GET', '/api/v1/projects/current');
    const overridden = await raw(em, 'GET', '/api/v1/projects/current', { headers: OVERRIDE });
    expect(plain.status).toBe(400);
    expect(plain.headers.get('x-stack-actual-status')).toBeNull();
    expect(overridden.status).toBe(200);
    expect(overridden.headers.get('x-stack-actual-status')).toBe('400');
    for (const response of [plain, overridden]) {
      expect(response.headers.get('x-stack-known-error')).toBe('ACCESS_TYPE_REQUIRED');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.json()).toMatchObject({ code: 'ACCESS_TYPE_REQUIRED' });
      // Known errors are pretty-printed, key order code, (details,) error.
      expect(response.text.startsWith('{\n  "code": "ACCESS_TYPE_REQUIRED",\n  "error": ')).toBe(true);
    }
    expect(overridden.text).toBe(plain.text);
  });

  it('applies to plain errors, the 404 text and 500s', async () => {
    const em = emulator();
    const jwks = await raw(em, 'GET', `/api/v1/projects/${crypto.randomUUID()}/.well-known/jwks.json`, {
      headers: OVERRIDE,
    });
    expect([jwks.status, jwks.headers.get('x-stack-actual-status'), jwks.text]).toEqual([
      200,
      '404',
      'Project not found',
    ]);
    expect(jwks.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(jwks.headers.get('x-stack-known-error')).toBeNull();

    const unknown = await raw(em, 'GET', '/api/v1/nothing/here', { headers: OVERRIDE });
    expect([unknown.status, unknown.headers.get('x-stack-actual-status')]).toEqual([200, '404']);

    // A project whose stored config is broken makes the handler throw: an unexpected failure.
    const { project, adminToken } = await freshProject(em);
    (em.env.store.project(project.id)!.config as { oauth_providers: unknown }).oauth_providers = null;
    const headers = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'admin',
      'x-stack-admin-access-token': adminToken,
    };
    const crash = await raw(em, 'GET', '/api/v1/projects/current', { headers });
    expect(crash.status).toBe(500);
    expect(
      crash.text.startsWith('Internal Server Error. The error message follows, but will be stripped in production.'),
    ).toBe(true);
    expect(crash.text).not.toMatch(/\n\s+at /);
    const overriddenCrash = await raw(em, 'GET', '/api/v1/projects/current', { headers: { ...headers, ...OVERRIDE } });
    expect([overriddenCrash.status, overriddenCrash.headers.get('x-stack-actual-status')]).toEqual([200, '500']);
  });

  it('does not apply to 405s', async () => {
    const em = emulator();
    for (const [method, path] of [
      ['PROPFIND', '/api/v1'],
      ['PUT', '/api/v1/projects/current'],
    ] as const) {
      const response = await raw(em, method, path, { headers: OVERRIDE });
      expect(response.status).toBe(405);
      expect(response.headers.get('x-stack-actual-status')).toBeNull();
    }
    const propfind = await raw(em, 'PROPFIND', '/api/v1/users');
    expect([propfind.status, propfind.text]).toEqual([405, 'Method not allowed']);
  });
});

describe('routing, bodies and validation (§1.1, §1.5, §1.6)', () => {
  it('answers unknown API paths with the plain 404 text', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/no/such/route?x=1', { headers: keyHeaders(em, 'client') });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-stack-known-error')).toBeNull();
    expect(response.text.startsWith("404 — this page does not exist in Stack Auth's API.")).toBe(true);
    expect(response.text.endsWith(`URL: ${em.url}/api/v1/no/such/route?x=1`)).toBe(true);
  });

  it('answers every other /api/ path (unknown versions too) with the same 404 text', async () => {
    const em = emulator();
    for (const path of ['/api/v2beta5/users/me', '/api/foo', '/api']) {
      const response = await raw(em, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.text.startsWith("404 — this page does not exist in Stack Auth's API.")).toBe(true);
    }
  });

  it('parses bodies by media type and refuses bad ones with BODY_PARSING_ERROR', async () => {
    const em = emulator();
    const headers = keyHeaders(em, 'client');
    const cases: Array<[Record<string, string>, string | Uint8Array<ArrayBuffer>, string]> = [
      [{ 'content-type': 'application/json' }, '{"email": ', 'Invalid JSON in request body'],
      [
        { 'content-type': 'multipart/form-data; boundary=x' },
        '--x--',
        'Unknown content type in request body: multipart/form-data',
      ],
      [{ 'content-type': 'text/plain' }, new Uint8Array([0x68, 0xff, 0xfe]), 'Request body cannot be parsed as UTF-8'],
    ];
    for (const [contentType, body, message] of cases) {
      const response = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
        headers: { ...headers, ...contentType },
        body,
      });
      expect(response.status).toBe(400);
      expect(response.json()).toEqual({ code: 'BODY_PARSING_ERROR', error: message });
    }
    // Without a content type there is no body at all.
    // (Bytes, so that fetch does not add a text/plain content type of its own.)
    const noType = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
      headers,
      body: new TextEncoder().encode('{"email":"a@b.co","password":"x"}'),
    });
    expect(noType.json<{ error: string }>().error).toContain('body must be defined');
  });

  it('refuses a body over 1 MB', async () => {
    const em = emulator();
    const response = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
      headers: { ...keyHeaders(em, 'client'), 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('x-stack-known-error')).toBeNull();
  });

  it('refuses unknown body and query properties with the exact SCHEMA_ERROR', async () => {
    const em = emulator();
    const body = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
      headers: keyHeaders(em, 'client'),
      json: { email: 'demo@authbroker.dev', password: 'demo-password', remember: true, extra: 1 },
    });
    expect(body.json()).toEqual({
      code: 'SCHEMA_ERROR',
      details: {
        message:
          'Request validation failed on POST /api/v1/auth/password/sign-in:\n  - body contains unknown properties: remember, extra',
      },
      error:
        'Request validation failed on POST /api/v1/auth/password/sign-in:\n  - body contains unknown properties: remember, extra',
    });
    const query = await raw(em, 'GET', '/api/v1?extra=1');
    expect(query.status).toBe(400);
    // The path is named without its query string, as the service does (PROTOCOL.md §1.6).
    expect(query.json<{ error: string }>().error).toBe(
      'Request validation failed on GET /api/v1:\n  - query contains unknown properties: extra',
    );
  });

  it('serves the beta aliases from the same handlers', async () => {
    const em = emulator();
    for (const version of ['v2beta1', 'v2beta2', 'v2beta3', 'v2beta4']) {
      const response = await raw(em, 'GET', `/api/${version}/projects/current`, { headers: keyHeaders(em, 'client') });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ id: em.projects.demo.id });
    }
  });

  it('keeps the emulator endpoints out of the API', async () => {
    const em = emulator();
    expect((await raw(em, 'GET', '/api/v1/emulator/stats')).status).toBe(404);
    expect((await raw(em, 'GET', '/api/v1/emulator/mailbox')).status).toBe(404);
  });
});

describe('root and JWKS (§5.9)', () => {
  it('describes the authentication of the request', async () => {
    const em = emulator();
    expect((await raw(em, 'GET', '/api/v1')).text).toBe(`${WELCOME}\n\nAuthentication: None`);
    const demo = em.projects.demo.id;
    const signedIn = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: 'demo@authbroker.dev',
      password: 'demo-password',
    });
    const client = await raw(em, 'GET', '/api/v1', {
      headers: { ...keyHeaders(em, 'client'), 'x-stack-access-token': signedIn.access_token },
    });
    expect(client.text).toBe(`${WELCOME}\n\nAuthentication: Client\n  Project: ${demo}\n  User: demo@authbroker.dev`);
    expect(client.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await raw(em, 'GET', '/api/v1', { headers: keyHeaders(em, 'server') })).text).toBe(
      `${WELCOME}\n\nAuthentication: Server\n  Project: ${demo}\n  User: None`,
    );
    expect((await raw(em, 'GET', '/api/v1', { headers: keyHeaders(em, 'admin', 'internal') })).text).toBe(
      `${WELCOME}\n\nAuthentication: Admin\n  Project: internal\n  User: None`,
    );
  });

  it('publishes the key that verifies the project tokens, and a plain 404 for unknown projects', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', `/api/v1/projects/${em.projects.demo.id}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    // Cacheable for an hour, as the service answers.
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const jwks = response.json<{ keys: Array<Record<string, unknown>> }>();
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const { access_token } = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: 'demo@authbroker.dev',
      password: 'demo-password',
    });
    const { payload } = await jwtVerify(access_token, createLocalJWKSet(jwks as never), {
      audience: em.projects.demo.id,
    });
    expect(payload.aud).toBe(em.projects.demo.id);

    const missing = await raw(em, 'GET', `/api/v1/projects/${crypto.randomUUID()}/.well-known/jwks.json`);
    expect([missing.status, missing.text, missing.headers.get('x-stack-known-error')]).toEqual([
      404,
      'Project not found',
      null,
    ]);
  });
});
