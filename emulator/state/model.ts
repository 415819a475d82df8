import type { EmailTemplateType } from '../../protocol/resources/admin.js';
import type { Json } from '../../protocol/resources/common.js';
import type { ContactChannel } from '../../protocol/resources/contactChannel.js';
import type { AdminProjectConfig, OAuthProviderConfigInput } from '../../protocol/resources/project.js';
import type { PaymentsRecord } from './paymentsModel.js';

/**
 * The emulator's whole state: plain JSON, so a snapshot is `JSON.stringify` of it.
 * Secrets are kept hashed (passwords with scrypt, refresh tokens and API keys with SHA-256).
 */
export interface EmulatorState {
  format: 'authbroker-emulator';
  version: typeof STATE_VERSION;
  projects: Record<string, ProjectRecord>;
}

export const STATE_VERSION = 1;

export interface SigningKeyRecord {
  kid: string;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

export interface AudienceKeysRecord {
  restricted: SigningKeyRecord;
  anonymous: SigningKeyRecord;
}

/**
 * A second published key per audience, as the service publishes two (the one that signs and the one that will sign
 * after its next rotation); never used to sign here.
 */
export interface NextKeysRecord {
  normal: SigningKeyRecord;
  restricted: SigningKeyRecord;
  anonymous: SigningKeyRecord;
}

export interface ApiKeyRecord {
  id: string;
  description: string;
  created_at_millis: number;
  expires_at_millis: number;
  manually_revoked_at_millis: number | null;
  /** SHA-256 of each secret, and its last four characters for display. */
  publishable_client_key: { hash: string; last_four: string } | null;
  secret_server_key: { hash: string; last_four: string } | null;
  super_secret_admin_key: { hash: string; last_four: string } | null;
}

/**
 * A key a user or a team holds (`/user-api-keys`, `/team-api-keys`), not one of the project's key sets. Only the
 * SHA-256 of the whole key is kept, so `check` finds a key by hashing what it is given.
 */
export interface OwnedApiKeyRecord {
  id: string;
  owner: { type: 'user'; user_id: string } | { type: 'team'; team_id: string };
  description: string;
  is_public: boolean;
  created_at_millis: number;
  expires_at_millis: number | null;
  manually_revoked_at_millis: number | null;
  secret_hash: string;
  last_four: string;
}

/**
 * The admin view's config, with default permissions kept as plain ids and the enabled list derived.
 * The fields the service added after v2.7 are optional, so that data files written before them load
 * (the views fill in the service's defaults).
 */
export type ProjectConfigRecord = Omit<
  AdminProjectConfig,
  | 'oauth_providers'
  | 'enabled_oauth_providers'
  | 'team_creator_default_permissions'
  | 'team_member_default_permissions'
  | 'user_default_permissions'
  | 'email_theme'
  | 'allow_user_api_keys'
  | 'allow_team_api_keys'
> & {
  oauth_providers: OAuthProviderRecord[];
  team_creator_default_permissions: string[];
  team_member_default_permissions: string[];
  user_default_permissions?: string[];
  allow_user_api_keys?: boolean;
  allow_team_api_keys?: boolean;
  /**
   * Client access needs a publishable key (PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT); off by default, as on the
   * service.
   */
  require_publishable_client_key?: boolean;
  /** Users whose primary e-mail is not verified are restricted (`onboarding.requireEmailVerification`); off by default. */
  require_email_verification?: boolean;
};

/**
 * A configured OAuth provider. `enabled: false` comes only from data files written before the service
 * dropped the flag: such a provider is treated as left out (unlisted, no sign-in), as the service
 * treats one that does not allow sign-in.
 */
export type OAuthProviderRecord = OAuthProviderConfigInput & { enabled?: boolean };

export interface PasskeyRecord {
  credential_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  counter: number;
  transports: string[];
  created_at_millis: number;
}

export interface ProviderTokenRecord {
  access_token: string;
  refresh_token: string | null;
  scopes: string[];
  expires_at_millis: number;
}

export interface OAuthAccountRecord {
  /** Absent in data files written before accounts had ids (state/oauthAccounts.ts derives one). */
  id?: string;
  provider_id: string;
  account_id: string;
  email: string | null;
  /** Whether the account signs its user in; absent: true, the service's default. */
  allow_sign_in?: boolean;
  /** Whether the app may get provider tokens through it (connected accounts); absent: true. */
  allow_connected_accounts?: boolean;
  /** Absent in older data files, which list their accounts oldest first anyway. */
  created_at_millis?: number;
  tokens: ProviderTokenRecord[];
}

export interface UserRecord {
  id: string;
  display_name: string | null;
  profile_image_url: string | null;
  signed_up_at_millis: number;
  last_active_at_millis: number | null;
  client_metadata: Json;
  client_read_only_metadata: Json;
  server_metadata: Json;
  password_hash: string | null;
  /** Imported bcrypt hashes are kept as given; they are checked by prefix only (no bcrypt here). */
  otp_auth_enabled: boolean;
  totp_secret_base64: string | null;
  selected_team_id: string | null;
  passkey: PasskeyRecord | null;
  oauth_accounts: OAuthAccountRecord[];
  /** How the user signed up or last signed in, for metrics (`password`, `otp`, `passkey`, provider id). */
  login_methods: string[];
  /** Signed up with no way to sign in again (`/auth/anonymous/sign-up`) and not upgraded since; absent: false. */
  is_anonymous?: boolean;
  /** The country the user signed up from (ISO 3166-1 alpha-2), as the request said or the server set; absent: null. */
  country_code?: string | null;
  /** Sign-up risk scores (0–100) as the server set them; absent: both 0 (the emulator has no risk engine). */
  risk_scores?: { bot: number; free_trial_abuse: number };
  /** Restricted by an administrator (the server); absent: false, with no reason or private details. */
  restricted_by_admin?: boolean;
  /** What the user is told of it. */
  restricted_by_admin_reason?: string | null;
  /** What the admin noted for themselves (server views only). */
  restricted_by_admin_private_details?: string | null;
}

export type ContactChannelRecord = ContactChannel & { created_at_millis: number };

/** A refresh token is a session; only its hash is kept. */
export interface SessionRecord {
  id: string;
  user_id: string;
  refresh_token_hash: string;
  created_at_millis: number;
  expires_at_millis: number;
  is_impersonation: boolean;
  last_used_at_millis: number | null;
}

export interface TeamRecord {
  id: string;
  display_name: string;
  profile_image_url: string | null;
  client_metadata: Json;
  client_read_only_metadata: Json;
  server_metadata: Json;
  created_at_millis: number;
}

export interface MembershipRecord {
  team_id: string;
  user_id: string;
  display_name: string | null;
  profile_image_url: string | null;
  created_at_millis: number;
}

export interface PermissionDefinitionRecord {
  id: string;
  description: string;
  contained_permission_ids: string[];
}

export interface PermissionGrantRecord {
  team_id: string;
  user_id: string;
  permission_id: string;
}

/** A project permission granted to a user, outside any team. */
export interface ProjectPermissionGrantRecord {
  user_id: string;
  permission_id: string;
}

/** A user's choice for a notification category; without one, the category's default holds. */
export interface NotificationPreferenceRecord {
  user_id: string;
  category_id: string;
  enabled: boolean;
}

export type VerificationCodeType =
  | 'otp'
  | 'password_reset'
  | 'contact_channel_verification'
  | 'team_invitation'
  | 'mfa_attempt'
  | 'passkey_registration'
  | 'passkey_authentication';

/** A code of §7; `data` depends on the type (e.g. the e-mail and user it was sent for). */
export interface VerificationCodeRecord {
  id: string;
  type: VerificationCodeType;
  code: string;
  data: Record<string, Json>;
  created_at_millis: number;
  expires_at_millis: number;
  used_at_millis: number | null;
  attempt_count: number;
}

export interface EmailTemplateRecord {
  subject: string;
  content: Json;
}

export interface SentEmailRecord {
  id: string;
  subject: string;
  sent_at_millis: number;
  to: string[];
  error: Json | null;
  /** The sending configuration without its password (absent in records made before it existed). */
  sender_config?: {
    type: string;
    host?: string;
    port?: number;
    username?: string;
    sender_name?: string;
    sender_email?: string;
  };
}

/** One outer OAuth flow: what the client asked at authorize time, until the provider calls back. */
export interface OAuthFlowRecord {
  /** The state we gave the (mock) provider. */
  provider_state: string;
  provider_id: string;
  redirect_uri: string;
  client_state: string;
  code_challenge: string;
  code_challenge_method: 'S256' | 'plain';
  type: 'authenticate' | 'link';
  /**
   * For `link`: the user to link to; for `authenticate`: the user whose token came along (an anonymous one is upgraded
   * by a sign-up).
   */
  link_user_id: string | null;
  provider_scope: string | null;
  error_redirect_url: string | null;
  after_callback_redirect_url: string | null;
  created_at_millis: number;
  /** The outer OAuth `scope` (must be `legacy`; checked at callback time like the service). */
  scope?: string;
  /** The PKCE verifier of the inner exchange with the (mock) provider. */
  inner_code_verifier?: string;
  /** `json`: the SDK asked for the location as JSON and got no inner cookie, so the callback checks none (PKCE guards). */
  response_mode?: 'json';
}

/** An authorization code issued at the end of the callback, for the token endpoint. */
export interface AuthorizationCodeRecord {
  code_hash: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string;
  code_challenge_method: 'S256' | 'plain';
  is_new_user: boolean;
  after_callback_redirect_url: string | null;
  expires_at_millis: number;
  used: boolean;
  /** The provider the user came through, recorded as the login method at redemption. */
  provider_id?: string;
}

export interface CliLoginRecord {
  polling_code: string;
  login_code: string;
  expires_at_millis: number;
  refresh_token: string | null;
  /** The CLI's anonymous user's refresh token, until the browser claims it or completes (absent in older files). */
  anon_refresh_token?: string | null;
  status: 'waiting' | 'success' | 'used';
}

export interface ProjectRecord {
  id: string;
  display_name: string;
  description: string;
  /** The `internal` team that owns it (absent for seeded projects and older data files). */
  owner_team_id?: string | null;
  created_at_millis: number;
  is_production_mode: boolean;
  config: ProjectConfigRecord;
  /** Signs the tokens of users who are neither anonymous nor restricted (audience `<project id>`). */
  signing_key: SigningKeyRecord;
  /**
   * The keys of the other audiences, as the service has one per audience: anonymous users'
   * (`<project id>:anon`) and restricted users' (`<project id>:restricted`), published only when the
   * key set is asked for them. Data files written before them get them when loaded.
   */
  audience_keys: AudienceKeysRecord;
  /** Published beside the signing keys (absent in data files written before; added when loaded). */
  next_keys?: NextKeysRecord;
  api_keys: ApiKeyRecord[];
  users: Record<string, UserRecord>;
  contact_channels: Record<string, ContactChannelRecord>;
  sessions: Record<string, SessionRecord>;
  teams: Record<string, TeamRecord>;
  memberships: MembershipRecord[];
  permission_definitions: Record<string, PermissionDefinitionRecord>;
  permission_grants: PermissionGrantRecord[];
  verification_codes: Record<string, VerificationCodeRecord>;
  email_templates: Partial<Record<EmailTemplateType, EmailTemplateRecord>>;
  sent_emails: SentEmailRecord[];
  oauth_flows: Record<string, OAuthFlowRecord>;
  authorization_codes: Record<string, AuthorizationCodeRecord>;
  cli_logins: Record<string, CliLoginRecord>;
  /** Per-day activity for metrics: `YYYY-MM-DD` → user ids active that day. */
  activity: Record<string, string[]>;
  // Absent in snapshots written before they existed: read them through state/projectFeatures.ts.
  project_permission_definitions?: Record<string, PermissionDefinitionRecord>;
  project_permission_grants?: ProjectPermissionGrantRecord[];
  notification_preferences?: NotificationPreferenceRecord[];
  owned_api_keys?: OwnedApiKeyRecord[];
  config_overrides?: ConfigOverridesRecord;
  /** Purchases, item changes and purchase URLs (state/payments.ts); absent until the project's first. */
  payments?: PaymentsRecord;
}

export type ConfigLevel = 'project' | 'branch' | 'environment';
export type JsonObject = { [key: string]: Json };

/** The service's config overrides, per level, as written (state/configOverrides.ts). */
export interface ConfigOverridesRecord {
  project: JsonObject;
  branch: JsonObject;
  environment: JsonObject;
  /** Where the branch's config came from (`PUT …/branch` names it); `unlinked` until then. */
  branch_source: JsonObject;
}
