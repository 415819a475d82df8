import type { Json } from '../../protocol/resources/common.js';
import { oauthProviderIds, type OAuthProviderId } from '../../protocol/resources/project.js';
import type {
  ConfigOverridesRecord,
  JsonObject,
  OAuthProviderRecord,
  ProjectConfigRecord,
  ProjectRecord,
} from './model.js';

/**
 * The service's configuration model today: overrides at three levels (project, branch, environment), written as JSON
 * objects whose keys may be dotted paths (`"auth.oauth.providers.spotify": {…}` sets that whole subtree). The emulator
 * keeps each level's overrides as written, for `GET /internal/config`, and carries the keys it models over into the
 * project's config record, which everything else reads.
 */
export type { ConfigLevel, ConfigOverridesRecord, JsonObject } from './model.js';

export function configOverrides(p: ProjectRecord): ConfigOverridesRecord {
  return (p.config_overrides ??= { project: {}, branch: {}, environment: {}, branch_source: { type: 'unlinked' } });
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets `value` at a dotted path of `target`, replacing what was there and making the objects on the way. */
function setPath(target: JsonObject, path: string[], value: Json): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (!isJsonObject(next)) node[segment] = {};
    node = node[segment] as JsonObject;
  }
  const last = path[path.length - 1]!;
  if (value === null) delete node[last];
  else node[last] = structuredClone(value);
}

function removePath(target: JsonObject, path: string[]): void {
  let node: Json | undefined = target;
  for (const segment of path.slice(0, -1)) node = isJsonObject(node) ? node[segment] : undefined;
  if (isJsonObject(node)) delete node[path[path.length - 1]!];
}

/** Writes an override over a level's overrides, key by key, as the service merges a partial override. */
export function mergeOverride(level: JsonObject, override: JsonObject): void {
  for (const [key, value] of Object.entries(override)) setPath(level, key.split('.'), value);
}

/** Removes keys (dotted paths) from a level. */
export function resetKeys(level: JsonObject, keys: readonly string[]): void {
  for (const key of keys) removePath(level, key.split('.'));
}

function deepMerge(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = isJsonObject(value) && isJsonObject(out[key]) ? deepMerge(out[key], value) : value;
  return out;
}

/** Every leaf of an override under its full dotted path (`{"a.b": {"c": 1}}` → `a.b.c`). */
function leaves(value: Json, path: string[], out: Array<[string[], Json]>): Array<[string[], Json]> {
  if (isJsonObject(value) && Object.keys(value).length > 0)
    for (const [key, child] of Object.entries(value)) leaves(child, [...path, ...key.split('.')], out);
  else out.push([path, value]);
  return out;
}

type BooleanField =
  | 'sign_up_enabled'
  | 'credential_enabled'
  | 'magic_link_enabled'
  | 'passkey_enabled'
  | 'create_team_on_sign_up'
  | 'client_team_creation_enabled'
  | 'client_user_deletion_enabled'
  | 'allow_localhost'
  | 'allow_user_api_keys'
  | 'allow_team_api_keys'
  | 'require_publishable_client_key'
  | 'require_email_verification';

/** The configuration keys of today's service that the emulator's config record holds, by their dotted path. */
const BOOLEAN_KEYS: Readonly<Record<string, BooleanField>> = {
  'auth.allowSignUp': 'sign_up_enabled',
  'auth.password.allowSignIn': 'credential_enabled',
  'auth.otp.allowSignIn': 'magic_link_enabled',
  'auth.passkey.allowSignIn': 'passkey_enabled',
  'teams.createPersonalTeamOnSignUp': 'create_team_on_sign_up',
  'teams.allowClientTeamCreation': 'client_team_creation_enabled',
  'users.allowClientUserDeletion': 'client_user_deletion_enabled',
  'domains.allowLocalhost': 'allow_localhost',
  'apiKeys.enabled.user': 'allow_user_api_keys',
  'apiKeys.enabled.team': 'allow_team_api_keys',
  'project.requirePublishableClientKey': 'require_publishable_client_key',
  'onboarding.requireEmailVerification': 'require_email_verification',
};

function isProviderId(value: string): value is OAuthProviderId {
  return (oauthProviderIds as readonly string[]).includes(value);
}

