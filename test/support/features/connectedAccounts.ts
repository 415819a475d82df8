/**
 * Listing a user's connected accounts (linked provider accounts the app may get provider tokens
 * for), as scenarios over a target (see ../scenarioKit.ts). Accounts are linked by the server
 * (`oauth_providers` when creating the user), so no provider is needed.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { HttpStatusError } from '../../../protocol/errors/errors.js';
import type { ConnectedAccountModel } from '../../../worker/index.js';
import {
  brokerFor,
  clientTransport,
  ensureOAuthProvider,
  failureOf,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  uniqueEmail,
  uniqueId,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

const PROVIDER = 'github';

/** A user with a password and one linked GitHub account; its id, e-mail, account id and a session token. */
async function linkedUser(
  target: ServiceTarget,
): Promise<{ userId: string; email: string; accountId: string; accessToken: string }> {
  await ensureOAuthProvider(target, PROVIDER);
  const server = serverApp(target);
  const email = uniqueEmail('connected');
  const accountId = `gh-${uniqueId()}`;
  const user = await server.createUser({
    primaryEmail: email,
    password: PASSWORD,
    primaryEmailAuthEnabled: true,
    oauthProviders: [{ id: PROVIDER, accountId, email }],
  });
  const { accessToken } = await server.createSession({ userId: user.id });
  return { userId: user.id, email, accountId, accessToken };
}

/** Lists the user’s linked accounts (user, provider, provider account), for the user and the server. */
export async function listsLinkedAccounts(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const expected = [{ user_id: user.userId, provider: PROVIDER, provider_account_id: user.accountId }];
  expect(await endpoints.listConnectedAccounts(clientTransport(target, user.accessToken), 'me')).toEqual(expected);
  expect(await endpoints.listConnectedAccounts(clientTransport(target, user.accessToken), user.userId)).toEqual(
    expected,
  );
  expect(await serverApp(target).listConnectedAccounts(user.userId)).toEqual([
    { userId: user.userId, provider: PROVIDER, providerAccountId: user.accountId },
  ]);

  // A user without links has none.
  const plain = await serverApp(target).createUser({ primaryEmail: uniqueEmail('unlinked') });
  expect(await serverApp(target).listConnectedAccounts(plain.id)).toEqual([]);
}

/** Refusals: another user’s list, no user, an unknown user, an id that is not one. */
export async function connectedAccountListRefusals(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const other = await failureOf(
    endpoints.listConnectedAccounts(clientTransport(target, user.accessToken), crypto.randomUUID()),
  );
  expect(other).toBeInstanceOf(HttpStatusError);
  expect((other as HttpStatusError).status).toBe(403);
  const nobody = await rawCall(target, 'GET', '/connected-accounts/me');
  expect([nobody.status, nobody.code]).toEqual([400, 'CANNOT_GET_OWN_USER_WITHOUT_USER']);
  expect(knownCodeOf(await failureOf(serverApp(target).listConnectedAccounts(crypto.randomUUID())))).toBe(
    'USER_NOT_FOUND',
  );
  const notAnId = await rawCall(target, 'GET', '/connected-accounts/not-an-id', { access: 'server' });
  expect([notAnId.status, notAnId.code]).toEqual([400, 'SCHEMA_ERROR']);
}

/** Through the broker: the connectedAccounts query lists the signed-in user’s accounts, and nothing when signed out. */
export async function brokerQueryListsConnectedAccounts(target: ServiceTarget): Promise<void> {
  const user = await linkedUser(target);
  const { tabs, close } = await brokerFor(target);
  try {
    const [tab] = tabs as [(typeof tabs)[0]];
    expect(await tab.api.read({ kind: 'connectedAccounts' })).toEqual([]);
    await tab.api.signInWithPassword({ email: user.email, password: PASSWORD });
    await tab.subscribe('accounts', { kind: 'connectedAccounts' });
    const listed = await tab.waitFor(
      'accounts',
      (s) => ((s.data as ConnectedAccountModel[] | undefined) ?? []).length > 0,
      30_000,
    );
    expect(listed.data).toEqual([{ userId: user.userId, provider: PROVIDER, providerAccountId: user.accountId }]);
  } finally {
    close();
  }
}
