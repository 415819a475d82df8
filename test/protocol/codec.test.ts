import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiUrl, buildHeaders, decodeResponse, encodeRequest, type RequestCredentials } from '../../protocol/codec.js';
import { HttpStatusError, ProtocolError } from '../../protocol/errors/errors.js';
import { KnownError } from '../../protocol/errors/knownError.js';
import { systemClock, type Clock } from '../../protocol/retry.js';
import { createTransport, type TokenSource } from '../../protocol/transport.js';
import { AUTHBROKER_VERSION, CLIENT_VERSION_HEADER_VALUE } from '../../protocol/version.js';

const BASE = 'https://api.example.test';
const PROJECT = '6b1c2f0e-3a7d-4e55-9a41-0c2d5e8f9b10';

const creds = (extra: Partial<RequestCredentials> = {}): RequestCredentials => ({
  projectId: PROJECT,
  accessType: 'client',
  publishableClientKey: 'pck_1',
  secretServerKey: 'ssk_1',
  superSecretAdminKey: 'sak_1',
  ...extra,
});

/** The server's check of `x-stack-client-version` (PROTOCOL.md §1.2): word, spaces, @package, @, digits and dots. */
const CLIENT_VERSION_REGEX = /^\w+\s+@[\w/]+@[\d.]+$/;

describe('headers per access type', () => {
  it('client sends only the publishable key', () => {
    const h = buildHeaders(creds({ accessType: 'client' }));
    expect(h.get('x-stack-project-id')).toBe(PROJECT);
    expect(h.get('x-stack-access-type')).toBe('client');
    expect(h.get('x-stack-publishable-client-key')).toBe('pck_1');
    expect(h.has('x-stack-secret-server-key')).toBe(false);
    expect(h.has('x-stack-super-secret-admin-key')).toBe(false);
    expect(h.has('x-stack-admin-access-token')).toBe(false);
  });

  it('server sends only the secret server key', () => {
    const h = buildHeaders(creds({ accessType: 'server' }));
    expect(h.get('x-stack-access-type')).toBe('server');
    expect(h.get('x-stack-secret-server-key')).toBe('ssk_1');
    expect(h.has('x-stack-publishable-client-key')).toBe(false);
    expect(h.has('x-stack-super-secret-admin-key')).toBe(false);
  });

  it('admin sends only the super secret admin key', () => {
    const h = buildHeaders(creds({ accessType: 'admin' }));
    expect(h.get('x-stack-access-type')).toBe('admin');
    expect(h.get('x-stack-super-secret-admin-key')).toBe('sak_1');
    expect(h.has('x-stack-publishable-client-key')).toBe(false);
    expect(h.has('x-stack-secret-server-key')).toBe(false);
  });

  it('an admin access token replaces every key', () => {
    for (const accessType of ['client', 'server', 'admin'] as const) {
      const h = buildHeaders(creds({ accessType, adminAccessToken: 'admin.jwt' }));
      expect(h.get('x-stack-admin-access-token')).toBe('admin.jwt');
      expect(h.get('x-stack-access-type')).toBe(accessType);
      for (const key of [
        'x-stack-publishable-client-key',
        'x-stack-secret-server-key',
        'x-stack-super-secret-admin-key',
      ]) {
        expect(h.has(key)).toBe(false);
      }
    }
  });

  it('user access and refresh tokens are sent only when given', () => {
    const none = buildHeaders(creds());
    expect(none.has('x-stack-access-token')).toBe(false);
    expect(none.has('x-stack-refresh-token')).toBe(false);
    const both = buildHeaders(creds({ accessToken: 'user.jwt', refreshToken: 'rt_1' }));
    expect(both.get('x-stack-access-token')).toBe('user.jwt');
    expect(both.get('x-stack-refresh-token')).toBe('rt_1');
  });

  it('always asks for the error-status override and names the client', () => {
    const h = buildHeaders(creds());
    expect(h.get('x-stack-override-error-status')).toBe('true');
    expect(h.get('x-stack-client-version')).toBe(`js @authbroker@${AUTHBROKER_VERSION}`);
    expect(CLIENT_VERSION_HEADER_VALUE).toMatch(CLIENT_VERSION_REGEX);
    // The regex itself accepts the upstream SDK's value and refuses an unprefixed package.
    expect('js @stackframe/stack@2.7.27').toMatch(CLIENT_VERSION_REGEX);
    expect('js authbroker@0.1.0').not.toMatch(CLIENT_VERSION_REGEX);
  });

  it('the client version follows package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(AUTHBROKER_VERSION).toBe(pkg.version);
  });

  it('sends a fresh random nonce with every request', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const nonce = encodeRequest(BASE, { method: 'GET', path: '/users/me' }, creds()).init.headers.get(
        'x-stack-random-nonce',
      );
      expect(nonce).toMatch(/^[0-9a-f]{16,}$/);
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(20);
  });

  it('standard headers, then extra headers, then per-call headers', () => {
    const { init } = encodeRequest(
      BASE,
      { method: 'GET', path: '/x', headers: { 'x-custom': 'call', 'x-stack-secret-server-key': 'ssk_call' } },
      creds({ accessType: 'server' }),
      { 'x-custom': 'extra', 'x-extra-only': 'e', 'x-stack-client-version': 'js @other@1.0' },
    );
    expect(init.headers.get('x-custom')).toBe('call');
    expect(init.headers.get('x-extra-only')).toBe('e');
    expect(init.headers.get('x-stack-client-version')).toBe('js @other@1.0');
    expect(init.headers.get('x-stack-secret-server-key')).toBe('ssk_call');
  });
});

