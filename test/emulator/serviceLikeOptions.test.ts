import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { api, signUp } from '../support/authFlows.js';
import { useEmulator } from '../support/emulator.js';
import { callback, startFlow, type StartedFlow } from '../support/oauth.js';

/**
 * The options that let the emulator run a test suite written for the development service as it is:
 * the `internal` project's keys, the announced host, the fixed passkey challenge, an external OpenID
 * provider for the shared OAuth providers.
 */

const STACK_DEVELOPMENT_KEYS = {
  publishableClientKey: 'this-publishable-client-key-is-for-local-development-only',
  secretServerKey: 'this-secret-server-key-is-for-local-development-only',
  superSecretAdminKey: 'this-super-secret-admin-key-is-for-local-development-only',
};

describe("the internal project's keys", () => {
  const emulator = useEmulator({ internalProject: STACK_DEVELOPMENT_KEYS });

  it("take the service's development keys for every access type", async () => {
    const em = emulator();
    expect(em.projects.internal).toEqual({ id: 'internal', ...STACK_DEVELOPMENT_KEYS });
    for (const access of ['client', 'server', 'admin'] as const) {
      const answer = await api(em, 'GET', '/projects/current', { access, project: 'internal' });
      expect(answer.status, `${access}: ${answer.text}`).toBe(200);
    }
    const wrong = await api(em, 'GET', '/projects/current', {
      project: 'internal',
      headers: { 'x-stack-publishable-client-key': 'pck_not-the-key' },
    });
    expect(wrong.status).toBe(401);
  });
});

describe('the announced host', () => {
  const emulator = useEmulator({ urlHost: 'localhost' });

  it('is the base URL and the issuer of the tokens it signs', async () => {
    const em = emulator();
    expect(em.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(em.apiUrl).toBe(`${em.url}/api/v1`);
    const user = await signUp(em);
    expect(decodeJwt(user.access_token).iss).toBe(`${em.url}/api/v1/projects/${em.projects.demo.id}`);
    const me = await api(em, 'GET', '/users/me', { accessToken: user.access_token });
    expect(me.status, me.text).toBe(200);
  });

  it('is by default the listening address, and must be one the emulator answers to', async () => {
    const plain = await startEmulator({ port: 0 });
    try {
      expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await plain.stop();
    }
    await expect(startEmulator({ port: 0, urlHost: 'attacker.example' })).rejects.toThrow(/urlHost must be localhost/);
  });
});

describe('the hardcoded passkey challenge', () => {
  const fixed = useEmulator({ hardcodedPasskeyChallenge: true });
  const random = useEmulator();

  async function challenges(em: RunningEmulator): Promise<string[]> {
    const user = await signUp(em);
    const registration = await api(em, 'POST', '/auth/passkey/initiate-passkey-registration', {
      accessToken: user.access_token,
      body: {},
    });
    const authentication = await api(em, 'POST', '/auth/passkey/initiate-passkey-authentication', { body: {} });
    expect(registration.status, registration.text).toBe(200);
    expect(authentication.status, authentication.text).toBe(200);
    return [registration.body, authentication.body].map(
      (body) => (body as { options_json: { challenge: string } }).options_json.challenge,
    );
  }

  it("is the service's testing challenge, MOCK, for registration and sign-in", async () => {
    expect(await challenges(fixed())).toEqual(['TU9DSw', 'TU9DSw']);
  });

  it('is off by default: every challenge is random', async () => {
    const [registration, authentication] = await challenges(random());
    expect(registration).not.toBe('TU9DSw');
    expect(registration).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authentication).not.toBe(registration);
  });
});

/** A minimal OpenID provider, as Stack Auth's mock OAuth server behaves for a code grant. */
interface FakeProvider {
  url: string;
  tokenRequests: URLSearchParams[];
  stop(): Promise<void>;
}

