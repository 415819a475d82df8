import type { Json } from './common.js';

/** The rp id the service puts in passkey options; the tab replaces it with its own hostname. */
export const PASSKEY_RP_ID_PLACEHOLDER = 'THIS_VALUE_WILL_BE_REPLACED.example.com';

/** `POST /auth/passkey/initiate-passkey-registration`. `options_json` is WebAuthn creation options JSON. */
export interface PasskeyRegistrationOptions {
  options_json: { rp: { id: string; name: string }; challenge: string; [key: string]: Json };
  code: string;
}

/** `POST /auth/passkey/initiate-passkey-authentication`. */
export interface PasskeyAuthenticationOptions {
  options_json: { rpId: string; challenge: string; [key: string]: Json };
  code: string;
}

/** `POST /auth/passkey/register` */
export interface PasskeyRegistered {
  user_handle: string;
}