describe('encodeRequest', () => {
  it('omits credentials and the HTTP cache, and has no content-type without a body', () => {
    const { url, init } = encodeRequest(BASE, { method: 'GET', path: '/users/me' }, creds());
    expect(url).toBe(`${BASE}/api/v1/users/me`);
    expect(init.method).toBe('GET');
    expect(init.credentials).toBe('omit');
    expect(init.cache).toBe('no-store');
    expect(init.body).toBeUndefined();
    expect(init.headers.has('content-type')).toBe(false);
  });

  it('JSON-encodes a body and declares it', () => {
    const { init } = encodeRequest(BASE, { method: 'POST', path: '/auth/sessions/current/refresh', body: {} }, creds());
    expect(init.body).toBe('{}');
    expect(init.headers.get('content-type')).toBe('application/json');
    const withData = encodeRequest(
      BASE,
      { method: 'PATCH', path: '/users/me', body: { display_name: 'Ä b' } },
      creds(),
    );
    expect(JSON.parse(withData.init.body as string)).toEqual({ display_name: 'Ä b' });
  });
});

describe('apiUrl', () => {
  it('strips trailing slashes of the base and one of the result', () => {
    expect(apiUrl('https://api.example.test/', '/users')).toBe('https://api.example.test/api/v1/users');
    expect(apiUrl('https://api.example.test//', '/users')).toBe('https://api.example.test/api/v1/users');
    expect(apiUrl('https://api.example.test', '/')).toBe('https://api.example.test/api/v1');
    expect(apiUrl('https://api.example.test/', '/')).toBe('https://api.example.test/api/v1');
    expect(apiUrl('http://localhost:8102', '/users/')).toBe('http://localhost:8102/api/v1/users');
  });

  it('encodes the query, skipping undefined, writing booleans and numbers as text', () => {
    const url = apiUrl(BASE, '/users', { query: 'a b&c=d', skipped: undefined, desc: true, flag: false, limit: 10 });
    expect(url).toBe(`${BASE}/api/v1/users?query=a+b%26c%3Dd&desc=true&flag=false&limit=10`);
    const parsed = new URL(url).searchParams;
    expect(parsed.get('query')).toBe('a b&c=d');
    expect(parsed.has('skipped')).toBe(false);
    expect(apiUrl(BASE, '/teams', { user_id: undefined })).toBe(`${BASE}/api/v1/teams`);
  });
});

function reply(body: string, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(body === '' ? null : body, { status: init.status ?? 200, headers: init.headers ?? {} });
}

const knownErrorBody = (code: string, details: unknown, error: string) =>
  JSON.stringify({ code, ...(details === undefined ? {} : { details }), error });

