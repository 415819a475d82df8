import { createKnownError } from '../../protocol/errors/create.js';
import type { ConnectedAccount } from '../../protocol/resources/connectedAccount.js';
import { mintProviderAccessToken } from '../dev/oauthProvider.js';
import { requireAccess, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest, type Reply } from '../http/types.js';
import { obj, userIdOrMe, validate, yup } from '../http/validate.js';
import { allowsConnectedAccounts } from '../state/oauthAccounts.js';
import type { OAuthAccountRecord, ProviderTokenRecord } from '../state/model.js';
import { findUser } from '../state/users.js';
import { enabledProvider, extractScopes } from './oauth.js';

/** A stored provider token is handed out only with at least this much life left. */
const MIN_REMAINING_MILLIS = 5 * 60 * 1000;
const body = obj({ scope: yup.string() }).defined();

/**
 * Which of the user's accounts a token may come from: one provider account (it must allow connected-account use), or,
 * on the older per-provider routes, every account of the provider.
 */
type AccountChoice = { providerAccountId: string } | 'any-of-provider';

/** The provider behind a connected account's tokens: whether one is still good, and a refresh-token grant. */
interface TokenProvider {
  stillValid(accessToken: string): Promise<boolean>;
  refresh(
    accountId: string,
    token: ProviderTokenRecord,
    scope: string | undefined,
  ): Promise<{ access_token: string; refresh_token: string | null; expires_at_millis: number } | null>;
}

/**
 * The external OpenID provider when one plays the shared providers (the service's development setup, where shared keys
 * also give provider tokens); otherwise the emulator's own mock provider, whose tokens stay good and whose refresh
 * tokens do not rotate.
 */
function tokenProviderFor(req: ApiRequest, providerId: string, shared: boolean): TokenProvider {
  const external = shared ? req.env.externalOAuthProvider : null;
  if (external !== null)
    return {
      stillValid: (accessToken) => external.accessTokenIsValid(accessToken),
      refresh: async (_accountId, token, scope) => {
        const answer = await external.refresh({
          providerId,
          refreshToken: token.refresh_token ?? '',
          ...(scope === undefined ? {} : { scope }),
          now: req.now,
        });
        return answer.ok ? answer : null;
      },
    };
  return {
    stillValid: () => Promise.resolve(true),
    refresh: (accountId, token) => {
      const minted = mintProviderAccessToken(req.env, providerId, accountId, token.scopes);
      return Promise.resolve({ ...minted, refresh_token: null });
    },
  };
}

/**
 * A provider access token for the user, as the service finds one: a stored token with enough life left and the scopes
 * asked for, once the provider says it is still good (one it refuses is not tried again); else a refresh-token grant at
 * the provider with each refresh token that covers the scopes (one it refuses is dropped).
 */
