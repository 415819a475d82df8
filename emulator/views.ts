import type { ApiKeySet } from '../protocol/resources/admin.js';
import type { AccessType } from '../protocol/resources/common.js';
import type { ContactChannel } from '../protocol/resources/contactChannel.js';
import type { CreatedOwnedApiKey, OwnedApiKey } from '../protocol/resources/ownedApiKey.js';
import type { AdminProject, ClientProject } from '../protocol/resources/project.js';
import type { Session } from '../protocol/resources/session.js';
import type { ClientTeam, ServerTeam, TeamPermissionDefinition } from '../protocol/resources/team.js';
import type { ClientTeamMemberProfile, ServerTeamMemberProfile } from '../protocol/resources/teamMember.js';
import type { ClientUser, ServerUser } from '../protocol/resources/user.js';
import type {
  ApiKeyRecord,
  ContactChannelRecord,
  MembershipRecord,
  OwnedApiKeyRecord,
  PermissionDefinitionRecord,
  ProjectRecord,
  SessionRecord,
  TeamRecord,
  UserRecord,
} from './state/model.js';
import { listedProviders } from './state/projects.js';
import { restrictedReasonOf } from './state/restriction.js';
import { own } from './state/store.js';
import { primaryChannel } from './state/users.js';

/** The wire views of stored records, per access type (the client view hides server-only fields). */

export function clientTeamView(t: TeamRecord): ClientTeam {
  return {
    id: t.id,
    display_name: t.display_name,
    profile_image_url: t.profile_image_url,
    client_metadata: t.client_metadata,
    client_read_only_metadata: t.client_read_only_metadata,
  };
}

export function serverTeamView(t: TeamRecord): ServerTeam {
  return { ...clientTeamView(t), created_at_millis: t.created_at_millis, server_metadata: t.server_metadata };
}

export function teamView(t: TeamRecord, access: AccessType): ClientTeam | ServerTeam {
  return access === 'client' ? clientTeamView(t) : serverTeamView(t);
}

export function clientUserView(p: ProjectRecord, u: UserRecord): ClientUser {
  const primary = primaryChannel(p, u.id);
  const selected = u.selected_team_id === null ? undefined : own(p.teams, u.selected_team_id);
  const hasPassword = u.password_hash !== null;
  return {
    id: u.id,
    primary_email: primary?.value ?? null,
    primary_email_verified: primary?.is_verified ?? false,
    display_name: u.display_name,
    profile_image_url: u.profile_image_url,
    signed_up_at_millis: u.signed_up_at_millis,
    client_metadata: u.client_metadata,
    client_read_only_metadata: u.client_read_only_metadata,
    has_password: hasPassword,
    otp_auth_enabled: u.otp_auth_enabled,
    passkey_auth_enabled: u.passkey !== null,
    auth_with_email: hasPassword || u.otp_auth_enabled,
    requires_totp_mfa: u.totp_secret_base64 !== null,
    oauth_providers: u.oauth_accounts.map((a) => ({ id: a.provider_id, account_id: a.account_id, email: a.email })),
    selected_team_id: selected ? u.selected_team_id : null,
    selected_team: selected ? clientTeamView(selected) : null,
    ...restrictionView(p, u),
  };
}

/** Whether and why the user is restricted (state/restriction.ts), and what an administrator told them of it. */
function restrictionView(
  p: ProjectRecord,
  u: UserRecord,
): Pick<
  ClientUser,
  'is_anonymous' | 'is_restricted' | 'restricted_reason' | 'restricted_by_admin' | 'restricted_by_admin_reason'
> {
  const reason = restrictedReasonOf(p, u);
  return {
    is_anonymous: u.is_anonymous === true,
    is_restricted: reason !== null,
    restricted_reason: reason,
    restricted_by_admin: u.restricted_by_admin === true,
    restricted_by_admin_reason: u.restricted_by_admin_reason ?? null,
  };
}

export function serverUserView(p: ProjectRecord, u: UserRecord): ServerUser {
  const client = clientUserView(p, u);
  const primary = primaryChannel(p, u.id);
  const selected = client.selected_team_id === null ? undefined : own(p.teams, client.selected_team_id);
  return {
    ...client,
    primary_email_auth_enabled: primary?.used_for_auth ?? false,
    last_active_at_millis: u.last_active_at_millis ?? u.signed_up_at_millis,
    server_metadata: u.server_metadata,
    selected_team: selected ? serverTeamView(selected) : null,
    restricted_by_admin_private_details: u.restricted_by_admin_private_details ?? null,
    // The emulator has no risk engine: no risk unless the server set some.
    country_code: u.country_code ?? null,
    risk_scores: { sign_up: u.risk_scores ?? { bot: 0, free_trial_abuse: 0 } },
  };
}

export function userView(p: ProjectRecord, u: UserRecord, access: AccessType): ClientUser | ServerUser {
  return access === 'client' ? clientUserView(p, u) : serverUserView(p, u);
}

export function memberProfileView(
  p: ProjectRecord,
  m: MembershipRecord,
  access: AccessType,
): ClientTeamMemberProfile | ServerTeamMemberProfile {
  const user = own(p.users, m.user_id);
  const base: ClientTeamMemberProfile = {
    team_id: m.team_id,
    user_id: m.user_id,
    display_name: m.display_name ?? user?.display_name ?? null,
    profile_image_url: m.profile_image_url ?? user?.profile_image_url ?? null,
  };
  return access === 'client' || !user ? base : { ...base, user: serverUserView(p, user) };
}

