import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ClientError, HttpStatusError, NetworkError, ProtocolError } from '../../protocol/errors/errors.js';
import { isKnownError, type AnyKnownError } from '../../protocol/errors/knownError.js';
import { createKnownError } from '../../protocol/errors/create.js';
import { systemClock, type Clock } from '../../protocol/retry.js';
import {
  buildAuthorizeUrl,
  createOAuthState,
  createPkcePair,
  exchangeAuthorizationCode,
  knownErrorFromRedirect,
} from '../../protocol/authorizationCode.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import {
  accessTokenExpiry,
  isAccessTokenExpiring,
  judgeArrivedAccessToken,
  UNREADABLE_TOKEN_RENEWAL_MILLIS,
  type TokenEndpointOptions,
} from '../../protocol/tokens.js';

const BASE = 'https://api.example.test';
const PROJECT = '6b1c2f0e-3a7d-4e55-9a41-0c2d5e8f9b10';
const NOW = 1_738_400_000_000;
const TOKEN_URL = `${BASE}/api/v1/auth/oauth/token`;

type Reply = 'network' | 'hang' | (() => Response);
interface Sent {
  url: string;
  headers: Headers;
  form: URLSearchParams;
}

function tokenEndpoint(replies: Reply[]) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const fetchFn = (async (input: string | URL | Request, init: RequestInit = {}) => {
    sent.push({
      url: String(input),
      headers: new Headers(init.headers),
      form: new URLSearchParams(init.body as URLSearchParams),
    });
    const reply = replies.shift();
    if (reply === undefined) throw new Error('unexpected token request');
    if (reply === 'network') throw new TypeError('fetch failed');
    if (reply === 'hang') return new Promise<Response>(() => undefined);
    return reply();
  }) as typeof fetch;
  const clock: Clock = {
    ...systemClock,
    now: () => NOW,
    random: () => 0.25,
    sleep: async (ms) => void sleeps.push(ms),
  };
  const options: TokenEndpointOptions = {
    baseUrl: BASE,
    projectId: PROJECT,
    publishableClientKey: 'pck_abc',
    fetch: fetchFn,
    clock,
    navigatorOnline: () => true,
  };
  return { options, sent, sleeps };
}

const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    });
const knownErrorReply = (error: AnyKnownError, withHeader = true) =>
  json(error.toWire(), error.status, withHeader ? { 'x-stack-known-error': error.code } : {});
