import type { Json } from '../../protocol/resources/common.js';
import type { ContactChannelRecord, ProjectRecord, UserRecord } from './model.js';
import { own } from './store.js';
import { forgetUserInProjectFeatures, projectPermissionGrants } from './projectFeatures.js';
import { addMember, createTeamRecord } from './teams.js';

export function findUser(p: ProjectRecord, userId: string): UserRecord | undefined {
  return own(p.users, userId);
}

export function sameEmail(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The user's channels in creation order. */
export function channelsOf(p: ProjectRecord, userId: string): ContactChannelRecord[] {
  return Object.values(p.contact_channels)
    .filter((c) => c.user_id === userId)
    .sort((a, b) => a.created_at_millis - b.created_at_millis);
}

export function primaryChannel(p: ProjectRecord, userId: string): ContactChannelRecord | undefined {
  return channelsOf(p, userId).find((c) => c.is_primary && c.type === 'email');
}

/** The channel that lets someone sign in with this e-mail, if any (used_for_auth is unique per value). */
export function authChannelByEmail(p: ProjectRecord, email: string): ContactChannelRecord | undefined {
  return Object.values(p.contact_channels).find(
    (c) => c.used_for_auth && c.type === 'email' && sameEmail(c.value, email),
  );
}

export interface NewUser {
  display_name?: string | null;
  profile_image_url?: string | null;
  client_metadata?: Json;
  client_read_only_metadata?: Json;
  server_metadata?: Json;
  primary_email?: string | null;
  primary_email_verified?: boolean;
  primary_email_auth_enabled?: boolean;
  password_hash?: string | null;
  otp_auth_enabled?: boolean;
  totp_secret_base64?: string | null;
  oauth_accounts?: UserRecord['oauth_accounts'];
  login_method?: string;
  is_anonymous?: boolean;
  country_code?: string | null;
  risk_scores?: { bot: number; free_trial_abuse: number };
}

/** A personal team's name when its user has neither a name nor an e-mail. */
export const UNNAMED_PERSONAL_TEAM = 'Personal Team';

/** The name of the team made for a user at sign-up (`create_team_on_sign_up`). */
export function personalTeamName(displayName: string | null, primaryEmail: string | null): string {
  const name = displayName || primaryEmail;
  return name ? `${name}'s Team` : UNNAMED_PERSONAL_TEAM;
}

/** Adds the user's primary e-mail channel, as a sign-up gives it (the user has none yet). */
export function addPrimaryEmail(
  p: ProjectRecord,
  userId: string,
  input: Pick<NewUser, 'primary_email' | 'primary_email_verified' | 'primary_email_auth_enabled'> & {
    primary_email: string;
  },
  now: number,
): void {
  const channel: ContactChannelRecord = {
    id: crypto.randomUUID(),
    user_id: userId,
    type: 'email',
    value: input.primary_email,
    is_primary: true,
    is_verified: input.primary_email_verified ?? false,
    used_for_auth: input.primary_email_auth_enabled ?? false,
    created_at_millis: now,
  };
  p.contact_channels[channel.id] = channel;
}

/** Creates the user, its primary e-mail channel and, when the project says so, a personal team. */
export function createUser(p: ProjectRecord, input: NewUser, now: number): UserRecord {
  const user: UserRecord = {
    id: crypto.randomUUID(),
    display_name: input.display_name === '' ? null : (input.display_name ?? null),
    profile_image_url: input.profile_image_url ?? null,
    signed_up_at_millis: now,
    last_active_at_millis: null,
    client_metadata: input.client_metadata ?? null,
    client_read_only_metadata: input.client_read_only_metadata ?? null,
    server_metadata: input.server_metadata ?? null,
    password_hash: input.password_hash ?? null,
    otp_auth_enabled: input.otp_auth_enabled ?? false,
    totp_secret_base64: input.totp_secret_base64 ?? null,
    selected_team_id: null,
    passkey: null,
    oauth_accounts: input.oauth_accounts ?? [],
    login_methods: input.login_method === undefined ? [] : [input.login_method],
    ...(input.is_anonymous === true ? { is_anonymous: true } : {}),
    ...(input.country_code ? { country_code: input.country_code } : {}),
    ...(input.risk_scores ? { risk_scores: { ...input.risk_scores } } : {}),
  };
  p.users[user.id] = user;
  if (input.primary_email) addPrimaryEmail(p, user.id, { ...input, primary_email: input.primary_email }, now);
  // The project's default project permissions, granted to every new user as the service grants them.
  for (const permission_id of p.config.user_default_permissions ?? [])
    projectPermissionGrants(p).push({ user_id: user.id, permission_id });
  if (p.config.create_team_on_sign_up) {
    const team = createTeamRecord(
      p,
      { display_name: personalTeamName(user.display_name, input.primary_email ?? null) },
      now,
    );
    addMember(p, team.id, user.id, 'creator', now);
    // The service selects the new team, so the user starts with one (its dashboard relies on it).
    user.selected_team_id = team.id;
  }
  return user;
}

/** Removes the user with its sessions, memberships, grants and channels. */
export function deleteUser(p: ProjectRecord, userId: string): void {
  delete p.users[userId];
  for (const [id, channel] of Object.entries(p.contact_channels))
    if (channel.user_id === userId) delete p.contact_channels[id];
  for (const [id, session] of Object.entries(p.sessions)) if (session.user_id === userId) delete p.sessions[id];
  p.memberships = p.memberships.filter((m) => m.user_id !== userId);
  p.permission_grants = p.permission_grants.filter((g) => g.user_id !== userId);
  forgetUserInProjectFeatures(p, userId);
}

/** Marks activity for `last_active_at_millis` and the metrics' daily active users. */
export function recordActivity(p: ProjectRecord, user: UserRecord, now: number): void {
  user.last_active_at_millis = now;
  const day = new Date(now).toISOString().slice(0, 10);
  const active = (p.activity[day] ??= []);
  if (!active.includes(user.id)) active.push(user.id);
}
