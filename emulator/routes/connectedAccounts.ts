import { createKnownError } from '../../protocol/errors/create.js';
import type { ConnectedAccount } from '../../protocol/resources/connectedAccount.js';
import { mintProviderAccessToken } from '../dev/oauthProvider.js';
import { requireAccess, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest, type Reply } from '../http/types.js';
import { obj, userIdOrMe, validate, yup } from '../http/validate.js';
import { allowsConnectedAccounts } from '../state/oauthAccounts.js';
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

function accessToken(
  req: ApiRequest,
  userIdParam: string,
  providerId: string,
  scope: string | undefined,
  choice: AccountChoice = 'any-of-provider',
): Reply {
  const auth = requireAccess(req);
  const userId = resolveUserId(auth, userIdParam);
  if (auth.type === 'client' && userId !== auth.user?.id)
    throw new StatusError(403, 'Client can only access its own connected accounts');
  const p = auth.project;
  const provider = enabledProvider(p, providerId);
  if (!provider) throw createKnownError('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');
  // Shared keys belong to the service, so their tokens are never handed to the app.
  if (provider.type === 'shared') throw createKnownError('OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS');
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

  const live = accounts
    .flatMap((a) => a.tokens)
    .find((t) => t.expires_at_millis > req.now + MIN_REMAINING_MILLIS && covers(t.scopes));
  if (live) return json({ access_token: live.access_token }, 201);

  const account = accounts.find((a) => a.tokens.some((t) => t.refresh_token !== null && covers(t.scopes)));
  const refreshable = account?.tokens.find((t) => t.refresh_token !== null && covers(t.scopes));
  if (!account || !refreshable) throw createKnownError('OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
  // The provider's refresh grant: a new access token with the refresh token's scopes.
  const minted = mintProviderAccessToken(req.env, providerId, account.account_id, refreshable.scopes);
  account.tokens.push({
    access_token: minted.access_token,
    refresh_token: null,
    scopes: [...refreshable.scopes],
    expires_at_millis: minted.expires_at_millis,
  });
  // Expired tokens without a refresh token are of no further use.
  account.tokens = account.tokens.filter((t) => t.refresh_token !== null || t.expires_at_millis > req.now);
  return json({ access_token: minted.access_token }, 201);
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
