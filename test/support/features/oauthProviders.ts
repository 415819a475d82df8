/**
 * The user's OAuth providers (`/oauth-providers`): the provider accounts linked to a user, each allowed or not to sign
 * them in and to give the app provider tokens; several accounts of one provider, as scenarios over a target (see
 * ../scenarioKit.ts). Accounts are linked by the server, so no provider is reached: GitLab, on keys of the app's own
 * (made up), whose accounts here have no provider tokens yet.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { HttpStatusError } from '../../../protocol/errors/errors.js';
import type { OAuthProviderModel } from '../../../protocol/models.js';
import {
  brokerFor,
  clientTransport,
  ensureOAuthProvider,
  failureOf,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  serviceCodeOf,
  uniqueEmail,
  uniqueId,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

const PROVIDER = 'gitlab';
const PROVIDER_KEYS = { clientId: 'authbroker-scenarios', clientSecret: 'not-a-real-secret' };

interface LinkedUser {
  userId: string;
  email: string;
  accountId: string;
  accessToken: string;
}

/** A user with a password and one linked GitLab account (signing in, serving tokens). */
async function linkedUser(target: ServiceTarget): Promise<LinkedUser> {
  await ensureOAuthProvider(target, PROVIDER, PROVIDER_KEYS);
  const server = serverApp(target);
  const email = uniqueEmail('providers');
  const accountId = `gh-${uniqueId()}`;
  const user = await server.createUser({
    primaryEmail: email,
    primaryEmailVerified: true,
    primaryEmailAuthEnabled: true,
    password: PASSWORD,
    oauthProviders: [{ id: PROVIDER, accountId, email }],
  });
  const { accessToken } = await server.createSession({ userId: user.id });
  return { userId: user.id, email, accountId, accessToken };
}

/** The plain-text sentence of a refusal that is not a known error. */
async function plainRefusal(call: Promise<unknown>): Promise<[number, string]> {
  const error = await failureOf(call);
  expect(error).toBeInstanceOf(HttpStatusError);
  return [(error as HttpStatusError).status, String((error as HttpStatusError).body)];
}

/** Lists the user's linked account (the server also sees the account id), switches it, and removes it. */
export async function listsSwitchesAndRemovesAProvider(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const client = clientTransport(target, user.accessToken);
  const [listed] = await endpoints.listOAuthProviders(client, 'me');
  expect(listed).toEqual({
    user_id: user.userId,
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    email: user.email,
    provider_config_id: PROVIDER,
    type: PROVIDER,
    allow_sign_in: true,
    allow_connected_accounts: true,
  });
  const id = listed!.id;
  expect(await endpoints.getOAuthProvider(client, 'me', id)).toEqual(listed);
  expect(await serverApp(target).listOAuthProviders(user.userId)).toEqual([
    {
      userId: user.userId,
      id,
      email: user.email,
      providerConfigId: PROVIDER,
      type: PROVIDER,
      allowSignIn: true,
      allowConnectedAccounts: true,
      accountId: user.accountId,
    },
  ]);

  // No connected-account use: still a provider of the user, no longer a connected account.
  const noTokens = await endpoints.updateOAuthProvider(client, 'me', id, { allow_connected_accounts: false });
  expect(noTokens).toEqual({ ...listed, allow_connected_accounts: false });
  expect(await endpoints.listConnectedAccounts(client, 'me')).toEqual([]);
  expect(await endpoints.listOAuthProviders(client, 'me')).toEqual([noTokens]);
  // No sign-in either; the link stays on the user.
  expect(await endpoints.updateOAuthProvider(client, 'me', id, { allow_sign_in: false })).toEqual({
    ...noTokens,
    allow_sign_in: false,
  });
  expect((await endpoints.getCurrentUser(client))?.oauth_providers).toEqual([
    { id: PROVIDER, account_id: user.accountId, email: user.email },
  ]);

  expect(await endpoints.deleteOAuthProvider(client, 'me', id)).toEqual({ success: true });
  expect(await endpoints.listOAuthProviders(client, 'me')).toEqual([]);
  expect((await endpoints.getCurrentUser(client))?.oauth_providers).toEqual([]);
  expect(await plainRefusal(endpoints.deleteOAuthProvider(client, 'me', id))).toEqual([
    404,
    `OAuth provider ${id} for user ${user.userId} not found`,
  ]);
}