export function contactChannelView(c: ContactChannelRecord): ContactChannel {
  return {
    id: c.id,
    user_id: c.user_id,
    type: c.type,
    value: c.value,
    is_primary: c.is_primary,
    is_verified: c.is_verified,
    used_for_auth: c.used_for_auth,
  };
}

export function sessionView(s: SessionRecord, currentSessionId: string | null): Session {
  return {
    id: s.id,
    user_id: s.user_id,
    created_at: s.created_at_millis,
    is_impersonation: s.is_impersonation,
    ...(s.last_used_at_millis === null ? {} : { last_used_at: s.last_used_at_millis }),
    is_current_session: s.id === currentSessionId,
  };
}

export function permissionDefinitionView(d: PermissionDefinitionRecord): TeamPermissionDefinition {
  return {
    id: d.id,
    ...(d.description === '' ? {} : { description: d.description }),
    contained_permission_ids: [...d.contained_permission_ids].sort(),
  };
}

export function clientProjectView(p: ProjectRecord): ClientProject {
  const c = p.config;
  return {
    id: p.id,
    display_name: p.display_name,
    config: {
      sign_up_enabled: c.sign_up_enabled,
      credential_enabled: c.credential_enabled,
      magic_link_enabled: c.magic_link_enabled,
      passkey_enabled: c.passkey_enabled,
      client_team_creation_enabled: c.client_team_creation_enabled,
      client_user_deletion_enabled: c.client_user_deletion_enabled,
      enabled_oauth_providers: listedProviders(c).map((o) => ({ id: o.id })),
      domains: c.domains.map((d) => ({ ...d })),
      allow_user_api_keys: c.allow_user_api_keys ?? false,
      allow_team_api_keys: c.allow_team_api_keys ?? false,
    },
  };
}

/** The id of the e-mail theme every project of the emulator uses (it has one theme). */
export const DEFAULT_EMAIL_THEME_ID = '00000000-0000-4000-8000-0000000e7a11';

export function adminProjectView(p: ProjectRecord): AdminProject {
  const c = p.config;
  return {
    id: p.id,
    display_name: p.display_name,
    description: p.description,
    logo_url: null,
    logo_full_url: null,
    logo_dark_mode_url: null,
    logo_full_dark_mode_url: null,
    created_at_millis: p.created_at_millis,
    is_production_mode: p.is_production_mode,
    owner_team_id: p.owner_team_id ?? null,
    onboarding_status: 'completed',
    config: {
      allow_localhost: c.allow_localhost,
      sign_up_enabled: c.sign_up_enabled,
      credential_enabled: c.credential_enabled,
      magic_link_enabled: c.magic_link_enabled,
      passkey_enabled: c.passkey_enabled,
      client_team_creation_enabled: c.client_team_creation_enabled,
      client_user_deletion_enabled: c.client_user_deletion_enabled,
      create_team_on_sign_up: c.create_team_on_sign_up,
      oauth_account_merge_strategy: c.oauth_account_merge_strategy,
      oauth_providers: listedProviders(c).map(({ enabled: _, ...o }) => ({ provider_config_id: o.id, ...o })),
      enabled_oauth_providers: listedProviders(c).map((o) => ({ id: o.id })),
      domains: c.domains.map((d) => ({ ...d })),
      email_config: { ...c.email_config },
      team_creator_default_permissions: c.team_creator_default_permissions.map((id) => ({ id })),
      team_member_default_permissions: c.team_member_default_permissions.map((id) => ({ id })),
      user_default_permissions: (c.user_default_permissions ?? []).map((id) => ({ id })),
      email_theme: DEFAULT_EMAIL_THEME_ID,
      allow_user_api_keys: c.allow_user_api_keys ?? false,
      allow_team_api_keys: c.allow_team_api_keys ?? false,
    },
  };
}

export function apiKeyView(k: ApiKeyRecord): ApiKeySet {
  return {
    id: k.id,
    description: k.description,
    created_at_millis: k.created_at_millis,
    expires_at_millis: k.expires_at_millis,
    ...(k.manually_revoked_at_millis === null ? {} : { manually_revoked_at_millis: k.manually_revoked_at_millis }),
    ...(k.publishable_client_key ? { publishable_client_key: { last_four: k.publishable_client_key.last_four } } : {}),
    ...(k.secret_server_key ? { secret_server_key: { last_four: k.secret_server_key.last_four } } : {}),
    ...(k.super_secret_admin_key ? { super_secret_admin_key: { last_four: k.super_secret_admin_key.last_four } } : {}),
  };
}

/** A user's or team's key; the whole secret only in the answer that made it (`secret`). */
export function ownedApiKeyView(k: OwnedApiKeyRecord): OwnedApiKey;
export function ownedApiKeyView(k: OwnedApiKeyRecord, secret: string): CreatedOwnedApiKey;
export function ownedApiKeyView(k: OwnedApiKeyRecord, secret?: string): OwnedApiKey | CreatedOwnedApiKey {
  const base = {
    id: k.id,
    description: k.description,
    is_public: k.is_public,
    created_at_millis: k.created_at_millis,
    ...(k.expires_at_millis === null ? {} : { expires_at_millis: k.expires_at_millis }),
    ...(k.manually_revoked_at_millis === null ? {} : { manually_revoked_at_millis: k.manually_revoked_at_millis }),
    ...(k.owner.type === 'user'
      ? { type: 'user' as const, user_id: k.owner.user_id }
      : { type: 'team' as const, team_id: k.owner.team_id }),
  };
  return secret === undefined ? { ...base, value: { last_four: k.last_four } } : { ...base, value: secret };
}