const refreshed = json({ access_token: 'new.access.jwt', token_type: 'Bearer', expires_in: 3599, scope: 'legacy' });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('access token expiry', () => {
  const exp = Math.floor(NOW / 1000) + 600;

  it('reads exp from signed and unsecured JWTs, null without exp, 0 for garbage', async () => {
    const signed = await new SignJWT({ sub: 'u' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(accessTokenExpiry(signed)).toBe(exp * 1000);
    expect(accessTokenExpiry(new UnsecuredJWT({ sub: 'u' }).setExpirationTime(exp).encode())).toBe(exp * 1000);
    expect(accessTokenExpiry(new UnsecuredJWT({ sub: 'u' }).encode())).toBeNull();
    expect(accessTokenExpiry('garbage')).toBe(0);
    expect(accessTokenExpiry('a.b.c')).toBe(0);
    expect(accessTokenExpiry('')).toBe(0);
  });

  it('isAccessTokenExpiring compares the time left with the margin', () => {
    const token = new UnsecuredJWT({}).setExpirationTime(Math.floor(NOW / 1000) + 30).encode();
    expect(isAccessTokenExpiring(token, NOW, 20_000)).toBe(false);
    expect(isAccessTokenExpiring(token, NOW, 30_000)).toBe(false);
    expect(isAccessTokenExpiring(token, NOW, 30_001)).toBe(true);
    expect(isAccessTokenExpiring(token, NOW + 15_000, 20_000)).toBe(true);
    expect(isAccessTokenExpiring(token, NOW + 60_000, 0)).toBe(true);
    expect(isAccessTokenExpiring(new UnsecuredJWT({}).encode(), NOW, 59_999)).toBe(false);
    expect(isAccessTokenExpiring('garbage', NOW, 0)).toBe(true);
  });
});

describe('PKCE and authorize URL', () => {
  it('createPkcePair: challenge = base64url(SHA-256(verifier))', async () => {
    const pair = await createPkcePair();
    expect(pair.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pair.codeVerifier)));
    expect(pair.codeChallenge).toBe(Buffer.from(digest).toString('base64url'));
    expect((await createPkcePair()).codeVerifier).not.toBe(pair.codeVerifier);
    expect(createOAuthState()).not.toBe(createOAuthState());
  });

  it('buildAuthorizeUrl for authentication', () => {
    const url = new URL(
      buildAuthorizeUrl(
        { baseUrl: `${BASE}/`, projectId: PROJECT, publishableClientKey: 'pck_abc' },
        {
          providerId: 'GitHub',
          redirectUri: 'https://app.test/oauth/callback?code=old&keep=1&state=old#frag',
          state: 'st4te',
          codeChallenge: 'chal',
          errorRedirectUrl: 'https://app.test/oauth/error',
          afterCallbackRedirectUrl: 'https://app.test/home',
        },
      ),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/api/v1/auth/oauth/authorize/github`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: PROJECT,
      client_secret: 'pck_abc',
      // The flow's state rides in the redirect URI: the service sends a failed callback there without `state`.
      redirect_uri: 'https://app.test/oauth/callback?keep=1&state=st4te',
      scope: 'legacy',
      state: 'st4te',
      grant_type: 'authorization_code',
      code_challenge: 'chal',
      code_challenge_method: 'S256',
      response_type: 'code',
      type: 'authenticate',
      error_redirect_url: 'https://app.test/oauth/error',
      after_callback_redirect_url: 'https://app.test/home',
    });
  });

  it('buildAuthorizeUrl for linking carries the token and provider scope', () => {
    const url = new URL(
      buildAuthorizeUrl(
        { baseUrl: BASE, projectId: PROJECT, publishableClientKey: 'pck_abc' },
        {
          providerId: 'google',
          redirectUri: 'https://app.test/cb',
          state: 's',
          codeChallenge: 'c',
          type: 'link',
          token: 'user.jwt',
          providerScope: 'repo read:user',
        },
      ),
    );
    expect(url.searchParams.get('type')).toBe('link');
    expect(url.searchParams.get('token')).toBe('user.jwt');
    expect(url.searchParams.get('provider_scope')).toBe('repo read:user');
    expect(url.searchParams.has('error_redirect_url')).toBe(false);
    expect(url.searchParams.has('after_callback_redirect_url')).toBe(false);
  });
});

describe('refreshAccessToken', () => {
  it('sends the refresh grant as a form with client_secret_post and no scope', async () => {
    const { options, sent, sleeps } = tokenEndpoint([refreshed]);
    await expect(refreshAccessToken(options, 'rt_123')).resolves.toEqual({ access_token: 'new.access.jwt' });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.url).toBe(TOKEN_URL);
    expect(request!.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(request!.form)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt_123',
      client_id: PROJECT,
      client_secret: 'pck_abc',
    });
    expect([...request!.headers.keys()].filter((name) => name.startsWith('x-stack-'))).toEqual([]);
    expect(request!.headers.has('authorization')).toBe(false);
    expect(sleeps).toEqual([]);
  });

  it('works against an http base URL (a local emulator)', async () => {
    const { options, sent } = tokenEndpoint([refreshed]);
    await refreshAccessToken({ ...options, baseUrl: 'http://localhost:8102' }, 'rt');
    expect(sent[0]!.url).toBe('http://localhost:8102/api/v1/auth/oauth/token');
  });

  it('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED is thrown as that known error, at once', async () => {
    const { options, sent } = tokenEndpoint([
      knownErrorReply(createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED')),
      refreshed,
    ]);
    const error = await rejection(refreshAccessToken(options, 'rt_gone'));
    expect(isKnownError(error, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED')).toBe(true);
    expect(isKnownError(error, 'REFRESH_TOKEN_ERROR')).toBe(true);
    expect(error).toMatchObject({ status: 401 });
    expect(sent).toHaveLength(1);
  });

  it('retries network failures with the backoff, and reports exhaustion', async () => {
    const ok = tokenEndpoint(['network', 'network', refreshed]);
    await expect(refreshAccessToken(ok.options, 'rt')).resolves.toEqual({ access_token: 'new.access.jwt' });
    expect(ok.sleeps).toEqual([750, 1500]);
    const down = tokenEndpoint(Array<Reply>(5).fill('network'));
    const error = await rejection(refreshAccessToken({ ...down.options, navigatorOnline: () => false }, 'rt'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK_OFFLINE', attempts: 5 });
  });

  it('an observer that throws changes nothing: the grant is retried and answered as without one', async () => {
    const { options, sleeps } = tokenEndpoint(['network', () => new Response('busy', { status: 503 }), refreshed]);
    const throwing = () => {
      throw new Error('bookkeeping failed');
    };
    const observer = { onResponse: throwing, onNetworkError: throwing, onRetry: throwing };
    await expect(refreshAccessToken({ ...options, observer }, 'rt')).resolves.toEqual({
      access_token: 'new.access.jwt',
    });
    expect(sleeps).toEqual([750, 1500]);
  });

  it('retries a plain 429, a 508 INFINITE_LOOP_DETECTED and a transient 5xx (the grant is safe to repeat); other statuses are HTTP errors', async () => {
    const plain = (body: string, status: number) => () =>
      new Response(body, { status, headers: { 'content-type': 'text/plain' } });
    const busy = tokenEndpoint([
      plain('Too many requests', 429),
      plain('INFINITE_LOOP_DETECTED', 508),
      plain('Internal Server Error', 500),
      plain('Bad Gateway', 502),
      refreshed,
    ]);
    await expect(refreshAccessToken(busy.options, 'rt')).resolves.toEqual({ access_token: 'new.access.jwt' });
    expect(busy.sent).toHaveLength(5);
    expect(busy.sleeps).toEqual([750, 1500, 3000, 6000]);
    const broken = tokenEndpoint([plain('Not Implemented', 501), refreshed]);
    const error = await rejection(refreshAccessToken(broken.options, 'rt'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 501, body: 'Not Implemented' });
    expect(broken.sent).toHaveLength(1);
  });

  it('an RFC 6749 error body is an HTTP error, not retried', async () => {
    const { options, sent } = tokenEndpoint([
      json({ error: 'invalid_request', error_description: 'refresh_token missing' }, 400),
      refreshed,
    ]);
    const error = await rejection(refreshAccessToken(options, 'rt'));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toContain('invalid_request');
    expect(sent).toHaveLength(1);
  });
});

describe('exchangeAuthorizationCode', () => {
  const exchange = {
    callbackUrl: 'https://app.test/oauth/callback?code=the-code&state=expected-state',
    expectedState: 'expected-state',
    redirectUri: 'https://app.test/oauth/callback',
    codeVerifier: 'v'.repeat(43),
  };
  const granted = (extra: Record<string, unknown>) =>
    json({
      access_token: 'at',
      token_type: 'Bearer',
      expires_in: 3599,
      scope: 'legacy',
      refresh_token: 'rt',
      ...extra,
    });

  it('sends the code grant with PKCE and maps the result', async () => {
    const { options, sent } = tokenEndpoint([
      granted({
        is_new_user: true,
        newUser: true,
        after_callback_redirect_url: 'https://app.test/welcome',
        afterCallbackRedirectUrl: 'https://app.test/welcome',
      }),
    ]);
    await expect(exchangeAuthorizationCode(options, exchange)).resolves.toEqual({
      access_token: 'at',
      refresh_token: 'rt',
      is_new_user: true,
      after_callback_redirect_url: 'https://app.test/welcome',
    });
    expect(sent[0]!.url).toBe(TOKEN_URL);
    expect(Object.fromEntries(sent[0]!.form)).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://app.test/oauth/callback',
      code_verifier: exchange.codeVerifier,
      client_id: PROJECT,
      client_secret: 'pck_abc',
    });
  });

  it('reads the deprecated camelCase fields and defaults', async () => {
    const camel = tokenEndpoint([granted({ newUser: true, afterCallbackRedirectUrl: 'https://app.test/x' })]);
    await expect(exchangeAuthorizationCode(camel.options, exchange)).resolves.toMatchObject({
      is_new_user: true,
      after_callback_redirect_url: 'https://app.test/x',
    });
    const bare = tokenEndpoint([granted({ is_new_user: false, after_callback_redirect_url: null })]);
    await expect(exchangeAuthorizationCode(bare.options, exchange)).resolves.toMatchObject({
      is_new_user: false,
      after_callback_redirect_url: null,
    });
  });

  it('refuses an answer without a refresh token', async () => {
    const { options } = tokenEndpoint([json({ access_token: 'at', token_type: 'Bearer', expires_in: 3599 })]);
    expect(await rejection(exchangeAuthorizationCode(options, exchange))).toBeInstanceOf(ProtocolError);
  });

  it.each([
    ['another state', 'https://app.test/oauth/callback?code=c&state=forged'],
    ['no state', 'https://app.test/oauth/callback?code=c'],
  ])('refuses a callback with %s before any request', async (_name, callbackUrl) => {
    const { options, sent } = tokenEndpoint([granted({})]);
    const error = await rejection(exchangeAuthorizationCode(options, { ...exchange, callbackUrl }));
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ code: 'OAUTH_STATE_MISMATCH' });
    expect(sent).toHaveLength(0);
  });

  it('reports a provider error in the callback', async () => {
    const { options, sent } = tokenEndpoint([]);
    const callbackUrl =
      'https://app.test/oauth/callback?error=access_denied&error_description=nope&state=expected-state';
    expect(await rejection(exchangeAuthorizationCode(options, { ...exchange, callbackUrl }))).toMatchObject({
      code: 'OAUTH_CALLBACK_INVALID',
    });
    expect(sent).toHaveLength(0);
  });

  it.each([true, false])(
    'surfaces MULTI_FACTOR_AUTHENTICATION_REQUIRED with its attempt code (header: %s)',
    async (withHeader) => {
      const mfa = createKnownError('MULTI_FACTOR_AUTHENTICATION_REQUIRED', { attempt_code: 'attempt-123' });
      const { options, sent } = tokenEndpoint([knownErrorReply(mfa, withHeader), granted({})]);
      const error = await rejection(exchangeAuthorizationCode(options, exchange));
      expect(isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED')).toBe(true);
      if (isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED'))
        expect(error.details.attempt_code).toBe('attempt-123');
      expect(error).toMatchObject({ status: 400, message: 'Multi-factor authentication is required for this user.' });
      expect(sent).toHaveLength(1);
    },
  );

  it('throws an error the service redirected to, without a request', async () => {
    const { options, sent } = tokenEndpoint([]);
    const callbackUrl =
      'https://app.test/oauth/callback?errorCode=OUTER_OAUTH_TIMEOUT&message=The%20OAuth%20flow%20has%20timed%20out.%20Please%20sign%20in%20again.';
    const error = await rejection(exchangeAuthorizationCode(options, { ...exchange, callbackUrl }));
    expect(isKnownError(error, 'OUTER_OAUTH_TIMEOUT')).toBe(true);
    expect(sent).toHaveLength(0);
  });
});

describe('knownErrorFromRedirect', () => {
  it("reads errorCode and details; the message is ours, never the address's", () => {
    const url = new URL('https://app.test/oauth/error');
    url.searchParams.set('errorCode', 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
    url.searchParams.set('message', 'This email is already used for authentication by another account.');
    url.searchParams.set('details', JSON.stringify({ type: 'email', contact_channel_value: null }));
    const error = knownErrorFromRedirect(url);
    expect(error?.code).toBe('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
    expect(error?.details).toEqual({ type: 'email', contact_channel_value: null });
    expect(error?.message).toBe('The sign-in did not finish (CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE).');
    expect(error?.status).toBe(409);
  });

  it('null without errorCode; unknown codes unsupported; nothing of the address but a code-shaped code is repeated', () => {
    expect(knownErrorFromRedirect('https://app.test/cb?code=x&state=y')).toBeNull();
    const bare = knownErrorFromRedirect('https://app.test/e?errorCode=OAUTH_PROVIDER_ACCESS_DENIED');
    expect(bare).toMatchObject({
      code: 'OAUTH_PROVIDER_ACCESS_DENIED',
      message: 'The sign-in did not finish (OAUTH_PROVIDER_ACCESS_DENIED).',
      status: 400,
    });
    expect(knownErrorFromRedirect('https://app.test/e?errorCode=INVALID_TOTP_CODE&details=%7Bbroken')?.code).toBe(
      'INVALID_TOTP_CODE',
    );
    const future = knownErrorFromRedirect('https://app.test/e?errorCode=SOMETHING_NEW&message=New');
    expect(future?.code).toBe('UNSUPPORTED_ERROR');
    expect(future?.details).toEqual({ originalErrorCode: 'SOMETHING_NEW' });
    expect(future?.message).not.toContain('New');
    const sentence = encodeURIComponent('Your account is locked. Call +1 555 0100 now.');
    expect(() => knownErrorFromRedirect(`https://app.test/e?errorCode=${sentence}`)).toThrow(
      new ProtocolError('The error page was given an error code that is not one.'),
    );
  });

  it('refuses details that do not match the catalogue, without repeating them', () => {
    expect(() => knownErrorFromRedirect('https://app.test/e?errorCode=TEAM_NOT_FOUND&message=x')).toThrow(
      ProtocolError,
    );
    const crafted = `https://app.test/e?errorCode=TEAM_NOT_FOUND&details=${encodeURIComponent(JSON.stringify({ team_id: 5, note: 'Call +1 555 0100 now' }))}`;
    const error = (() => {
      try {
        return knownErrorFromRedirect(crafted);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).not.toContain('555');
  });
});

describe('the token endpoint never holds its callers', () => {
  it('an attempt without an answer times out and is retried; after five, a NetworkError', async () => {
    const { options, sent, sleeps } = tokenEndpoint(['hang', 'hang', refreshed]);
    await expect(refreshAccessToken({ ...options, attemptTimeoutMillis: 5 }, 'rt')).resolves.toEqual({
      access_token: 'new.access.jwt',
    });
    expect(sent).toHaveLength(3);
    expect(sleeps).toEqual([750, 1500]);
    const stuck = tokenEndpoint(['hang', 'hang', 'hang', 'hang', 'hang']);
    const error = await rejection(
      refreshAccessToken({ ...stuck.options, attemptTimeoutMillis: 5, fetch: stuck.options.fetch }, 'rt'),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).attempts).toBe(5);
  }, 5000);

  it('a body that stalls after the headers times out too', async () => {
    const stalled = () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"access_token":')) }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    const { options, sent } = tokenEndpoint([stalled, refreshed]);
    await expect(refreshAccessToken({ ...options, attemptTimeoutMillis: 5 }, 'rt')).resolves.toEqual({
      access_token: 'new.access.jwt',
    });
    expect(sent).toHaveLength(2);
  }, 5000);

  it('a redirect is refused, never followed, and not retried', async () => {
    const { options, sent } = tokenEndpoint([
      () => new Response(null, { status: 307, headers: { location: 'https://evil.example/token' } }),
      refreshed,
    ]);
    expect(await rejection(refreshAccessToken(options, 'rt'))).toBeInstanceOf(ProtocolError);
    expect(sent).toHaveLength(1);
  });
});

describe('judgeArrivedAccessToken', () => {
  const margin = 20_000;
  const token = (claims: { iat?: number; exp?: number }) => {
    const jwt = new UnsecuredJWT({ sub: 'u' });
    if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
    if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
    return jwt.encode();
  };
  const seconds = Math.floor(NOW / 1000);

  it('a token valid by this clock is renewed `margin` before its exp', () => {
    expect(judgeArrivedAccessToken(token({ iat: seconds, exp: seconds + 600 }), NOW, margin)).toEqual({
      renewAtMillis: (seconds + 600) * 1000 - margin,
      problem: null,
    });
    expect(judgeArrivedAccessToken(token({}), NOW, margin)).toEqual({ renewAtMillis: null, problem: null });
  });

  it('a token expired on arrival (this clock runs ahead) is used for its stated lifetime, counted from arrival', () => {
    const issuedLongAgo = token({ iat: seconds - 3600, exp: seconds - 3000 });
    expect(judgeArrivedAccessToken(issuedLongAgo, NOW, margin)).toEqual({
      renewAtMillis: NOW + 600_000 - margin,
      problem: 'expired-on-arrival',
    });
    // No iat: no stated lifetime; at most one renewal a minute.
    expect(judgeArrivedAccessToken(token({ exp: seconds - 10 }), NOW, margin)).toEqual({
      renewAtMillis: NOW + UNREADABLE_TOKEN_RENEWAL_MILLIS,
      problem: 'expired-on-arrival',
    });
  });

  it('a token that is not a readable JWT is renewed at most once a minute', () => {
    for (const garbage of ['opaque-token-value', 'a.b.c']) {
      expect(judgeArrivedAccessToken(garbage, NOW, margin)).toEqual({
        renewAtMillis: NOW + UNREADABLE_TOKEN_RENEWAL_MILLIS,
        problem: 'unreadable',
      });
    }
  });
});