async function accessToken(
  req: ApiRequest,
  userIdParam: string,
  providerId: string,
  scope: string | undefined,
  choice: AccountChoice = 'any-of-provider',
): Promise<Reply> {
  const auth = requireAccess(req);
  const userId = resolveUserId(auth, userIdParam);
  if (auth.type === 'client' && userId !== auth.user?.id)
    throw new StatusError(403, 'Client can only access its own connected accounts');
  const p = auth.project;
  const provider = enabledProvider(p, providerId);
  if (!provider) throw createKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');
  // Shared keys belong to the service, so their tokens are not handed to the app, but in its development setup, where
  // a mock OpenID provider plays them (here: an external provider, --oauth-provider-url).
  const shared = provider.type === 'shared';
  if (shared && req.env.externalOAuthProvider === null)
    throw createKnownError('OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS');
  const user = findUser(p, userId);
  if (!user) throw new StatusError(404, 'User not found');
  const accounts = user.oauth_accounts.filter(
    (a) =>
      a.provider_id === providerId &&
      (choice === 'any-of-provider' || (a.account_id === choice.providerAccountId && allowsConnectedAccounts(a))),
  );
  if (accounts.length === 0) throw createKnownError('OAUTH_CONNECTION_NOT_CONNECTED_TO_USER');
  const wanted = extractScopes(scope);
  const covers = (granted: string[]) => wanted.every((s) => granted.includes(s));
  const source = tokenProviderFor(req, providerId, shared);

  const live = accounts.flatMap((account) =>
    account.tokens.filter((t) => t.expires_at_millis > req.now + MIN_REMAINING_MILLIS && covers(t.scopes)),
  );
  for (const token of live) {
    if (await source.stillValid(token.access_token)) return json({ access_token: token.access_token }, 201);
    token.expires_at_millis = 0;
  }

  const refreshable = accounts.flatMap((account) =>
    account.tokens.filter((t) => t.refresh_token !== null && covers(t.scopes)).map((token) => ({ account, token })),
  );
  if (refreshable.length === 0) throw createKnownError('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
  for (const { account, token } of refreshable) {
    const minted = await source.refresh(account.account_id, token, scope);
    if (minted === null) {
      token.refresh_token = null;
      continue;
    }
    // A rotated refresh token replaces the old one; the new access token has the refresh token's scopes.
    if (minted.refresh_token !== null) token.refresh_token = null;
    account.tokens.push({
      access_token: minted.access_token,
      refresh_token: minted.refresh_token,
      scopes: [...token.scopes],
      expires_at_millis: minted.expires_at_millis,
    });
    pruneTokens(account, req.now);
    return json({ access_token: minted.access_token }, 201);
  }
  for (const account of accounts) pruneTokens(account, req.now);
  throw createKnownError('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
}

/** Tokens with neither a refresh token nor a live access token are of no further use. */
function pruneTokens(account: OAuthAccountRecord, now: number): void {
  account.tokens = account.tokens.filter((t) => t.refresh_token !== null || t.expires_at_millis > now);
}

/** Connected accounts (PROTOCOL.md §5.6, §6.10; the list is newer). */
export function registerConnectedAccountRoutes(router: Router): void {
  router.add('GET', '/connected-accounts/:user_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: obj({ user_id: userIdOrMe().defined() }).defined() });
    const userId = resolveUserId(auth, params.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (userId !== auth.user.id)
        throw new StatusError(403, 'Client can only list connected accounts for their own user.');
    }
    const user = findUser(auth.project, userId);
    if (!user) throw createKnownError('USER_NOT_FOUND');
    // Accounts that allow connected-account use, oldest first.
    const items: ConnectedAccount[] = user.oauth_accounts.filter(allowsConnectedAccounts).map((a) => ({
      user_id: user.id,
      provider: a.provider_id,
      provider_account_id: a.account_id,
    }));
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/connected-accounts/:user_id/:provider_id/access-token', (req) => {
    requireAccess(req);
    const { params, body: input } = validate(req, {
      params: obj({ user_id: userIdOrMe().defined(), provider_id: yup.string().defined() }).defined(),
      body,
    });
    return accessToken(req, params.user_id, params.provider_id, input.scope);
  });

  router.add('POST', '/connected-accounts/:user_id/:provider_id/:provider_account_id/access-token', (req) => {
    requireAccess(req);
    const { params, body: input } = validate(req, {
      params: obj({
        user_id: userIdOrMe().defined(),
        provider_id: yup.string().defined(),
        provider_account_id: yup.string().defined(),
      }).defined(),
      body,
    });
    return accessToken(req, params.user_id, params.provider_id, input.scope, {
      providerAccountId: params.provider_account_id,
    });
  });

  // Deprecated alias of the `me` form.
  router.add('POST', '/auth/oauth/connected-accounts/:provider_id/access-token', (req) => {
    requireAccess(req);
    const { params, body: input } = validate(req, {
      params: obj({ provider_id: yup.string().defined() }).defined(),
      body,
    });
    return accessToken(req, 'me', params.provider_id, input.scope);
  });
}