/**
 * Several accounts of one provider: the server links a second GitLab account that does not sign in; both are
 * connected accounts; only one of them may sign in; a token is asked of one account by its id.
 */
export async function severalAccountsOfOneProvider(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const client = clientTransport(target, user.accessToken);
  const secondAccountId = `gh-second-${uniqueId()}`;
  const second = await serverApp(target).createOAuthProvider({
    userId: user.userId,
    providerConfigId: PROVIDER,
    accountId: secondAccountId,
    email: 'second-account@example.com',
    allowSignIn: false,
    allowConnectedAccounts: true,
  });
  expect(second).toMatchObject({
    userId: user.userId,
    type: PROVIDER,
    accountId: secondAccountId,
    allowSignIn: false,
    allowConnectedAccounts: true,
  });
  const accounts = await endpoints.listConnectedAccounts(client, 'me');
  expect(accounts.map((a) => a.provider)).toEqual([PROVIDER, PROVIDER]);
  expect(accounts.map((a) => a.provider_account_id).sort()).toEqual([user.accountId, secondAccountId].sort());
  expect((await endpoints.listOAuthProviders(client, 'me')).map((p) => p.allow_sign_in).sort()).toEqual([false, true]);

  // One account per provider signs in.
  expect(await plainRefusal(endpoints.updateOAuthProvider(client, 'me', second.id, { allow_sign_in: true }))).toEqual([
    400,
    'The same provider type with sign-in enabled already exists for this user.',
  ]);
  // The same account twice is refused too.
  const twice = await failureOf(
    serverApp(target).createOAuthProvider({
      userId: user.userId,
      providerConfigId: PROVIDER,
      accountId: secondAccountId,
      allowSignIn: false,
      allowConnectedAccounts: true,
    }),
  );
  expect([(twice as HttpStatusError).status, String((twice as HttpStatusError).body)]).toEqual([
    400,
    'The same provider type with the same account ID already exists for this user.',
  ]);

  // A token of one account, named by its id: it has none yet; an account not linked, or not serving tokens, is not
  // connected.
  const token = (providerAccountId: string) =>
    failureOf(endpoints.getConnectedAccountAccessToken(client, 'me', PROVIDER, { providerAccountId }));
  expect(knownCodeOf(await token(secondAccountId))).toBe('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
  expect(knownCodeOf(await token(`gh-unknown-${uniqueId()}`))).toBe('OAUTH_CONNECTION_NOT_CONNECTED_TO_USER');
  await endpoints.updateOAuthProvider(client, 'me', second.id, { allow_connected_accounts: false });
  expect(knownCodeOf(await token(secondAccountId))).toBe('OAUTH_CONNECTION_NOT_CONNECTED_TO_USER');
  expect((await endpoints.listConnectedAccounts(client, 'me')).map((a) => a.provider_account_id)).toEqual([
    user.accountId,
  ]);
}

/** A provider account signs in one user only: another user cannot link it with sign-in. */
export async function aProviderAccountSignsInOneUser(target: ServiceTarget): Promise<void> {
  const first = await linkedUser(target);
  const other = await linkedUser(target);
  await ensureOAuthProvider(target, 'google');
  const taken = await failureOf(
    serverApp(target).createOAuthProvider({
      userId: other.userId,
      providerConfigId: 'google',
      accountId: first.accountId,
      allowSignIn: true,
      allowConnectedAccounts: true,
    }),
  );
  expect(serviceCodeOf(taken)).toBe('OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN');
  // Without sign-in, it may be linked to both.
  const [id] = (await endpoints.listOAuthProviders(clientTransport(target, other.accessToken), 'me')).map((p) => p.id);
  const client = clientTransport(target, other.accessToken);
  await endpoints.updateOAuthProvider(client, 'me', id!, { allow_sign_in: false });
  // The service checks a change that turns sign-in back on against every other signing-in account of the project
  // (it names no account id), so while `first` signs in with GitLab, `other` cannot turn its own back on.
  const back = await failureOf(endpoints.updateOAuthProvider(client, 'me', id!, { allow_sign_in: true }));
  expect(serviceCodeOf(back)).toBe('OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN');
}

/** Refusals: another user's providers, no user, unknown or malformed ids, a client linking or changing the account id. */
export async function oauthProviderRefusals(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const other = await linkedUser(target);
  const client = clientTransport(target, user.accessToken);
  expect(await plainRefusal(endpoints.listOAuthProviders(client, other.userId))).toEqual([
    403,
    'Client can only list OAuth providers for their own user.',
  ]);
  const [theirs] = await serverApp(target).listOAuthProviders(other.userId);
  expect(await plainRefusal(endpoints.getOAuthProvider(client, other.userId, theirs!.id))).toEqual([
    403,
    'Client can only read OAuth providers for their own user.',
  ]);
  const missing = crypto.randomUUID();
  expect(await plainRefusal(endpoints.getOAuthProvider(client, 'me', missing))).toEqual([
    404,
    `OAuth provider ${missing} for user ${user.userId} not found`,
  ]);
  // Another user's account, asked by the server under the wrong user, is not found either.
  expect(
    (await rawCall(target, 'GET', `/oauth-providers/${user.userId}/${theirs!.id}`, { access: 'server' })).status,
  ).toBe(404);

  const nobody = await rawCall(target, 'GET', '/oauth-providers?user_id=me');
  expect([nobody.status, nobody.code]).toEqual([400, 'CANNOT_GET_OWN_USER_WITHOUT_USER']);
  const notAnId = await rawCall(target, 'GET', '/oauth-providers/me/not-an-id', { accessToken: user.accessToken });
  expect([notAnId.status, notAnId.code]).toEqual([400, 'SCHEMA_ERROR']);
  const link = await rawCall(target, 'POST', '/oauth-providers', {
    accessToken: user.accessToken,
    body: {
      user_id: 'me',
      provider_config_id: PROVIDER,
      account_id: 'x',
      allow_sign_in: false,
      allow_connected_accounts: true,
    },
  });
  expect([link.status, link.code]).toEqual([401, 'INSUFFICIENT_ACCESS_TYPE']);
  const accountChange = await rawCall(
    target,
    'PATCH',
    `/oauth-providers/me/${(await serverApp(target).listOAuthProviders(user.userId))[0]!.id}`,
    {
      accessToken: user.accessToken,
      body: { account_id: 'another' },
    },
  );
  expect([accountChange.status, accountChange.code]).toEqual([400, 'SCHEMA_ERROR']);
  expect(knownCodeOf(await failureOf(serverApp(target).listOAuthProviders(crypto.randomUUID())))).toBe(
    'USER_NOT_FOUND',
  );
  const unconfigured = await rawCall(target, 'POST', '/oauth-providers', {
    access: 'server',
    body: {
      user_id: user.userId,
      provider_config_id: 'bitbucket',
      account_id: 'x',
      allow_sign_in: false,
      allow_connected_accounts: true,
    },
  });
  expect([unconfigured.status, unconfigured.body]).toEqual([
    404,
    'OAuth provider bitbucket not found or not configured',
  ]);
}

/** Through the broker: the oauthProviders query, its changes seen by every tab, and nothing when signed out. */
export async function brokerManagesOAuthProviders(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [tab, other] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    expect(await tab.api.read({ kind: 'oauthProviders' })).toEqual([]);
    await tab.api.signInWithPassword({ email: user.email, password: PASSWORD });
    await other.subscribe('providers', { kind: 'oauthProviders' });
    const listed = await other.waitFor(
      'providers',
      (s) => ((s.data as OAuthProviderModel[] | undefined) ?? []).length === 1,
      30_000,
    );
    const [provider] = listed.data as OAuthProviderModel[];
    expect(provider).toMatchObject({ type: PROVIDER, allowSignIn: true, allowConnectedAccounts: true });

    const updated = await tab.api.updateOAuthProvider(provider!.id, { allowConnectedAccounts: false });
    expect(updated).toEqual({ ...provider, allowConnectedAccounts: false });
    await other.waitFor(
      'providers',
      (s) => (s.data as OAuthProviderModel[] | undefined)?.[0]?.allowConnectedAccounts === false,
      30_000,
    );
    expect(await tab.api.read({ kind: 'connectedAccounts' })).toEqual([]);

    await tab.api.deleteOAuthProvider(provider!.id);
    await other.waitFor('providers', (s) => (s.data as OAuthProviderModel[] | undefined)?.length === 0, 30_000);
  } finally {
    close();
  }
}
