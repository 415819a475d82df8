import { requireSegment, requireString, requireUserId, seg } from '../args.js';
import type { ListResponse } from '../resources/common.js';
import type { ConnectedAccount, ConnectedAccountAccessToken } from '../resources/connectedAccount.js';
import type { Transport } from '../transport.js';

/**
 * A provider access token for a linked account, covering `scope` (space-separated) when given.
 * OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE means: link again with those provider scopes. With
 * `providerAccountId`, the token of that one account (a user may link several accounts of a provider), which must
 * allow connected-account use; without it, of any of the provider's accounts.
 */
export function getConnectedAccountAccessToken(
  t: Transport,
  userId: string,
  providerId: string,
  options: { scope?: string; providerAccountId?: string } = {},
): Promise<ConnectedAccountAccessToken> {
  const body = options.scope === undefined ? {} : { scope: requireString(options.scope, 'scope') };
  const account =
    options.providerAccountId === undefined
      ? ''
      : `/${seg(requireSegment(options.providerAccountId, 'providerAccountId'))}`;
  return t.request({
    method: 'POST',
    path: `/connected-accounts/${seg(requireUserId(userId))}/${seg(requireSegment(providerId, 'providerId').toLowerCase())}${account}/access-token`,
    body,
  });
}

/** The user's linked provider accounts that allow connected-account use (clients: only `me`). */
export async function listConnectedAccounts(t: Transport, userId: string): Promise<ConnectedAccount[]> {
  return (
    await t.request<ListResponse<ConnectedAccount>>({
      method: 'GET',
      path: `/connected-accounts/${seg(requireUserId(userId))}`,
    })
  ).items;
}