describe('decodeResponse', () => {
  const expired = knownErrorBody(
    'ACCESS_TOKEN_EXPIRED',
    { expired_at_millis: 1738374988000 },
    'Access token has expired. Please refresh it and try again. (The access token expired at 2025-02-01T01:56:28.000Z.)',
  );

  it('reads a known error sent with the override status', async () => {
    const decoded = await decodeResponse(
      reply(expired, {
        status: 200,
        headers: {
          'x-stack-actual-status': '401',
          'x-stack-known-error': 'ACCESS_TOKEN_EXPIRED',
          'content-type': 'application/json',
        },
      }),
    );
    expect(decoded.kind).toBe('known-error');
    if (decoded.kind !== 'known-error') return;
    expect(decoded.status).toBe(401);
    expect(decoded.error).toBeInstanceOf(KnownError);
    expect(decoded.error.code).toBe('ACCESS_TOKEN_EXPIRED');
    expect(decoded.error.details).toEqual({ expired_at_millis: 1738374988000 });
    expect(decoded.error.status).toBe(401);
    expect(decoded.error.message).toContain('2025-02-01T01:56:28.000Z');
  });

  it('reads a known error sent with its real status', async () => {
    const decoded = await decodeResponse(
      reply(knownErrorBody('TEAM_NOT_FOUND', { team_id: 't1' }, 'Team t1 not found.'), {
        status: 404,
        headers: { 'x-stack-known-error': 'TEAM_NOT_FOUND' },
      }),
    );
    expect(decoded).toMatchObject({ kind: 'known-error', status: 404 });
    if (decoded.kind === 'known-error') expect(decoded.error.details).toEqual({ team_id: 't1' });
  });

  it('refuses a header code that differs from the body code', async () => {
    const response = reply(expired, {
      status: 200,
      headers: { 'x-stack-actual-status': '401', 'x-stack-known-error': 'UNPARSABLE_ACCESS_TOKEN' },
    });
    await expect(decodeResponse(response)).rejects.toBeInstanceOf(ProtocolError);
  });

  it('refuses a known-error header with a body that is not JSON', async () => {
    const response = reply('oops', { status: 401, headers: { 'x-stack-known-error': 'UNPARSABLE_ACCESS_TOKEN' } });
    await expect(decodeResponse(response)).rejects.toBeInstanceOf(ProtocolError);
  });

  it.each(['abc', '99', '099', '600', '4000', '', '40 1', '401.0'])(
    'refuses x-stack-actual-status %j',
    async (value) => {
      const response = reply('{}', {
        status: 200,
        headers: { 'x-stack-actual-status': value, 'content-type': 'application/json' },
      });
      await expect(decodeResponse(response)).rejects.toBeInstanceOf(ProtocolError);
    },
  );

  it('returns a plain-text error with its real status and body', async () => {
    const text = 'Client can only list teams for their own user.';
    const decoded = await decodeResponse(
      reply(text, {
        status: 200,
        headers: { 'x-stack-actual-status': '403', 'content-type': 'text/plain; charset=utf-8' },
      }),
    );
    expect(decoded).toEqual({ kind: 'http-error', status: 403, body: text, retryAfter: null });
    const rateLimited = await decodeResponse(reply('slow down', { status: 429, headers: { 'retry-after': '3' } }));
    expect(rateLimited).toEqual({ kind: 'http-error', status: 429, body: 'slow down', retryAfter: '3' });
  });

  it('passes list envelopes through untouched', async () => {
    const list = { items: [{ id: 'a' }, { id: 'b' }], is_paginated: true, pagination: { next_cursor: null } };
    const decoded = await decodeResponse(
      reply(JSON.stringify(list), { headers: { 'content-type': 'application/json; charset=utf-8' } }),
    );
    expect(decoded).toEqual({ kind: 'ok', status: 200, body: list });
  });

  it('reads an empty body as undefined, and JSON by its media type (parameters and +json included)', async () => {
    expect(await decodeResponse(reply('', { status: 200 }))).toEqual({ kind: 'ok', status: 200, body: undefined });
    expect(await decodeResponse(reply('', { status: 201, headers: { 'content-type': 'application/json' } }))).toEqual({
      kind: 'ok',
      status: 201,
      body: undefined,
    });
    expect(
      await decodeResponse(reply('{"a":1}', { headers: { 'content-type': 'application/json; charset=utf-8' } })),
    ).toEqual({ kind: 'ok', status: 200, body: { a: 1 } });
    expect(await decodeResponse(reply('{"a":1}', { headers: { 'content-type': 'application/problem+json' } }))).toEqual(
      { kind: 'ok', status: 200, body: { a: 1 } },
    );
  });

  it('refuses a success that is not JSON: someone else answered (a captive portal, a proxy)', async () => {
    for (const contentType of ['text/plain', 'text/html; charset=utf-8', 'application/jsonp']) {
      const error = await decodeResponse(reply('Welcome', { headers: { 'content-type': contentType } })).catch(
        (e: unknown) => e,
      );
      expect(error, contentType).toBeInstanceOf(ProtocolError);
      expect((error as Error).message).not.toContain('Welcome');
    }
  });

  it('refuses a JSON success body that does not parse', async () => {
    await expect(
      decodeResponse(reply('{nope', { headers: { 'content-type': 'application/json' } })),
    ).rejects.toBeInstanceOf(ProtocolError);
  });

  it('refuses details that do not match the catalogue', async () => {
    const wrongType = knownErrorBody('ACCESS_TOKEN_EXPIRED', { expired_at_millis: 'soon' }, 'x');
    await expect(
      decodeResponse(reply(wrongType, { status: 401, headers: { 'x-stack-known-error': 'ACCESS_TOKEN_EXPIRED' } })),
    ).rejects.toBeInstanceOf(ProtocolError);
    const missing = knownErrorBody('TEAM_NOT_FOUND', undefined, 'Team not found.');
    await expect(
      decodeResponse(reply(missing, { status: 404, headers: { 'x-stack-known-error': 'TEAM_NOT_FOUND' } })),
    ).rejects.toBeInstanceOf(ProtocolError);
  });

  it('maps an unknown code to UNSUPPORTED_ERROR keeping the original code and message', async () => {
    const body = knownErrorBody('BRAND_NEW_ERROR', { whatever: 1 }, 'Something new.');
    const decoded = await decodeResponse(
      reply(body, {
        status: 200,
        headers: { 'x-stack-actual-status': '418', 'x-stack-known-error': 'BRAND_NEW_ERROR' },
      }),
    );
    expect(decoded.kind).toBe('known-error');
    if (decoded.kind !== 'known-error') return;
    expect(decoded.error.code).toBe('UNSUPPORTED_ERROR');
    expect(decoded.error.details).toEqual({ originalErrorCode: 'BRAND_NEW_ERROR' });
    expect(decoded.error.message).toBe('Something new.');
    expect(decoded.status).toBe(418);
  });
});

