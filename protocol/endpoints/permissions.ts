import {
  optionalObject,
  requireNonEmptyString,
  requireObject,
  requireSegment,
  requireString,
  requireUserId,
  requireUuid,
  seg,
} from '../args.js';
import type { ListResponse, SuccessResponse } from '../resources/common.js';
import type {
  ListTeamPermissionsQuery,
  TeamPermission,
  TeamPermissionDefinition,
  TeamPermissionDefinitionCreate,
  TeamPermissionDefinitionUpdate,
} from '../resources/team.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/** Grants, sorted by team, user and id. Clients may only ask about themselves (`me`). */
export async function listTeamPermissions(
  t: Transport,
  query: ListTeamPermissionsQuery = {},
): Promise<TeamPermission[]> {
  const q = optionalObject(query, 'query') ?? {};
  const team_id = q.team_id === undefined ? undefined : requireUuid(q.team_id, 'query.team_id');
  const user_id = q.user_id === undefined ? undefined : requireUserId(q.user_id, 'query.user_id');
  const permission_id =
    q.permission_id === undefined ? undefined : requireString(q.permission_id, 'query.permission_id');
  const recursive = q.recursive === undefined ? undefined : q.recursive === true;
  return (
    await t.request<ListResponse<TeamPermission>>({
      method: 'GET',
      path: '/team-permissions',
      query: { team_id, user_id, permission_id, recursive },
    })
  ).items;
}

function permissionPath(teamId: string, userId: string, permissionId: string): string {
  return `/team-permissions/${requireUuid(teamId, 'teamId')}/${seg(requireUserId(userId))}/${seg(requireSegment(permissionId, 'permissionId'))}`;
}

/** Idempotent; the user must be a member. */
export function grantTeamPermission(
  t: Transport<ServerAccess>,
  teamId: string,
  userId: string,
  permissionId: string,
): Promise<TeamPermission> {
  return t.request({ method: 'POST', path: permissionPath(teamId, userId, permissionId), body: {} });
}

/** Only a direct grant can be revoked (else TEAM_PERMISSION_NOT_FOUND). */
export function revokeTeamPermission(
  t: Transport<ServerAccess>,
  teamId: string,
  userId: string,
  permissionId: string,
): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: permissionPath(teamId, userId, permissionId) });
}

/** The team permissions the project defines. */
export async function listPermissionDefinitions(t: Transport<'admin'>): Promise<TeamPermissionDefinition[]> {
  return (
    await t.request<ListResponse<TeamPermissionDefinition>>({ method: 'GET', path: '/team-permission-definitions' })
  ).items;
}

/** Defines a team permission. */
export function createPermissionDefinition(
  t: Transport<'admin'>,
  input: TeamPermissionDefinitionCreate,
): Promise<TeamPermissionDefinition> {
  requireNonEmptyString(requireObject(input, 'input').id, 'id');
  return t.request({ method: 'POST', path: '/team-permission-definitions', body: input });
}

/** Renames are allowed; `contained_permission_ids` replaces the list when given. */
export function updatePermissionDefinition(
  t: Transport<'admin'>,
  permissionId: string,
  update: TeamPermissionDefinitionUpdate,
): Promise<TeamPermissionDefinition> {
  return t.request({
    method: 'PATCH',
    path: `/team-permission-definitions/${seg(requireSegment(permissionId, 'permissionId'))}`,
    body: requireObject(update, 'update'),
  });
}

/** Deletes a permission definition and every grant of it. */
export function deletePermissionDefinition(t: Transport<'admin'>, permissionId: string): Promise<SuccessResponse> {
  return t.request({
    method: 'DELETE',
    path: `/team-permission-definitions/${seg(requireSegment(permissionId, 'permissionId'))}`,
  });
}
