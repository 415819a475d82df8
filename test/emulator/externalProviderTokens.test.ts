/**
 * Connected-account tokens when an external OpenID provider plays the shared OAuth providers (the service's development
 * setup): the app gets provider tokens through shared keys then; a stored token is handed out once the provider says
 * it is still good, else a refresh-token grant gets a new one, and a refused refresh token is given up. The authorize
 * URL of that provider has the service's parameter order.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { api } from '../support/authFlows.js';
import { callback, startFlow } from '../support/oauth.js';

/** An OpenID provider that signs in whoever `login_hint` names, and whose tokens a test may revoke. */
interface Provider {
  url: string;
  revokeAccess(token: string): void;
  revokeRefresh(): void;
  stop(): Promise<void>;
}

async function startProvider(): Promise<Provider> {
  const codes = new Map<string, { login: string; challenge: string }>();
  const access = new Map<string, string>();
  const refresh = new Map<string, string>();
  let base = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration')
      return reply(200, {
        issuer: base,
        authorization_endpoint: `${base}/auth`,
        token_endpoint: `${base}/token`,
        userinfo_endpoint: `${base}/me`,
      });
    if (url.pathname === '/auth') {
      const code = randomBytes(12).toString('hex');
      codes.set(code, {
        login: url.searchParams.get('login_hint') ?? 'someone@example.com',
        challenge: url.searchParams.get('code_challenge') ?? '',
      });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(303, { location: back.toString() });
      return void res.end();
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (url.pathname === '/token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const issue = (login: string) => {
          const accessToken = `at-${randomBytes(12).toString('hex')}`;
          const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
          access.set(accessToken, login);
          refresh.set(refreshToken, login);
          return reply(200, {
            access_token: accessToken,
            refresh_token: refreshToken,
            expires_in: 3600,
            token_type: 'Bearer',
            scope: form.get('scope') ?? 'openid offline_access',
          });
        };
        if (form.get('grant_type') === 'refresh_token') {
          const login = refresh.get(form.get('refresh_token') ?? '');
          return login === undefined ? reply(400, { error: 'invalid_grant' }) : issue(login);
        }
        const pending = codes.get(form.get('code') ?? '');
        const hash = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        if (!pending || pending.challenge !== hash) return reply(400, { error: 'invalid_grant' });
        codes.delete(form.get('code')!);
        return issue(pending.login);
      }
      if (url.pathname === '/me') {
        const login = access.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        return login === undefined ? reply(401, { error: 'invalid_token' }) : reply(200, { sub: login });
      }
      reply(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    revokeAccess: (token) => void access.delete(token),
    revokeRefresh: () => refresh.clear(),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('connected-account tokens through an external OpenID provider', () => {
  let provider: Provider;
  let em: RunningEmulator;
  beforeAll(async () => {
    provider = await startProvider();
    em = await startEmulator({ port: 0, externalOAuthProvider: { url: provider.url } });
  });
  afterAll(async () => {
    await em.stop();
    await provider.stop();
  });

  /** Signs `login` in with the internal project's shared Spotify, returning the user's access token. */
  async function signIn(login: string): Promise<{ accessToken: string; authorizeUrl: URL }> {
    const flow = await startFlow(em, { project: 'internal', providerId: 'spotify' });
    const authorize = new URL(flow.consentUrl);
    authorize.searchParams.set('login_hint', login);
    const atProvider = await fetch(authorize, { redirect: 'manual' });
    const done = await callback(new URL(atProvider.headers.get('location')!), flow.cookie);
    const code = new URL(done.location!).searchParams.get('code')!;
    const tokens = await fetch(`${em.url}/api/v1/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: flow.redirectUri,
        code_verifier: flow.codeVerifier,
        client_id: 'internal',
        client_secret: em.projects.internal.publishableClientKey,
      }),
    });
    return {
      accessToken: ((await tokens.json()) as { access_token: string }).access_token,
      authorizeUrl: flow.consentUrl,
    };
  }

  const providerToken = (accessToken: string) =>
    api(em, 'POST', '/connected-accounts/me/spotify/access-token', {
      project: 'internal',
      accessToken,
      body: { scope: 'openid' },
    });

  it('asks the provider in the service’s parameter order', async () => {
    const flow = await startFlow(em, { project: 'internal', providerId: 'spotify' });
    expect([...flow.consentUrl.searchParams.keys()]).toEqual([
      'client_id',
      'scope',
      'response_type',
      'redirect_uri',
      'code_challenge_method',
      'code_challenge',
      'state',
      'access_type',
      'prompt',
    ]);
  });

  it('hands out the stored token while the provider takes it, then a refreshed one', async () => {
    const { accessToken } = await signIn(`ada-${Date.now()}@example.com`);
    const first = await providerToken(accessToken);
    expect(first.status, first.text).toBe(201);
    const token = (first.body as { access_token: string }).access_token;
    expect((await providerToken(accessToken)).body).toEqual({ access_token: token });
    provider.revokeAccess(token);
    const renewed = await providerToken(accessToken);
    expect(renewed.status).toBe(201);
    expect((renewed.body as { access_token: string }).access_token).not.toBe(token);
  });

  it('gives up a refresh token the provider refuses', async () => {
    const { accessToken } = await signIn(`bob-${Date.now()}@example.com`);
    const token = ((await providerToken(accessToken)).body as { access_token: string }).access_token;
    provider.revokeAccess(token);
    provider.revokeRefresh();
    const refused = await providerToken(accessToken);
    expect((refused.body as { code: string }).code).toBe('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
  });
});