describe('through a transport', () => {
  const clock: Clock = {
    ...systemClock,
    now: () => 0,
    random: () => 0,
    sleep: async () => undefined,
  };

  function transportWith(respond: () => Response) {
    const calls: Array<{ url: string; headers: Headers }> = [];
    const fetchFn = (async (url: string, init: RequestInit) => {
      calls.push({ url, headers: new Headers(init.headers) });
      return respond();
    }) as typeof fetch;
    const userTokens: TokenSource = {
      renewable: false,
      getAccessToken: async () => 'user.jwt',
      invalidateAccessToken: () => undefined,
      getRefreshToken: async () => 'rt_secret',
    };
    const t = createTransport({
      baseUrl: BASE,
      projectId: PROJECT,
      accessType: 'client',
      publishableClientKey: 'pck_1',
      userTokens,
      fetch: fetchFn,
      clock,
    });
    return { t, calls };
  }

  it('sends the refresh token only when the call asks for it, and the access token unless user is none', async () => {
    const { t, calls } = transportWith(() =>
      reply('{"success":true}', { headers: { 'content-type': 'application/json' } }),
    );
    await t.request({ method: 'GET', path: '/users/me' });
    await t.request({ method: 'POST', path: '/auth/password/update', body: {}, sendRefreshToken: true });
    await t.request({ method: 'POST', path: '/auth/otp/sign-in', body: {}, user: 'none', sendRefreshToken: true });
    expect(calls.map((c) => c.headers.get('x-stack-refresh-token'))).toEqual([null, 'rt_secret', null]);
    expect(calls.map((c) => c.headers.get('x-stack-access-token'))).toEqual(['user.jwt', 'user.jwt', null]);
    expect(calls[0]!.url).toBe(`${BASE}/api/v1/users/me`);
  });

  it('throws a plain error as HttpStatusError with its body', async () => {
    const { t, calls } = transportWith(() =>
      reply('Forbidden thing', { status: 200, headers: { 'x-stack-actual-status': '403' } }),
    );
    const error = await t.request({ method: 'GET', path: '/teams' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 403, body: 'Forbidden thing', code: 'HTTP_STATUS_ERROR' });
    expect(calls).toHaveLength(1);
  });
});
