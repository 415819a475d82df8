/** What an OAuth provider (the emulator's own or an external one) hands over at the callback. */

/** A provider account as the provider describes it. */
export interface MockAccount {
  account_id: string;
  email: string;
  email_verified: boolean;
  display_name: string | null;
  profile_image_url: string | null;
}

/** What the provider hands over for a code: the account, tokens and the scopes granted. */
export interface ProviderGrant {
  account: MockAccount;
  access_token: string;
  refresh_token: string;
  scopes: string[];
  expires_at_millis: number;
}
