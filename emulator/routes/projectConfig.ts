import type { EmailConfig, OAuthProviderConfigInput, ProjectConfigUpdate } from '../../protocol/resources/project.js';
import { oauthProviderIds } from '../../protocol/resources/project.js';
import { systemPermissionIds } from '../../protocol/resources/team.js';
import { StatusError } from '../errors.js';
import { obj, url, yup } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';

/**
 * The project create/update body of PROTOCOL.md §4.9 and the checks the service makes after
 * schema validation. Shared by `PATCH /projects/current` and `POST /internal/projects`.
 */

const nonEmpty = <S extends yup.StringSchema<string | undefined>>(s: S) =>
  s.test('non-empty', '${path} must not be empty', (v) => v === undefined || v !== '');

/** A string that must be present and non-empty when the sibling fields equal `when`. */
function requiredWhen(when: Record<string, unknown>) {
  const keys = Object.keys(when);
  return yup
    .string()
    .when(keys, (values: unknown[], schema: yup.StringSchema<string | undefined>) =>
      keys.every((k, i) => values[i] === when[k]) ? nonEmpty(schema.defined()) : schema,
    );
}

const emailConfigSchema = obj({
  type: yup
    .string()
    .oneOf(['shared', 'standard'] as const)
    .defined(),
  host: requiredWhen({ type: 'standard' }),
  port: yup
    .number()
    .integer()
    .min(0)
    .max(65535)
    .when('type', (values: unknown[], schema: yup.NumberSchema<number | undefined>) =>
      values[0] === 'standard' ? schema.defined() : schema,
    ),
  username: requiredWhen({ type: 'standard' }),
  password: requiredWhen({ type: 'standard' }),
  sender_name: requiredWhen({ type: 'standard' }),
  sender_email: requiredWhen({ type: 'standard' }).email(),
});

/** The service dropped v2.7's `enabled`: every listed provider is on, and sending the flag is a SCHEMA_ERROR. */
const oauthProviderSchema = obj({
  id: yup
    .string()
    .oneOf([...oauthProviderIds])
    .defined(),
  type: yup
    .string()
    .oneOf(['shared', 'standard'] as const)
    .defined(),
  client_id: requiredWhen({ type: 'standard' }),
  client_secret: requiredWhen({ type: 'standard' }),
  facebook_config_id: yup.string(),
  microsoft_tenant_id: yup.string(),
  apple_bundle_ids: yup.array(yup.string().defined()),
}).defined();

