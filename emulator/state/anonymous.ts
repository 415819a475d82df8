import type { ProjectRecord, UserRecord } from './model.js';
import { revokeSessionsOfUser } from './sessions.js';
import { own } from './store.js';
import { addPrimaryEmail, createUser, personalTeamName, UNNAMED_PERSONAL_TEAM, type NewUser } from './users.js';

export function isAnonymous(user: UserRecord | null | undefined): user is UserRecord {
  return user?.is_anonymous === true;
}

/**
 * A sign-up, as the service does it: made while an anonymous user is signed in (its token sent
 * with the request), it turns that user into this one, keeping its id, data, teams and grants;
 * otherwise it creates a new user. Synchronous: callers hash passwords first.
 */
export function signUpOrUpgrade(p: ProjectRecord, current: UserRecord | null, input: NewUser, now: number): UserRecord {
  if (!isAnonymous(current)) return createUser(p, input, now);
  const user = current;
  delete user.is_anonymous;
  // The service dates a user's sign-up from the upgrade, not from its anonymous start.
  user.signed_up_at_millis = now;
  if (input.display_name) user.display_name = input.display_name;
  if (input.profile_image_url !== undefined && input.profile_image_url !== null)
    user.profile_image_url = input.profile_image_url;
  if (input.otp_auth_enabled === true) user.otp_auth_enabled = true;
  if (input.country_code) user.country_code = input.country_code;
  if (input.oauth_accounts) user.oauth_accounts.push(...input.oauth_accounts);
  if (input.login_method !== undefined && !user.login_methods.includes(input.login_method))
    user.login_methods.push(input.login_method);
  if (input.primary_email) {
    for (const channel of Object.values(p.contact_channels))
      if (channel.user_id === user.id && channel.is_primary) channel.is_primary = false;
    addPrimaryEmail(p, user.id, { ...input, primary_email: input.primary_email }, now);
  }
  if (input.password_hash) {
    user.password_hash = input.password_hash;
    // Setting a password ends every session of the user, the anonymous one included (as the service does).
    revokeSessionsOfUser(p, user.id);
  }
  renamePersonalTeams(p, user.id, user.display_name, input.primary_email ?? null);
  return user;
}

/** The personal team made at the anonymous sign-up gets the name it would have had. */
function renamePersonalTeams(p: ProjectRecord, userId: string, displayName: string | null, email: string | null): void {
  for (const m of p.memberships) {
    const team = m.user_id === userId ? own(p.teams, m.team_id) : undefined;
    if (team?.display_name === UNNAMED_PERSONAL_TEAM) team.display_name = personalTeamName(displayName, email);
  }
}

/**
 * The server makes an anonymous user a regular one (`is_anonymous: false`): signed up from now, its personal team named
 * after the name or e-mail given in the same update, as the service does.
 */
export function upgradeAnonymousUser(
  p: ProjectRecord,
  user: UserRecord,
  displayName: string | null,
  email: string | null,
  now: number,
): void {
  delete user.is_anonymous;
  user.signed_up_at_millis = now;
  renamePersonalTeams(p, user.id, displayName, email);
}
