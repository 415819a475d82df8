/** A third-party provider access token (`POST /connected-accounts/{user_id}/{provider_id}/access-token`). */
export interface ConnectedAccountAccessToken {
  access_token: string;
}

/**
 * A provider account linked to a user that the app may get provider tokens for
 * (`GET /connected-accounts/{user_id}` item: linked accounts with connected-account use allowed).
 */
export interface ConnectedAccount {
  user_id: string;
  /** The provider's id in the project's config, e.g. `github`. */
  provider: string;
  /** The user's id at the provider. */
  provider_account_id: string;
}
