import { describe, expect, it } from 'vitest';
import { inspectProviderToken } from '../../emulator/dev/oauthProvider.js';
import { endpoints, isKnownError } from '../../protocol/index.js';
import { advanceClock, api, expectKnownError, expectPlainError, signUp, userTransport } from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { oauthSignIn } from '../support/oauth.js';

const emulator = useEmulator();

/** A user signed up with the mock GitHub (default scope `user:email`). */
async function githubUser() {
  const em = emulator();
  const { tokens } = await oauthSignIn(em, { email: uniqueEmail('gh') });
  const me = await endpoints.getCurrentUser(userTransport(em, tokens));
  return { tokens, userId: me!.id, asUser: userTransport(em, tokens) };
}

describe('connected-account access tokens', () => {
  it('hands out the provider token for granted scopes (201)', async () => {
    const em = emulator();
    const { asUser, userId, tokens } = await githubUser();
    const { access_token } = await endpoints.getConnectedAccountAccessToken(asUser, 'me', 'github');
    expect(access_token).toMatch(/^mock_github_at_/);
    expect(inspectProviderToken(em.env, access_token)).toMatchObject({
      provider_id: 'github',
      kind: 'access',
      scopes: ['user:email'],
    });
    const scoped = await endpoints.getConnectedAccountAccessToken(asUser, userId, 'github', { scope: 'user:email' });
    expect(scoped.access_token).toBe(access_token);
    const raw = await api(em, 'POST', '/connected-accounts/me/github/access-token', {
      accessToken: tokens.access_token,
      body: {},
    });
    expect(raw.status).toBe(201);
    expect(raw.body).toEqual({ access_token });
  });

  it('refuses scopes never granted, until linked again with provider_scope', async () => {
    const em = emulator();
    const { tokens, asUser } = await githubUser();
    await expect(endpoints.getConnectedAccountAccessToken(asUser, 'me', 'github', { scope: 'repo' })).rejects.toSatisfy(
      (e) => isKnownError(e, 'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE'),
    );
    const me = await endpoints.getCurrentUser(asUser);
    await oauthSignIn(
      em,
      { email: me!.oauth_providers[0]!.email! },
      { type: 'link', token: tokens.access_token, providerScope: 'repo' },
    );
    const { access_token } = await endpoints.getConnectedAccountAccessToken(asUser, 'me', 'github', {
      scope: 'repo user:email',
    });
    expect(inspectProviderToken(em.env, access_token)?.scopes.sort()).toEqual(['repo', 'user:email']);
  });

  it('mints a new token from the refresh token when the stored one has less than 5 minutes left', async () => {
    const em = emulator();
    const { asUser, userId } = await githubUser();
    const first = (await endpoints.getConnectedAccountAccessToken(asUser, 'me', 'github')).access_token;
    // The user's access token expires on the way; the server acts for them from here.
    const server = transportFor(em, 'server');
    await advanceClock(em, 54 * 60 * 1000);
    // Six minutes left: still handed out.
    expect((await endpoints.getConnectedAccountAccessToken(server, userId, 'github')).access_token).toBe(first);
    await advanceClock(em, 2 * 60 * 1000);
    const minted = (await endpoints.getConnectedAccountAccessToken(server, userId, 'github')).access_token;
    expect(minted).not.toBe(first);
    expect(inspectProviderToken(em.env, minted)).toMatchObject({ kind: 'access', scopes: ['user:email'] });
    expect((await endpoints.getConnectedAccountAccessToken(server, userId, 'github')).access_token).toBe(minted);
  });

  it('answers its documented errors', async () => {
    const em = emulator();
    const { tokens, userId } = await githubUser();
    const other = await signUp(em);
    const post = (path: string, options: Parameters<typeof api>[3] = {}) =>
      api(em, 'POST', path, { body: {}, ...options });
    expectPlainError(
      await post(`/connected-accounts/${userId}/github/access-token`, { accessToken: other.access_token }),
      403,
      'Client can only access its own connected accounts',
    );
    expect((await post(`/connected-accounts/${userId}/github/access-token`, { access: 'server' })).status).toBe(201);
    expectKnownError(
      await post(`/connected-accounts/me/spotify/access-token`, { accessToken: tokens.access_token }),
      'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED',
      400,
    );
    expectKnownError(
      await post(`/connected-accounts/me/google/access-token`, { accessToken: tokens.access_token }),
      'OAUTH_CONNECTION_NOT_CONNECTED_TO_USER',
      400,
    );
    expectKnownError(await post(`/connected-accounts/me/github/access-token`), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    expectPlainError(
      await post(`/connected-accounts/00000000-0000-4000-8000-000000000000/github/access-token`, { access: 'server' }),
      404,
      'User not found',
    );
    expectKnownError(
      await post(`/connected-accounts/me/github/access-token`, {
        accessToken: tokens.access_token,
        body: { scope: 'x', extra: 1 },
      }),
      'SCHEMA_ERROR',
      400,
    );
    // The internal project's providers use shared keys, whose tokens are never handed out.
    const shared = await post(`/connected-accounts/00000000-0000-4000-8000-000000000000/github/access-token`, {
      access: 'server',
      project: 'internal',
    });
    expectKnownError(shared, 'OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS', 400);
  });

  it('the deprecated alias answers for the signed-in user', async () => {
    const em = emulator();
    const { tokens, asUser } = await githubUser();
    const expected = (await endpoints.getConnectedAccountAccessToken(asUser, 'me', 'github')).access_token;
    const alias = await api(em, 'POST', '/auth/oauth/connected-accounts/github/access-token', {
      accessToken: tokens.access_token,
      body: {},
    });
    expect(alias.status).toBe(201);
    expect(alias.body).toEqual({ access_token: expected });
    expectKnownError(
      await api(em, 'POST', '/auth/oauth/connected-accounts/github/access-token', {
        body: { scope: 'repo' },
        accessToken: tokens.access_token,
      }),
      'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE',
      400,
    );
  });
});
