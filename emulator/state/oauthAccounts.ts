import { createHash } from 'node:crypto';
import type { OAuthAccountRecord, ProjectRecord, UserRecord } from './model.js';

/**
 * A user's linked provider accounts as the service keeps them (its `ProjectUserOAuthAccount`): each has an id of its
 * own, and says whether it signs the user in and whether the app may get provider tokens through it. A user may hold
 * several accounts of one provider, of which at most one signs in (the service's rule, checked where they change).
 */

/**
 * An account's id. Accounts of data files written before ids existed get one derived from who they are, so that it
 * stays the same from one request to the next without a migration; any change to an account writes its id down first.
 */
export function oauthAccountId(user: UserRecord, account: OAuthAccountRecord): string {
  if (account.id !== undefined) return account.id;
  const hex = createHash('sha256')
    .update(`${user.id}\u0000${account.provider_id}\u0000${account.account_id}`)
    .digest('hex');
  // A version-4-shaped UUID, as the service's ids are (its schema checks the shape).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Absent flags are the service's defaults: every account signs in and serves provider tokens. */
export const allowsSignIn = (account: OAuthAccountRecord): boolean => account.allow_sign_in !== false;
export const allowsConnectedAccounts = (account: OAuthAccountRecord): boolean =>
  account.allow_connected_accounts !== false;

/** A new account record (a sign-up, a link, the server adding one). */
export function newOAuthAccount(
  input: Pick<OAuthAccountRecord, 'provider_id' | 'account_id' | 'email'> &
    Partial<Pick<OAuthAccountRecord, 'allow_sign_in' | 'allow_connected_accounts'>>,
  now: number,
): OAuthAccountRecord {
  return {
    id: crypto.randomUUID(),
    provider_id: input.provider_id,
    account_id: input.account_id,
    email: input.email,
    allow_sign_in: input.allow_sign_in ?? true,
    allow_connected_accounts: input.allow_connected_accounts ?? true,
    created_at_millis: now,
    tokens: [],
  };
}

/** The user's account with this id. */
export function findOAuthAccount(user: UserRecord, id: string): OAuthAccountRecord | undefined {
  return user.oauth_accounts.find((a) => oauthAccountId(user, a) === id);
}

/** The account of the project that signs in as this provider account, with its user. */
export function signInAccount(
  p: ProjectRecord,
  providerId: string,
  accountId: string,
): { user: UserRecord; account: OAuthAccountRecord } | undefined {
  for (const user of Object.values(p.users)) {
    const account = user.oauth_accounts.find(
      (a) => a.provider_id === providerId && a.account_id === accountId && allowsSignIn(a),
    );
    if (account) return { user, account };
  }
  return undefined;
}
