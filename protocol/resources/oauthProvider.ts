/**
 * A provider account linked to a user as `/oauth-providers` shows it (newer than PROTOCOL.md): the link itself, with
 * whether it signs the user in and whether the app may get provider tokens through it. A user may hold several accounts
 * of one provider; at most one of them signs in.
 */
export interface UserOAuthProvider {
  user_id: string;
  /** The link's own id (not the provider's: that is `provider_config_id`). */
  id: string;
  /** The e-mail the provider gave, when it gave one. */
  email?: string;
  /** The provider's id in the project's config, e.g. `github`. */
  provider_config_id: string;
  /** The provider's kind (`github`, `google`…). */
  type: string;
  /** Whether signing in with this provider account signs in this user. */
  allow_sign_in: boolean;
  /** Whether the app may get provider access tokens through it (it is then listed in connected accounts). */
  allow_connected_accounts: boolean;
}

/** What a server sees: the user's id at the provider too. */
export interface ServerUserOAuthProvider extends UserOAuthProvider {
  account_id: string;
}

/** `PATCH /oauth-providers/{user_id}/{id}` as a client: only the two switches. */
export interface UserOAuthProviderUpdate {
  allow_sign_in?: boolean;
  allow_connected_accounts?: boolean;
}

/** `PATCH` as a server: also the account id and e-mail. */
export interface ServerUserOAuthProviderUpdate extends UserOAuthProviderUpdate {
  account_id?: string;
  email?: string;
}

/** `POST /oauth-providers` (server only): links a provider account to a user. */
export interface UserOAuthProviderCreate {
  user_id: string;
  provider_config_id: string;
  account_id: string;
  email?: string;
  allow_sign_in: boolean;
  allow_connected_accounts: boolean;
}