const domainSchema = obj({
  domain: url()
    .defined()
    .matches(/^https?:\/\//, 'URL must start with http:// or https://'),
  handler_path: yup
    .string()
    .defined()
    .test('handler-path', 'Handler path must start with /', (v) => v === undefined || v.startsWith('/')),
}).defined();

const permissionListSchema = yup.array(obj({ id: yup.string().defined() }).defined());

const configSchema = obj({
  sign_up_enabled: yup.boolean(),
  credential_enabled: yup.boolean(),
  magic_link_enabled: yup.boolean(),
  passkey_enabled: yup.boolean(),
  client_team_creation_enabled: yup.boolean(),
  client_user_deletion_enabled: yup.boolean(),
  allow_localhost: yup.boolean(),
  create_team_on_sign_up: yup.boolean(),
  oauth_account_merge_strategy: yup.string().oneOf(['link_method', 'raise_error', 'allow_duplicates'] as const),
  email_config: emailConfigSchema,
  domains: yup.array(domainSchema),
  oauth_providers: yup.array(oauthProviderSchema),
  team_creator_default_permissions: permissionListSchema,
  team_member_default_permissions: permissionListSchema,
  user_default_permissions: permissionListSchema,
  allow_user_api_keys: yup.boolean(),
  allow_team_api_keys: yup.boolean(),
  require_email_verification: yup.boolean(),
});

/** `config.id`, `created_at_millis` and `user_count` are absent, so sending them is a SCHEMA_ERROR. */
export const projectUpdateSchema = obj({
  display_name: yup.string(),
  description: yup.string().nullable(),
  is_production_mode: yup.boolean(),
  config: configSchema,
}).defined();

export const projectCreateSchema = obj({
  display_name: yup.string().defined(),
  owner_team_id: yup.string().uuid(),
  description: yup.string().nullable(),
  is_production_mode: yup.boolean(),
  config: configSchema,
}).defined();

type ConfigInput = NonNullable<yup.InferType<typeof configSchema>>;

function toEmailConfig(input: NonNullable<ConfigInput['email_config']>): EmailConfig {
  if (input.type === 'shared') return { type: 'shared' };
  return {
    type: 'standard',
    host: input.host ?? '',
    port: input.port ?? 0,
    username: input.username ?? '',
    password: input.password ?? '',
    sender_name: input.sender_name ?? '',
    sender_email: input.sender_email ?? '',
  };
}

/** Written as given: the service keeps a shared provider's credentials too (and signs in with its own keys). */
function toProvider(input: NonNullable<ConfigInput['oauth_providers']>[number]): OAuthProviderConfigInput {
  const { id, type, client_id, client_secret, facebook_config_id, microsoft_tenant_id, apple_bundle_ids } = input;
  return {
    id,
    type,
    ...(client_id === undefined ? {} : { client_id }),
    ...(client_secret === undefined ? {} : { client_secret }),
    ...(facebook_config_id === undefined ? {} : { facebook_config_id }),
    ...(microsoft_tenant_id === undefined ? {} : { microsoft_tenant_id }),
    ...(apple_bundle_ids === undefined ? {} : { apple_bundle_ids: [...apple_bundle_ids] }),
  };
}

/** The validated body's config as the update `applyConfigUpdate` takes. */
export function toConfigUpdate(input: ConfigInput | undefined): ProjectConfigUpdate {
  if (input === undefined) return {};
  const {
    email_config,
    oauth_providers,
    domains,
    team_creator_default_permissions,
    team_member_default_permissions,
    user_default_permissions,
    ...flags
  } = input;
  const update: ProjectConfigUpdate = {};
  for (const [key, value] of Object.entries(flags)) if (value !== undefined) Object.assign(update, { [key]: value });
  if (email_config !== undefined) update.email_config = toEmailConfig(email_config);
  if (oauth_providers !== undefined) update.oauth_providers = oauth_providers.map(toProvider);
  if (domains !== undefined) update.domains = domains.map((d) => ({ domain: d.domain, handler_path: d.handler_path }));
  if (team_creator_default_permissions !== undefined)
    update.team_creator_default_permissions = team_creator_default_permissions.map((p) => ({ id: p.id }));
  if (team_member_default_permissions !== undefined)
    update.team_member_default_permissions = team_member_default_permissions.map((p) => ({ id: p.id }));
  if (user_default_permissions !== undefined)
    update.user_default_permissions = user_default_permissions.map((p) => ({ id: p.id }));
  return update;
}

/**
 * The service's checks after the schema, in its order (default permissions, e-mail, domains); the
 * OAuth provider list has none left (it replaces the old list, and shared keys are taken for any
 * provider). `existing` is the project being updated, or null for a new project, whose permission
 * definitions are the defaults `team_member` and `team_admin`.
 */
export function checkConfigUpdate(existing: ProjectRecord | null, update: ProjectConfigUpdate): void {
  const definitionIds = new Set<string>([
    ...(existing === null ? ['team_admin', 'team_member'] : Object.keys(existing.permission_definitions)),
    ...systemPermissionIds,
  ]);
  for (const list of [update.team_creator_default_permissions, update.team_member_default_permissions]) {
    if (list !== undefined && !list.every((p) => definitionIds.has(p.id)))
      throw new StatusError(400, 'Invalid team default permission ids');
  }

  if (existing !== null && update.email_config?.type === 'shared' && Object.keys(existing.email_templates).length > 0) {
    throw new StatusError(
      400,
      'Cannot change email service type to shared when custom templates are defined. Disable custom templates first, before changing the email service type.',
    );
  }

  if (update.domains !== undefined) {
    const domains = update.domains.map((d) => d.domain);
    if (new Set(domains).size !== domains.length) throw new StatusError(400, 'Duplicated domain found');
  }
}

/** Ids in an internal user's `server_metadata.managedProjectIds` (non-strings ignored). */
export function managedProjectIds(serverMetadata: unknown): string[] {
  const ids = (serverMetadata as { managedProjectIds?: unknown } | null)?.managedProjectIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