async function startFakeProvider(): Promise<FakeProvider> {
  const codes = new Map<string, { login: string; challenge: string; redirectUri: string; clientId: string }>();
  const tokens = new Map<string, string>();
  const refreshTokens = new Map<string, string>();
  const tokenRequests: URLSearchParams[] = [];
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
      // Signs in whoever `login_hint` names (the real mock asks on a page), then sends the browser back.
      const code = randomBytes(12).toString('hex');
      codes.set(code, {
        login: url.searchParams.get('login_hint') ?? 'someone@example.com',
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri: url.searchParams.get('redirect_uri') ?? '',
        clientId: url.searchParams.get('client_id') ?? '',
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
        tokenRequests.push(form);
        const [clientId, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
          .toString('utf8')
          .split(':');
        if (secret !== 'MOCK-SERVER-SECRET') return reply(401, { error: 'invalid_client' });
        const issue = (login: string) => {
          const accessToken = randomBytes(12).toString('hex');
          const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
          tokens.set(accessToken, login);
          refreshTokens.set(refreshToken, login);
          return reply(200, {
            access_token: accessToken,
            refresh_token: refreshToken,
            expires_in: 3600,
            token_type: 'Bearer',
            scope: form.get('scope') ?? 'openid offline_access',
          });
        };
        if (form.get('grant_type') === 'refresh_token') {
          const login = refreshTokens.get(form.get('refresh_token') ?? '');
          return login === undefined ? reply(400, { error: 'invalid_grant' }) : issue(login);
        }
        const pending = codes.get(form.get('code') ?? '');
        const verifierHash = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        if (!pending || pending.clientId !== clientId || pending.challenge !== verifierHash)
          return reply(400, { error: 'invalid_grant' });
        codes.delete(form.get('code')!);
        return issue(pending.login);
      }
      if (url.pathname === '/me') {
        const login = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        return login === undefined ? reply(401, { error: 'invalid_token' }) : reply(200, { sub: login });
      }
      reply(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    tokenRequests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('an external OpenID provider for the shared OAuth providers', () => {
  let provider: FakeProvider;
  let em: RunningEmulator;
  beforeAll(async () => {
    provider = await startFakeProvider();
    em = await startEmulator({ port: 0, externalOAuthProvider: { url: provider.url } });
  });
  afterAll(async () => {
    await em.stop();
    await provider.stop();
  });

  /** authorize → the provider (signing in `login`) → the emulator's callback. */
  async function viaProvider(flow: StartedFlow, login: string) {
    const authorize = new URL(flow.consentUrl);
    authorize.searchParams.set('login_hint', login);
    const atProvider = await fetch(authorize, { redirect: 'manual' });
    expect(atProvider.status).toBe(303);
    return callback(new URL(atProvider.headers.get('location')!), flow.cookie);
  }

  it('sends a shared provider to it, with the provider id as the client id, and signs in its account', async () => {
    const flow = await startFlow(em, { project: 'internal', providerId: 'spotify' });
    expect(flow.consentUrl.origin + flow.consentUrl.pathname).toBe(`${provider.url}/auth`);
    expect(Object.fromEntries(flow.consentUrl.searchParams)).toMatchObject({
      client_id: 'spotify',
      redirect_uri: `${em.url}/api/v1/auth/oauth/callback/spotify`,
      scope: 'openid offline_access',
      response_type: 'code',
      code_challenge_method: 'S256',
      prompt: 'consent',
    });
    const login = `grace-${Date.now()}@example.com`;
    const done = await viaProvider(flow, login);
    // A signed-in callback is a 303 back to the client, as the service answers.
    expect(done.status, done.text).toBe(303);
    const back = new URL(done.location!);
    expect(back.searchParams.get('state')).toBe(flow.state);
    expect(provider.tokenRequests.at(-1)?.get('redirect_uri')).toBe(`${em.url}/api/v1/auth/oauth/callback/spotify`);
    const users = await api(em, 'GET', `/users?query=${encodeURIComponent(login)}`, {
      access: 'server',
      project: 'internal',
    });
    expect((users.body as { items: { primary_email: string; oauth_providers: { id: string }[] }[] }).items).toEqual([
      expect.objectContaining({ primary_email: login, oauth_providers: [expect.objectContaining({ id: 'spotify' })] }),
    ]);
  });

  it("renews a connected account's token at the provider and asks it whether a token is still good", async () => {
    const flow = await startFlow(em, { project: 'internal', providerId: 'github' });
    const login = `linus-${Date.now()}@example.com`;
    expect((await viaProvider(flow, login)).status).toBe(303);
    const external = em.env.externalOAuthProvider!;
    const owner = Object.values(em.env.store.project('internal')!.users).find((user) =>
      user.oauth_accounts.some((account) => account.account_id === login),
    )!;
    const stored = owner.oauth_accounts[0]!.tokens[0]!;
    expect(await external.accessTokenIsValid(stored.access_token)).toBe(true);
    expect(await external.accessTokenIsValid('not-a-token')).toBe(false);
    const renewed = await external.refresh({
      providerId: 'github',
      refreshToken: stored.refresh_token!,
      scope: 'openid',
      now: 1000,
    });
    expect(renewed).toEqual({
      ok: true,
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^rt-/),
      scopes: ['openid'],
      expires_at_millis: 1000 + 3600 * 1000,
    });
    expect(await external.accessTokenIsValid((renewed as { access_token: string }).access_token)).toBe(true);
    expect(await external.refresh({ providerId: 'github', refreshToken: 'rt-unknown', now: 0 })).toEqual({
      ok: false,
      error: 'invalid_grant',
      description: 'the token endpoint answered 400',
    });
  });

  it("keeps standard providers (the project's own keys) on the emulator's own mock provider", async () => {
    const flow = await startFlow(em, { providerId: 'github' });
    expect(flow.consentUrl.origin).toBe(em.url);
    expect(flow.consentUrl.pathname).toBe('/emulator/oauth/github/authorize');
  });

  it("answers the provider's refusal of the code as the service does", async () => {
    const flow = await startFlow(em, { project: 'internal', providerId: 'google' });
    const atProvider = await fetch(flow.consentUrl, { redirect: 'manual' });
    const providerCallback = new URL(atProvider.headers.get('location')!);
    providerCallback.searchParams.set('code', 'not-a-code-it-issued');
    const refused = await callback(providerCallback, flow.cookie);
    expect(refused.status).toBe(400);
    expect(refused.text).toBe('Inner OAuth callback failed due to invalid grant. Please try again.');
  });
});
