import { requireSegment, requireString, requireUserId, seg } from '../args.js';
import type { ListResponse } from '../resources/common.js';
import type { ConnectedAccount, ConnectedAccountAccessToken } from '../resources/connectedAccount.js';
import type { Transport } from '../transport.js';

/**
 * A provider access token for a linked account, covering `scope` (space-separated) when given.
 * OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE means: link again with those provider scopes.
 */
export function getConnectedAccountAccessToken(
  t: Transport,
  userId: string,
  providerId: string,
  options: { scope?: string } = {},
): Promise<ConnectedAccountAccessToken> {
  const body = options.scope === undefined ? {} : { scope: requireString(options.scope, 'scope') };
  return t.request({
    method: 'POST',
    path: `/connected-accounts/${seg(requireUserId(userId))}/${seg(requireSegment(providerId, 'providerId').toLowerCase())}/access-token`,
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
