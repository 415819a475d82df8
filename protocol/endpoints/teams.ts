import { requireNonEmptyString, requireObject, requireUserId, requireUuid, seg } from '../args.js';
import type { AccessType, ListResponse, SuccessResponse } from '../resources/common.js';
import type { ClientTeamCreate, ClientTeamUpdate, ServerTeamCreate, ServerTeamUpdate } from '../resources/team.js';
import type { TeamMemberProfileUpdate, TeamMembership } from '../resources/teamMember.js';
import type { ServerAccess, TeamFor, TeamMemberProfileFor } from '../resources/views.js';
import type { Transport } from '../transport.js';

/** Teams of a user (clients: only `me`); a server without `userId` lists every team. */
export async function listTeams<A extends AccessType>(
  t: Transport<A>,
  options: { userId?: string } = {},
): Promise<TeamFor<A>[]> {
  const user_id = options.userId === undefined ? undefined : requireUserId(options.userId);
  return (await t.request<ListResponse<TeamFor<A>>>({ method: 'GET', path: '/teams', query: { user_id } })).items;
}

/** Clients create teams as themselves and need client_team_creation_enabled. */
export function createTeam<A extends AccessType>(
  t: Transport<A>,
  input: A extends 'client' ? ClientTeamCreate : ServerTeamCreate,
): Promise<TeamFor<A>> {
  const body = requireObject(input, 'input');
  requireNonEmptyString(body.display_name, 'display_name');
  if (body.creator_user_id !== undefined) requireUserId(body.creator_user_id, 'creator_user_id');
  return t.request({ method: 'POST', path: '/teams', body });
}

/** One team by id. */
export function getTeam<A extends AccessType>(t: Transport<A>, teamId: string): Promise<TeamFor<A>> {
  return t.request({ method: 'GET', path: `/teams/${requireUuid(teamId, 'teamId')}` });
}

/** Clients need `$update_team`. */
export function updateTeam<A extends AccessType>(
  t: Transport<A>,
  teamId: string,
  update: A extends 'client' ? ClientTeamUpdate : ServerTeamUpdate,
): Promise<TeamFor<A>> {
  return t.request({
    method: 'PATCH',
    path: `/teams/${requireUuid(teamId, 'teamId')}`,
    body: requireObject(update, 'update'),
  });
}

/** Clients need `$delete_team`. */
export function deleteTeam(t: Transport, teamId: string): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: `/teams/${requireUuid(teamId, 'teamId')}` });
}

/** Adds a member with the project's member default permissions. */
export function addTeamMember(t: Transport<ServerAccess>, teamId: string, userId: string): Promise<TeamMembership> {
  return t.request({
    method: 'POST',
    path: `/team-memberships/${requireUuid(teamId, 'teamId')}/${seg(requireUserId(userId))}`,
    body: {},
  });
}

/** Anyone may remove themselves (`me`: leaving the team); removing others needs `$remove_members`. */
export function removeTeamMember(t: Transport, teamId: string, userId: string): Promise<SuccessResponse> {
  return t.request({
    method: 'DELETE',
    path: `/team-memberships/${requireUuid(teamId, 'teamId')}/${seg(requireUserId(userId))}`,
    body: {},
  });
}

/** Clients must give `teamId` and need `$read_members` to see anyone but themselves. */
export async function listTeamMemberProfiles<A extends AccessType>(
  t: Transport<A>,
  options: { teamId?: string; userId?: string },
): Promise<TeamMemberProfileFor<A>[]> {
  const team_id = options.teamId === undefined ? undefined : requireUuid(options.teamId, 'teamId');
  const user_id = options.userId === undefined ? undefined : requireUserId(options.userId);
  return (
    await t.request<ListResponse<TeamMemberProfileFor<A>>>({
      method: 'GET',
      path: '/team-member-profiles',
      query: { team_id, user_id },
    })
  ).items;
}

/** How one member appears in one team. */
export function getTeamMemberProfile<A extends AccessType>(
  t: Transport<A>,
  teamId: string,
  userId: string,
): Promise<TeamMemberProfileFor<A>> {
  return t.request({
    method: 'GET',
    path: `/team-member-profiles/${requireUuid(teamId, 'teamId')}/${seg(requireUserId(userId))}`,
  });
}

/** Clients may only update their own profile. */
export function updateTeamMemberProfile<A extends AccessType>(
  t: Transport<A>,
  teamId: string,
  userId: string,
  update: TeamMemberProfileUpdate,
): Promise<TeamMemberProfileFor<A>> {
  return t.request({
    method: 'PATCH',
    path: `/team-member-profiles/${requireUuid(teamId, 'teamId')}/${seg(requireUserId(userId))}`,
    body: requireObject(update, 'update'),
  });
}
