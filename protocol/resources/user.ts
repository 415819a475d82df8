import type { Json, Millis } from './common.js';
import type { ClientTeam, ServerTeam } from './team.js';

/** A provider account linked to a user (`id` is the provider id, e.g. `github`). */
export interface LinkedOAuthProvider {
  id: string;
  account_id: string;
  email: string | null;
}

/** Why a user is restricted (the service added restricted users after v2.7). */
export interface RestrictedReason {
  type: 'anonymous' | 'email_not_verified' | 'restricted_by_administrator';
}

/** The user as a client sees itself (`GET /users/me` with access type `client`). */
export interface ClientUser {
  id: string;
  primary_email: string | null;
  primary_email_verified: boolean;
  display_name: string | null;
  profile_image_url: string | null;
  signed_up_at_millis: Millis;
  client_metadata: Json;
  client_read_only_metadata: Json;
  has_password: boolean;
  otp_auth_enabled: boolean;
  passkey_auth_enabled: boolean;
  /** Deprecated by the service: `has_password || otp_auth_enabled`. */
  auth_with_email: boolean;
  /** True iff a TOTP secret is set (the service kept the old name). */
  requires_totp_mfa: boolean;
  oauth_providers: LinkedOAuthProvider[];
  selected_team_id: string | null;
  selected_team: ClientTeam | null;
  /**
   * A guest: signed up with `signUpAnonymously` and not upgraded since (no e-mail, no way to sign in
   * again once its session is gone). Any sign-up made while signed in as it upgrades it (same id). The
   * service accepts a guest's token only on requests with `x-stack-allow-anonymous-user: true`.
   */
  is_anonymous: boolean;
  /** Signed in but held back (anonymous, e-mail not verified where the project requires it, or by an admin). */
  is_restricted: boolean;
  restricted_reason: RestrictedReason | null;
  restricted_by_admin: boolean;
  restricted_by_admin_reason: string | null;
}

/** The user as a server or admin sees it. */
export interface ServerUser extends Omit<ClientUser, 'selected_team'> {
  primary_email_auth_enabled: boolean;
  last_active_at_millis: Millis;
  server_metadata: Json;
  selected_team: ServerTeam | null;
  /** What the admin noted for themselves when restricting the user (never shown to the user). */
  restricted_by_admin_private_details: string | null;
  /** Where the user signed up from, when the service knows (ISO 3166-1 alpha-2). */
  country_code: string | null;
  /** The sign-up risk engine's scores, 0 to 100. */
  risk_scores: { sign_up: { bot: number; free_trial_abuse: number } };
}

/** `PATCH /users/me` with access type `client`. */
export interface ClientUserUpdate {
  display_name?: string | null;
  /** Clients may only send a base64 image (data URL or bare base64). */
  profile_image_url?: string | null;
  client_metadata?: Json;
  otp_auth_enabled?: boolean;
  /** Only `false` is meaningful: it removes the passkey. */
  passkey_auth_enabled?: boolean;
  /** Standard base64; non-null enables TOTP MFA, null disables it. */
  totp_secret_base64?: string | null;
  selected_team_id?: string | null;
}

/** `PATCH /users/{id}` with access type `server` or `admin`. */
export interface ServerUserUpdate extends ClientUserUpdate {
  client_read_only_metadata?: Json;
  server_metadata?: Json;
  primary_email?: string | null;
  primary_email_verified?: boolean;
  primary_email_auth_enabled?: boolean;
  /** At most 70 characters; null removes the password. Setting or removing it revokes every session. */
  password?: string | null;
  /** A bcrypt hash in Modular Crypt Format ($2a$/$2b$/$2y$, cost ≤ 16). */
  password_hash?: string;
  /** Restricts the user (`restricted_by_administrator`), or lifts it (which clears the reason and the details). */
  restricted_by_admin?: boolean;
  /** What the user is told; only beside `restricted_by_admin: true` in the same write (else a SCHEMA_ERROR). */
  restricted_by_admin_reason?: string | null;
  /** What the admin notes for themselves (server views only); only beside `restricted_by_admin: true`. */
  restricted_by_admin_private_details?: string | null;
}

/** `POST /users` (server or admin). */
export interface ServerUserCreate extends Omit<ServerUserUpdate, 'selected_team_id'> {
  oauth_providers?: Array<{ id: string; account_id: string; email?: string | null }>;
}

/** Query of `GET /users`. */
export interface ListUsersQuery {
  /** Page size, at least 1; absent returns everyone. */
  limit?: number;
  /** Id of the first user of the page (inclusive), from a previous `next_cursor`. */
  cursor?: string;
  order_by?: 'signed_up_at';
  desc?: boolean;
  /** Case-insensitive substring of display name or any contact channel, or an exact id. */
  query?: string;
  team_id?: string;
  /** Also list anonymous users (left out by default). */
  include_anonymous?: boolean;
}
