import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError, knownErrorFromRedirect } from '../../protocol/index.js';
import { advanceClock, api, signUp } from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { authorizeUrl, callback, consent, ERROR_URL, runFlow, startFlow } from '../support/oauth.js';

const emulator = useEmulator();

const COOKIE_MISSING =
  'Inner OAuth cookie not found. This is likely because you refreshed the page during the OAuth sign in process. Please try signing in again';

async function get(url: string | URL) {
  const response = await fetch(url, { redirect: 'manual' });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    status: response.status,
    known: response.headers.get('x-stack-known-error'),
    text,
    body,
    contentType: response.headers.get('content-type'),
  };
}

async function authorizeWith(change: (url: URL) => void) {
  const { url } = await authorizeUrl(emulator());
  const parsed = new URL(url);
  change(parsed);
  return get(parsed);
}

describe('authorize errors', () => {
  it('checks the client, its key, the provider and the query', async () => {
    const unknownProject = await authorizeWith((u) =>
      u.searchParams.set('client_id', '00000000-0000-4000-8000-000000000000'),
    );
    expect(unknownProject).toMatchObject({ status: 400, known: 'INVALID_OAUTH_CLIENT_ID_OR_SECRET' });
    expect((unknownProject.body as { details: unknown }).details).toEqual({
      client_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(await authorizeWith((u) => u.searchParams.set('client_secret', 'pck_wrong'))).toMatchObject({
      status: 401,
      known: 'INVALID_PUBLISHABLE_CLIENT_KEY',
    });
    const spotify = await authorizeWith((u) => (u.pathname = u.pathname.replace('/github', '/spotify')));
    expect(spotify).toMatchObject({ status: 400, known: 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED' });
    expect(await authorizeWith((u) => u.searchParams.set('prompt', 'login'))).toMatchObject({
      status: 400,
      known: 'SCHEMA_ERROR',
    });
    expect(await authorizeWith((u) => u.searchParams.delete('code_challenge'))).toMatchObject({
      status: 400,
      known: 'SCHEMA_ERROR',
    });
    expect(await authorizeWith((u) => u.searchParams.set('grant_type', 'implicit'))).toMatchObject({
      status: 400,
      known: 'SCHEMA_ERROR',
    });
  });

  it("lists every failing rule of a field, in the service's order", async () => {
    const both = await authorizeWith((u) => u.searchParams.set('redirect_uri', 'this is an invalid URL string'));
    expect(both).toMatchObject({ status: 400, known: 'SCHEMA_ERROR' });
    const path = new URL((await authorizeUrl(emulator())).url).pathname;
    expect((both.body as { error: string }).error).toBe(
      `Request validation failed on GET ${path}:\n  - query.redirect_uri contains spaces\n  - query.redirect_uri is not a valid URL`,
    );
    // A space alone is one failure; the URL parser itself drops tabs, as the service's does.
    const spaced = await authorizeWith((u) => u.searchParams.set('redirect_uri', 'http://localhost:5173/a b'));
    expect((spaced.body as { error: string }).error).toMatch(/:\n {2}- query\.redirect_uri contains spaces$/);
    const unparsable = await authorizeWith((u) => u.searchParams.set('redirect_uri', 'nope'));
    expect((unparsable.body as { error: string }).error).toMatch(/:\n {2}- query\.redirect_uri is not a valid URL$/);
  });

  it('checks the access token of a link flow', async () => {
    const em = emulator();
    const link = (token: string, extra: Record<string, string> = {}, project: 'demo' | 'internal' = 'demo') =>
      authorizeUrl(em, { type: 'link', token, project }).then(({ url }) => {
        const parsed = new URL(url);
        for (const [k, v] of Object.entries(extra)) parsed.searchParams.set(k, v);
        return get(parsed);
      });
    expect(await link('')).toMatchObject({
      status: 400,
      known: null,
      text: '?token= query parameter is required for link type',
    });
    expect(await link('not-a-token')).toMatchObject({ status: 401, known: 'UNPARSABLE_ACCESS_TOKEN' });
    const admin = await endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: 'admin@authbroker.dev',
      password: 'admin-password',
    });
    const foreign = await link(admin.access_token);
    expect(foreign).toMatchObject({ status: 403, known: null, text: 'The access token is not valid for this project' });
    // The internal project's providers use shared keys: no extra scopes.
    const shared = await link(admin.access_token, { provider_scope: 'repo' }, 'internal');
    expect(shared).toMatchObject({ status: 400, known: 'OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS' });
    const user = await signUp(em);
    await advanceClock(em, 11 * 60 * 1000);
    expect(await link(user.access_token)).toMatchObject({ status: 401, known: 'ACCESS_TOKEN_EXPIRED' });
  });
});

describe('callback errors', () => {
  it('without the inner cookie: a plain 400 with the exact text; an unknown state likewise', async () => {
    const em = emulator();
    const flow = await startFlow(em);
    const atCallback = await consent(flow, { email: uniqueEmail('gh') });
    const missing = await callback(atCallback, null);
    expect(missing).toMatchObject({ status: 400, text: COOKIE_MISSING });
    expect(missing.headers.get('x-stack-known-error')).toBeNull();
    expect(missing.headers.get('content-type')).toContain('text/plain');
    const wrongValue = await callback(atCallback, `${flow.cookie.split('=')[0]}=yes`);
    expect(wrongValue).toMatchObject({ status: 400, text: COOKIE_MISSING });
    const unknown = new URL(atCallback);
    unknown.searchParams.set('state', 'zzzz');
    const unknownState = await callback(unknown, 'stack-oauth-inner-zzzz=true');
    expect(unknownState).toMatchObject({ status: 400, text: 'Invalid OAuth state. Please try signing in again.' });
    // No flow, so no cookie of one to delete.
    expect(unknownState.headers.get('set-cookie')).toBeNull();
    expect(missing.headers.get('set-cookie')).toMatch(/=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT$/);
    // The flow is still intact: with its cookie it completes.
    expect((await callback(atCallback, flow.cookie)).status).toBe(303);
    // …once: the provider code is spent.
    expect((await callback(atCallback, flow.cookie)).status).toBe(400);
  });

  it('a denied consent goes back to the client’s redirect URI with error, errorCode, message and details', async () => {
    const em = emulator();
    const flow = await startFlow(em);
    const atCallback = await consent(flow, { action: 'deny' });
    expect(atCallback.searchParams.get('error')).toBe('access_denied');
    const result = await callback(atCallback, flow.cookie);
    expect(result.status).toBe(307);
    const target = new URL(result.location!);
    expect(target.origin + target.pathname + `?state=${flow.state}`).toBe(flow.redirectUri);
    // The redirect URI's own query (the flow's state, there) is kept; the service adds its error fields.
    expect(Object.fromEntries(target.searchParams)).toEqual({
      state: flow.state,
      error: 'server_error',
      error_description: 'The OAuth provider denied access to the user.',
      errorCode: 'OAUTH_PROVIDER_ACCESS_DENIED',
      message: 'The OAuth provider denied access to the user.',
      details: '{}',
    });
    expect(isKnownError(knownErrorFromRedirect(target), 'OAUTH_PROVIDER_ACCESS_DENIED')).toBe(true);
  });

  it('goes to the error URL when the redirect URI is not trusted, and is answered as usual when neither is', async () => {
    const em = emulator();
    const toErrorUrl = await startFlow(em, { redirectUri: 'https://evil.example.com/callback' });
    const redirected = await callback(await consent(toErrorUrl, { action: 'deny' }), toErrorUrl.cookie);
    const target = new URL(redirected.location!);
    expect(target.origin + target.pathname).toBe(ERROR_URL);
    expect(target.searchParams.get('errorCode')).toBe('OAUTH_PROVIDER_ACCESS_DENIED');
    const neither = await startFlow(em, {
      redirectUri: 'https://evil.example.com/callback',
      errorRedirectUrl: 'https://evil.example.com/error',
    });
    const result = await callback(await consent(neither, { action: 'deny' }), neither.cookie);
    expect(result.status).toBe(400);
    expect(result.headers.get('x-stack-known-error')).toBe('OAUTH_PROVIDER_ACCESS_DENIED');
  });

  it('an untrusted redirect_uri is REDIRECT_URL_NOT_WHITELISTED, redirected when the error URL is trusted', async () => {
    const em = emulator();
    const redirected = await runFlow(
      em,
      { email: uniqueEmail('gh') },
      { redirectUri: 'https://evil.example.com/callback' },
    );
    expect(redirected.finalUrl.origin + redirected.finalUrl.pathname).toBe(ERROR_URL);
    expect(redirected.finalUrl.searchParams.get('errorCode')).toBe('REDIRECT_URL_NOT_WHITELISTED');
    const flow = await startFlow(em, {
      redirectUri: 'https://evil.example.com/callback',
      errorRedirectUrl: 'https://evil.example.com/error',
    });
    const result = await callback(await consent(flow, { email: uniqueEmail('gh') }), flow.cookie);
    expect(result.status).toBe(400);
    expect(result.headers.get('x-stack-known-error')).toBe('REDIRECT_URL_NOT_WHITELISTED');
  });

  it('the outer flow times out after 10 minutes', async () => {
    const em = emulator();
    const flow = await startFlow(em);
    const atCallback = await consent(flow, { email: uniqueEmail('gh') });
    await advanceClock(em, 10 * 60 * 1000 + 1000);
    const result = await callback(atCallback, flow.cookie);
    expect(new URL(result.location!).searchParams.get('errorCode')).toBe('OUTER_OAUTH_TIMEOUT');
    const untrusted = await startFlow(em, {
      redirectUri: 'https://evil.example.com/callback',
      errorRedirectUrl: 'https://evil.example.com/error',
    });
    const late = await consent(untrusted, { email: uniqueEmail('gh') });
    await advanceClock(em, 10 * 60 * 1000 + 1000);
    const direct = await callback(late, untrusted.cookie);
    expect(direct.status).toBe(408);
    expect(direct.headers.get('x-stack-known-error')).toBe('OUTER_OAUTH_TIMEOUT');
  });

  it('a forged provider code is an invalid grant; form-post callbacks work too', async () => {
    const em = emulator();
    const flow = await startFlow(em);
    const atCallback = await consent(flow, { email: uniqueEmail('gh') });
    const forged = new URL(atCallback);
    forged.searchParams.set('code', 'not-a-code');
    expect(await callback(forged, flow.cookie)).toMatchObject({
      status: 400,
      text: 'Inner OAuth callback failed due to invalid grant. Please try again.',
    });
    const posted = await fetch(`${atCallback.origin}${atCallback.pathname}`, {
      method: 'POST',
      body: new URLSearchParams(atCallback.searchParams),
      headers: { cookie: flow.cookie },
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    expect(new URL(posted.headers.get('location')!).searchParams.get('state')).toBe(flow.state);
  });

  it('the consent page refuses a redirect_uri that is not the service callback', async () => {
    const em = emulator();
    const page = await get(
      `${em.url}/emulator/oauth/github/authorize?redirect_uri=${encodeURIComponent('https://evil.example.com/cb')}&state=abc`,
    );
    expect(page.status).toBe(400);
    const posted = await fetch(`${em.url}/emulator/oauth/github/authorize`, {
      method: 'POST',
      body: new URLSearchParams({ redirect_uri: 'https://evil.example.com/cb', state: 'abc', email: 'a@b.co' }),
      redirect: 'manual',
    });
    expect(posted.status).toBe(400);
    expect((await api(em, 'GET', '/auth/oauth/callback/github', { access: null })).status).toBe(400);
  });
});
