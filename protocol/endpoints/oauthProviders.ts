import { requireBoolean, requireNonEmptyString, requireObject, requireUserId, requireUuid, seg } from '../args.js';
import type { AccessType, ListResponse, SuccessResponse } from '../resources/common.js';
import type {
  ServerUserOAuthProvider,
  ServerUserOAuthProviderUpdate,
  UserOAuthProvider,
  UserOAuthProviderCreate,
  UserOAuthProviderUpdate,
} from '../resources/oauthProvider.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/** What an access type sees of a user's OAuth provider: a server also sees the account id at the provider. */
export type UserOAuthProviderFor<A extends AccessType> = A extends 'client'
  ? UserOAuthProvider
  : ServerUserOAuthProvider;

function path(userId: string, id: string): string {
  return `/oauth-providers/${seg(requireUserId(userId))}/${requireUuid(id, 'id')}`;
}

/** The switches an update may carry, checked for their type (anything else is the service's to refuse). */
function checkedUpdate<U extends UserOAuthProviderUpdate>(update: U): U {
  const body = requireObject(update, 'update') as U;
  if (body.allow_sign_in !== undefined) requireBoolean(body.allow_sign_in, 'allow_sign_in');
  if (body.allow_connected_accounts !== undefined)
    requireBoolean(body.allow_connected_accounts, 'allow_connected_accounts');
  return body;
}

/**
 * A user's OAuth providers (their linked provider accounts), oldest first. Clients: only their own (`me`); a server
 * may leave `userId` out for every user's.
 */
export async function listOAuthProviders<A extends AccessType>(
  t: Transport<A>,
  userId?: string,
): Promise<UserOAuthProviderFor<A>[]> {
  const query = userId === undefined ? {} : { user_id: requireUserId(userId) };
  return (await t.request<ListResponse<UserOAuthProviderFor<A>>>({ method: 'GET', path: '/oauth-providers', query }))
    .items;
}

/** One of a user's OAuth providers by its id. */
export function getOAuthProvider<A extends AccessType>(
  t: Transport<A>,
  userId: string,
  id: string,
): Promise<UserOAuthProviderFor<A>> {
  return t.request({ method: 'GET', path: path(userId, id) });
}

/**
 * Lets an account sign the user in or not, and give the app provider tokens or not. A user signs in with at most one
 * account per provider, and a provider account signs in one user only (OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN).
 */
export function updateOAuthProvider<A extends AccessType>(
  t: Transport<A>,
  userId: string,
  id: string,
  update: A extends 'client' ? UserOAuthProviderUpdate : ServerUserOAuthProviderUpdate,
): Promise<UserOAuthProviderFor<A>> {
  return t.request({ method: 'PATCH', path: path(userId, id), body: checkedUpdate(update) });
}

/** Unlinks a provider account from the user (its tokens go with it). */
export function deleteOAuthProvider(t: Transport, userId: string, id: string): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: path(userId, id) });
}

/** Links a provider account to a user without an OAuth flow (server only), e.g. a second account of one provider. */
export function createOAuthProvider(
  t: Transport<ServerAccess>,
  input: UserOAuthProviderCreate,
): Promise<ServerUserOAuthProvider> {
  const body = requireObject(input, 'input') as unknown as UserOAuthProviderCreate;
  requireUserId(body.user_id, 'user_id');
  requireNonEmptyString(body.provider_config_id, 'provider_config_id');
  requireNonEmptyString(body.account_id, 'account_id');
  requireBoolean(body.allow_sign_in, 'allow_sign_in');
  requireBoolean(body.allow_connected_accounts, 'allow_connected_accounts');
  return t.request({ method: 'POST', path: '/oauth-providers', body });
}
