/** A third-party provider access token (`POST /connected-accounts/{user_id}/{provider_id}/access-token`). */
export interface ConnectedAccountAccessToken {
  access_token: string;
}
