import type { Millis } from './common.js';

/** The OAuth providers the service knows. */
export const oauthProviderIds = [
  'google',
  'github',
  'microsoft',
  'spotify',
  'facebook',
  'discord',
  'gitlab',
  'bitbucket',
  'linkedin',
  'apple',
  'x',
  'twitch',
] as const;
/** One of {@link oauthProviderIds}. */
export type OAuthProviderId = (typeof oauthProviderIds)[number];
/** Providers for which the service has shared development keys. */
export const sharedOAuthProviderIds = ['google', 'github', 'microsoft', 'spotify'] as const;

/**
 * What a client sees of the project (`GET /projects/current`, every access type since the service moved the admin
 * view).
 */
export interface ClientProject {
  id: string;
  display_name: string;
  config: {
    sign_up_enabled: boolean;
    credential_enabled: boolean;
    magic_link_enabled: boolean;
    passkey_enabled: boolean;
    client_team_creation_enabled: boolean;
    client_user_deletion_enabled: boolean;
    enabled_oauth_providers: Array<{ id: string }>;
    /** Added after v2.7: the trusted domains, and whether users and teams may make API keys. */
    domains: TrustedDomain[];
    allow_user_api_keys: boolean;
    allow_team_api_keys: boolean;
  };
}

/**
 * One OAuth provider as the project's admin view lists it. Every listed provider is on: the service
 * dropped v2.7's `enabled` (a provider is turned off by leaving it out of the list).
 */
export interface OAuthProviderConfig {
  /** The provider's entry in the project's configuration (its `id` for providers written through this API). */
  provider_config_id: string;
  id: string;
  type: 'shared' | 'standard';
  /** Needed (non-empty) for `standard`; kept as given for `shared`. */
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  apple_bundle_ids?: string[];
}

/** One OAuth provider as an update writes it (`enabled` is refused: SCHEMA_ERROR). */
export type OAuthProviderConfigInput = Omit<OAuthProviderConfig, 'provider_config_id'>;

/** How a project sends e-mail: the service's shared sender, or its own SMTP server. */
export type EmailConfig =
  | { type: 'shared' }
  | {
      type: 'standard';
      host: string;
      port: number;
      username: string;
      password: string;
      sender_name: string;
      sender_email: string;
    };

/** A trusted domain: a URL starting with http:// or https://, and the app's handler path. */
export interface TrustedDomain {
  domain: string;
  handler_path: string;
}

/**
 * What happens when an OAuth sign-in's e-mail belongs to an existing user: link the method to them, refuse, or
 * make a second user.
 */
export type OAuthAccountMergeStrategy = 'link_method' | 'raise_error' | 'allow_duplicates';

/** The admin view's config (no `id` since the service moved to config overrides). */
export interface AdminProjectConfig {
  allow_localhost: boolean;
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  create_team_on_sign_up: boolean;
  oauth_account_merge_strategy: OAuthAccountMergeStrategy;
  oauth_providers: OAuthProviderConfig[];
  enabled_oauth_providers: Array<{ id: string }>;
  domains: TrustedDomain[];
  email_config: EmailConfig;
  team_creator_default_permissions: Array<{ id: string }>;
  team_member_default_permissions: Array<{ id: string }>;
  /** Permissions every user of the project has (project permissions). */
  user_default_permissions: Array<{ id: string }>;
  /** The id of the e-mail theme the project's e-mails use. */
  email_theme: string;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
}

/**
 * The admin view (`GET/PATCH /internal/projects/current` with `admin`, `/internal/projects`). The
 * service no longer sends v2.7's `user_count` (the official 2.7 admin client's project read fails on it).
 */
export interface AdminProject {
  id: string;
  display_name: string;
  description: string;
  logo_url: string | null;
  logo_full_url: string | null;
  logo_dark_mode_url: string | null;
  logo_full_dark_mode_url: string | null;
  created_at_millis: Millis;
  is_production_mode: boolean;
  /** The `internal` team that owns the project. */
  owner_team_id: string | null;
  onboarding_status: string;
  config: AdminProjectConfig;
}

/** What may change in a project's configuration. */
export interface ProjectConfigUpdate {
  sign_up_enabled?: boolean;
  credential_enabled?: boolean;
  magic_link_enabled?: boolean;
  passkey_enabled?: boolean;
  client_team_creation_enabled?: boolean;
  client_user_deletion_enabled?: boolean;
  allow_localhost?: boolean;
  create_team_on_sign_up?: boolean;
  oauth_account_merge_strategy?: OAuthAccountMergeStrategy;
  email_config?: EmailConfig;
  /** Replaces the whole list. */
  domains?: TrustedDomain[];
  /** Replaces the whole list: a provider left out is turned off (the later of two with one id wins). */
  oauth_providers?: OAuthProviderConfigInput[];
  team_creator_default_permissions?: Array<{ id: string }>;
  team_member_default_permissions?: Array<{ id: string }>;
  user_default_permissions?: Array<{ id: string }>;
  allow_user_api_keys?: boolean;
  allow_team_api_keys?: boolean;
  /**
   * Users whose primary e-mail is not verified are restricted (`restricted_reason: email_not_verified`) until they
   * verify it. Written here; the service's admin view does not show it back.
   */
  require_email_verification?: boolean;
}

/** `PATCH /internal/projects/current` (admin). */
export interface ProjectUpdate {
  display_name?: string;
  description?: string | null;
  is_production_mode?: boolean;
  config?: ProjectConfigUpdate;
}

/** `POST /internal/projects`. */
export interface ProjectCreate extends ProjectUpdate {
  display_name: string;
  /** The `internal` team that will own it (the creator's selected team on the dashboard). */
  owner_team_id?: string;
}
