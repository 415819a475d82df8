import { exportJWK, generateKeyPair } from 'jose';
import type { ProjectConfigUpdate } from '../../protocol/resources/project.js';
import { randomToken, sha256Hex } from '../crypto.js';
import type {
  ApiKeyRecord,
  AudienceKeysRecord,
  NextKeysRecord,
  OAuthProviderRecord,
  ProjectConfigRecord,
  ProjectRecord,
  SigningKeyRecord,
} from './model.js';

/** One ES256 key per project, as the service has; tokens stay valid across restarts with --data. */
export async function createSigningKey(): Promise<SigningKeyRecord> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomToken(12);
  return { kid, privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

/** The keys of the audiences other than the project's own (anonymous and restricted users'). */
export async function createAudienceKeys(): Promise<AudienceKeysRecord> {
  const [restricted, anonymous] = await Promise.all([createSigningKey(), createSigningKey()]);
  return { restricted, anonymous };
}

/** The second published key of each audience (see NextKeysRecord). */
export async function createNextKeys(): Promise<NextKeysRecord> {
  const [normal, restricted, anonymous] = await Promise.all([
    createSigningKey(),
    createSigningKey(),
    createSigningKey(),
  ]);
  return { normal, restricted, anonymous };
}

/**
 * Gives every project that lacks them (a data file written before they existed) its audience keys and next keys;
 * whether any did.
 */
export async function completeAudienceKeys(
  projects: Iterable<Omit<ProjectRecord, 'audience_keys'> & { audience_keys?: AudienceKeysRecord }>,
): Promise<boolean> {
  let added = false;
  for (const project of projects) {
    if (project.audience_keys === undefined) {
      project.audience_keys = await createAudienceKeys();
      added = true;
    }
    if (project.next_keys === undefined) {
      project.next_keys = await createNextKeys();
      added = true;
    }
  }
  return added;
}

/** New-project defaults (PROTOCOL.md §12.1). */
export function defaultProjectConfig(): ProjectConfigRecord {
  return {
    allow_localhost: true,
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: false,
    passkey_enabled: false,
    client_team_creation_enabled: false,
    client_user_deletion_enabled: false,
    create_team_on_sign_up: false,
    oauth_account_merge_strategy: 'link_method',
    oauth_providers: [],
    domains: [],
    email_config: { type: 'shared' },
    team_creator_default_permissions: ['team_admin'],
    team_member_default_permissions: ['team_member'],
    user_default_permissions: [],
    allow_user_api_keys: false,
    allow_team_api_keys: false,
    require_publishable_client_key: false,
  };
}

export interface NewProject {
  id?: string;
  display_name: string;
  description?: string | null | undefined;
  is_production_mode?: boolean | undefined;
  config?: ProjectConfigUpdate | undefined;
  /** The `internal` project has no member/admin definitions (PROTOCOL.md §12.2). */
  withDefaultPermissions?: boolean;
}

export async function createProjectRecord(input: NewProject, now: number): Promise<ProjectRecord> {
  const config = defaultProjectConfig();
  const withDefaults = input.withDefaultPermissions ?? true;
  if (!withDefaults) {
    config.team_creator_default_permissions = [];
    config.team_member_default_permissions = [];
  }
  applyConfigUpdate(config, input.config ?? {});
  return {
    id: input.id ?? crypto.randomUUID(),
    display_name: input.display_name,
    description: input.description ?? '',
    created_at_millis: now,
    is_production_mode: input.is_production_mode ?? false,
    config,
    signing_key: await createSigningKey(),
    audience_keys: await createAudienceKeys(),
    next_keys: await createNextKeys(),
    api_keys: [],
    users: {},
    contact_channels: {},
    sessions: {},
    teams: {},
    memberships: [],
    permission_definitions: withDefaults
      ? {
          team_admin: {
            id: 'team_admin',
            description: 'Default permission for team admins',
            contained_permission_ids: [
              '$delete_team',
              '$invite_members',
              '$manage_api_keys',
              '$read_members',
              '$remove_members',
              '$update_team',
            ],
          },
          team_member: {
            id: 'team_member',
            description: 'Default permission for team members',
            contained_permission_ids: ['$invite_members', '$read_members'],
          },
        }
      : {},
    permission_grants: [],
    verification_codes: {},
    email_templates: {},
    sent_emails: [],
    oauth_flows: {},
    authorization_codes: {},
    cli_logins: {},
    activity: {},
    project_permission_definitions: {},
    project_permission_grants: [],
    notification_preferences: [],
  };
}

/** The providers a project offers (every one written since the service dropped `enabled`). */
export function listedProviders(c: ProjectConfigRecord): OAuthProviderRecord[] {
  return c.oauth_providers.filter((o) => o.enabled !== false);
}

/** Applies the writable config fields (validation is the route's job). Lists replace lists. */
export function applyConfigUpdate(config: ProjectConfigRecord, update: ProjectConfigUpdate): void {
  const booleans = [
    'sign_up_enabled',
    'credential_enabled',
    'magic_link_enabled',
    'passkey_enabled',
    'client_team_creation_enabled',
    'client_user_deletion_enabled',
    'allow_localhost',
    'create_team_on_sign_up',
    'allow_user_api_keys',
    'allow_team_api_keys',
    'require_email_verification',
  ] as const;
  for (const key of booleans) {
    const value = update[key];
    if (value !== undefined) config[key] = value;
  }
  if (update.oauth_account_merge_strategy !== undefined)
    config.oauth_account_merge_strategy = update.oauth_account_merge_strategy;
  if (update.email_config !== undefined) config.email_config = update.email_config;
  if (update.domains !== undefined)
    config.domains = update.domains.map((d) => ({ domain: d.domain, handler_path: d.handler_path }));
  if (update.oauth_providers !== undefined) {
    // Keyed by id, as the service's configuration is: of two entries with one id, the later wins.
    const byId = new Map(update.oauth_providers.map((o) => [o.id, { ...o }] as const));
    config.oauth_providers = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
  if (update.team_creator_default_permissions !== undefined) {
    config.team_creator_default_permissions = update.team_creator_default_permissions.map((p) => p.id).sort();
  }
  if (update.team_member_default_permissions !== undefined) {
    config.team_member_default_permissions = update.team_member_default_permissions.map((p) => p.id).sort();
  }
  if (update.user_default_permissions !== undefined) {
    config.user_default_permissions = update.user_default_permissions.map((p) => p.id).sort();
  }
}

export type KeyKind = 'publishable_client_key' | 'secret_server_key' | 'super_secret_admin_key';
export const keyPrefixes: Record<KeyKind, string> = {
  publishable_client_key: 'pck_',
  secret_server_key: 'ssk_',
  super_secret_admin_key: 'sak_',
};

export function newKeySecret(kind: KeyKind): string {
  return `${keyPrefixes[kind]}${randomToken()}`;
}

/** Stores a key set; only hashes and last four characters are kept. */
export function createApiKeyRecord(
  input: { description: string; expires_at_millis: number; secrets: Partial<Record<KeyKind, string>> },
  now: number,
): ApiKeyRecord {
  const hashed = (secret: string | undefined) =>
    secret === undefined ? null : { hash: sha256Hex(secret), last_four: secret.slice(-4) };
  return {
    id: crypto.randomUUID(),
    description: input.description,
    created_at_millis: now,
    expires_at_millis: input.expires_at_millis,
    manually_revoked_at_millis: null,
    publishable_client_key: hashed(input.secrets.publishable_client_key),
    secret_server_key: hashed(input.secrets.secret_server_key),
    super_secret_admin_key: hashed(input.secrets.super_secret_admin_key),
  };
}
