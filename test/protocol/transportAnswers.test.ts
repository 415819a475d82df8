/** What the transport does with what comes back: tokens the service refuses, and answers that are not the service. */
import { describe, expect, it } from 'vitest';
import { HttpStatusError, ProtocolError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { createKnownError } from '../../protocol/errors/create.js';
import { createTransport, staticTokenSource, type TokenSource } from '../../protocol/transport.js';
import { BASE, expired, failure, json, knownError, PROJECT, renewable, setup, text } from './transportFixture.js';

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

  it('counts renewals in a row: after a wait for another failure, a token that expired meanwhile is renewed again', async () => {
    const tokens = renewable(['tok-1', 'tok-2', 'tok-3', 'tok-4', 'tok-5']);
    const { t, calls, sleeps } = setup(
      [expired(), expired(), text('slow down', 429, { 'retry-after': '1' }), expired(), json({ ok: true })],
      { userTokens: tokens.source },
    );
    await expect(t.request({ method: 'DELETE', path: '/contact-channels/me/c1' })).resolves.toEqual({ ok: true });
    expect(calls.map((c) => c.headers.get('x-stack-access-token'))).toEqual([
      'tok-1',
      'tok-2',
      'tok-3',
      'tok-3',
      'tok-4',
    ]);
    expect(tokens.invalidated).toEqual(['tok-1', 'tok-2', 'tok-3']);
    expect(sleeps).toEqual([1000]);
  });

  it('does not renew the same token twice: a source that hands it out again gets the error', async () => {
    const stuck: TokenSource = {
      renewable: true,
      getAccessToken: async () => 'same',
      invalidateAccessToken: () => undefined,
    };
    const { t, calls } = setup([expired(), expired(), json({})], { userTokens: stuck });
    expect(isKnownError(await failure(t.request({ method: 'GET', path: '/users/me' })), 'ACCESS_TOKEN_EXPIRED')).toBe(
      true,
    );
    expect(calls).toHaveLength(2);
  });

  it('renews on every INVALID_ACCESS_TOKEN code', async () => {
    for (const error of [
      createKnownError('UNPARSABLE_ACCESS_TOKEN'),
      createKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN'),
    ]) {
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
    expect(
      isKnownError(
        await failure(t.request({ method: 'POST', path: '/auth/otp/sign-in', body: {}, user: 'none' })),
        'ACCESS_TOKEN_EXPIRED',
      ),
    ).toBe(true);
    expect(calls[0]!.headers.has('x-stack-access-token')).toBe(false);
    expect(tokens.invalidated).toEqual([]);
  });

  it('renews an admin access token on the admin family', async () => {
    const admin = renewable(['adm-1', 'adm-2']);
    const { t, calls } = setup(
      [knownError(createKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', { expired_at_millis: null })), json({ id: 'p' })],
      {
        adminTokens: admin.source,
      },
    );
    await expect(t.request({ method: 'GET', path: '/projects/current' })).resolves.toEqual({ id: 'p' });
    expect(calls.map((c) => c.headers.get('x-stack-admin-access-token'))).toEqual(['adm-1', 'adm-2']);
    expect(calls.every((c) => !c.headers.has('x-stack-publishable-client-key'))).toBe(true);
  });
});

describe('answers that are not the service', () => {
  it('never follows a redirect: a 3xx is a ProtocolError, sent once, with nothing re-sent elsewhere', async () => {
    const { t, calls, all } = setup([text('', 302, { location: 'https://evil.example/steal' }), json({})], {
      userTokens: staticTokenSource('user-token'),
    });
    const e = await failure(
      t.request({ method: 'POST', path: '/auth/password/sign-in', body: { email: 'a@b.c', password: 'secret' } }),
    );
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
    const opaque = () =>
      Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' }) as Response;
    const { t, calls } = setup([opaque, json({})]);
    expect(await failure(t.request({ method: 'GET', path: '/users/me' }))).toBeInstanceOf(ProtocolError);
    expect(calls).toHaveLength(1);
  });

  it('a 200 that is not JSON (a captive portal) is a ProtocolError, never the data', async () => {
    const { t } = setup([
      text('<html><body>Log in to the hotel Wi-Fi</body></html>', 200, { 'content-type': 'text/html' }),
    ]);
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
    const p = (await failure(
      broken.t.request({ method: 'POST', path: '/auth/password/sign-in', body: {} }),
    )) as ProtocolError;
    expect(p).toBeInstanceOf(ProtocolError);
    expect(p.message).not.toContain('eyJ');
  });
});
