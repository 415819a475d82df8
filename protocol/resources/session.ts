import type { Millis } from './common.js';

/** `GET /auth/sessions` item. Note: no `_millis` suffix, and a camelCase geo object. */
export interface Session {
  id: string;
  user_id: string;
  created_at: Millis;
  is_impersonation: boolean;
  last_used_at?: Millis;
  is_current_session: boolean;
  last_used_at_end_user_ip_info?: {
    ip: string;
    countryCode?: string;
    regionCode?: string;
    cityName?: string;
    latitude?: number;
    longitude?: number;
    tzIdentifier?: string;
  };
}

/** A fresh pair of tokens; the refresh token starts a new session. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** `POST /auth/password/sign-up` and `/sign-in`. */
export interface PasswordAuthResponse extends TokenPair {
  user_id: string;
}

/** The shared sign-in response of OTP, MFA and passkey sign-in. */
export interface SignInResponse extends TokenPair {
  is_new_user: boolean;
  user_id: string;
}

/** `POST /auth/sessions` (server/admin). */
export interface SessionCreate {
  user_id: string;
  /** At most 367 days (31708800000); default one year. */
  expires_in_millis?: number;
  is_impersonation?: boolean;
}

/** The token endpoint's authorization-code grant, after oauth4webapi has checked it. */
export interface AuthorizationCodeTokens extends TokenPair {
  is_new_user: boolean;
  after_callback_redirect_url: string | null;
}

/** `POST /auth/otp/send-sign-in-code`: the 39 characters that follow the typed 6-character OTP. */
export interface OtpSent {
  nonce: string;
}

/** `POST /auth/cli` */
export interface CliLoginStarted {
  polling_code: string;
  login_code: string;
  /** ISO-8601 */
  expires_at: string;
}

/** Where a CLI sign-in stands: still waiting, over, or done with its refresh token. */
export type CliPollResult = { status: 'waiting' | 'expired' | 'used' } | { status: 'success'; refresh_token: string };

/** `POST /auth/cli/complete` with `mode: 'check'`: whether the CLI started with an anonymous user of its own. */
export interface CliLoginCheck {
  cli_session_state: 'anonymous' | 'none';
}

/** `POST /auth/cli/complete` with `mode: 'claim-anon-session'`: the CLI's anonymous user's session. */
export interface CliAnonymousSession {
  access_token: string;
  refresh_token: string;
}