/** A provider of the new model (`type`, `isShared`, `clientId`, …) as the emulator's config record holds it. */
function providerRecord(id: string, provider: JsonObject): OAuthProviderRecord | null {
  const type = typeof provider.type === 'string' ? provider.type : id;
  if (!isProviderId(type) || provider.allowSignIn === false) return null;
  const text = (key: string) => (typeof provider[key] === 'string' ? provider[key] : undefined);
  if (provider.isShared !== false) return { id: type, type: 'shared' };
  return {
    id: type,
    type: 'standard',
    client_id: text('clientId') ?? '',
    client_secret: text('clientSecret') ?? '',
    ...(text('facebookConfigId') === undefined ? {} : { facebook_config_id: text('facebookConfigId')! }),
    ...(text('microsoftTenantId') === undefined ? {} : { microsoft_tenant_id: text('microsoftTenantId')! }),
  };
}

/**
 * Carries the keys of an override that the config record models into it: the switches of {@link BOOLEAN_KEYS} and the
 * OAuth providers (the whole provider, as the levels now hold it, so that a partial key keeps the rest).
 */
export function applyToConfigRecord(config: ProjectConfigRecord, override: JsonObject, merged: JsonObject): void {
  const providerIds = new Set<string>();
  for (const [path, value] of leaves(override, [], [])) {
    const key = path.join('.');
    const field = BOOLEAN_KEYS[key];
    if (field !== undefined && typeof value === 'boolean') config[field] = value;
    if (key === 'auth.oauth.accountMergeStrategy' && typeof value === 'string')
      config.oauth_account_merge_strategy = value as ProjectConfigRecord['oauth_account_merge_strategy'];
    if (path[0] === 'auth' && path[1] === 'oauth' && path[2] === 'providers' && path[3] !== undefined)
      providerIds.add(path[3]);
  }
  const providers = (merged.auth as JsonObject | undefined)?.oauth;
  const configured = isJsonObject(providers) && isJsonObject(providers.providers) ? providers.providers : {};
  for (const id of providerIds) {
    const provider = configured[id];
    const record = isJsonObject(provider) ? providerRecord(id, provider) : null;
    const others = config.oauth_providers.filter((o) => o.id !== (record?.id ?? id));
    config.oauth_providers = (record === null ? others : [...others, record]).sort((a, b) => a.id.localeCompare(b.id));
  }
}

/** The levels' overrides merged, project first, as the service renders them. */
export function mergedOverrides(p: ProjectRecord): JsonObject {
  const levels = configOverrides(p);
  return deepMerge(deepMerge(levels.project, levels.branch), levels.environment);
}

/** The config record in the service's model, for `GET /internal/config`, with the levels' other keys on top. */
export function renderedConfig(p: ProjectRecord): JsonObject {
  const c = p.config;
  const providers: JsonObject = {};
  for (const o of c.oauth_providers.filter((provider) => provider.enabled !== false)) {
    providers[o.id] = {
      type: o.id,
      isShared: o.type === 'shared',
      ...(o.type === 'standard' ? { clientId: o.client_id ?? '', clientSecret: o.client_secret ?? '' } : {}),
      allowSignIn: true,
      allowConnectedAccounts: true,
    };
  }
  const fromRecord: JsonObject = {
    project: { requirePublishableClientKey: c.require_publishable_client_key === true },
    auth: {
      allowSignUp: c.sign_up_enabled,
      password: { allowSignIn: c.credential_enabled },
      otp: { allowSignIn: c.magic_link_enabled },
      passkey: { allowSignIn: c.passkey_enabled },
      oauth: { accountMergeStrategy: c.oauth_account_merge_strategy, providers },
    },
    teams: {
      createPersonalTeamOnSignUp: c.create_team_on_sign_up,
      allowClientTeamCreation: c.client_team_creation_enabled,
    },
    users: { allowClientUserDeletion: c.client_user_deletion_enabled },
    domains: { allowLocalhost: c.allow_localhost },
    apiKeys: { enabled: { user: c.allow_user_api_keys === true, team: c.allow_team_api_keys === true } },
    onboarding: { requireEmailVerification: c.require_email_verification === true },
    apps: { installed: {} },
  };
  // The record is the truth for what it holds; the levels add what it does not model (apps, …).
  return deepMerge(mergedOverrides(p), fromRecord);
}
