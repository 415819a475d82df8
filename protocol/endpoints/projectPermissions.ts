import { optionalObject, requireObject, requireNonEmptyString, requireSegment, requireUserId, seg } from '../args.js';
import type { ListResponse, SuccessResponse } from '../resources/common.js';
import type {
  ListProjectPermissionsQuery,
  ProjectPermission,
  ProjectPermissionDefinition,
  ProjectPermissionDefinitionCreate,
  ProjectPermissionDefinitionUpdate,
} from '../resources/projectPermission.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/**
 * Project permission grants (`GET /project-permissions`). Clients may only ask about themselves
 * (`user_id: 'me'`); `recursive` adds the permissions reached through contained ones.
 */
export async function listProjectPermissions(
  t: Transport,
  query: ListProjectPermissionsQuery = {},
): Promise<ProjectPermission[]> {
  const q = optionalObject(query, 'query') ?? {};
  const user_id = q.user_id === undefined ? undefined : requireUserId(q.user_id, 'query.user_id');
  const permission_id =
    q.permission_id === undefined ? undefined : requireSegment(q.permission_id, 'query.permission_id');
  const recursive = q.recursive === undefined ? undefined : q.recursive === true;
  return (
    await t.request<ListResponse<ProjectPermission>>({
      method: 'GET',
      path: '/project-permissions',
      query: { user_id, permission_id, recursive },
    })
  ).items;
}

function grantPath(userId: string, permissionId: string): string {
  return `/project-permissions/${seg(requireUserId(userId))}/${seg(requireSegment(permissionId, 'permissionId'))}`;
}

/** Grants a project permission (idempotent). PERMISSION_NOT_FOUND when the project does not define it. */
export function grantProjectPermission(
  t: Transport<ServerAccess>,
  userId: string,
  permissionId: string,
): Promise<ProjectPermission> {
  return t.request({ method: 'POST', path: grantPath(userId, permissionId), body: {} });
}

/** Revokes a direct grant (PERMISSION_NOT_FOUND for one the user does not hold directly). */
export function revokeProjectPermission(
  t: Transport<ServerAccess>,
  userId: string,
  permissionId: string,
): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: grantPath(userId, permissionId) });
}

/** The project's permission definitions (admin). */
export async function listProjectPermissionDefinitions(t: Transport<'admin'>): Promise<ProjectPermissionDefinition[]> {
  return (
    await t.request<ListResponse<ProjectPermissionDefinition>>({
      method: 'GET',
      path: '/project-permission-definitions',
    })
  ).items;
}

/** PERMISSION_ID_ALREADY_EXISTS for a taken id; CONTAINED_PERMISSION_NOT_FOUND for an unknown contained one. */
export function createProjectPermissionDefinition(
  t: Transport<'admin'>,
  input: ProjectPermissionDefinitionCreate,
): Promise<ProjectPermissionDefinition> {
  requireNonEmptyString(requireObject(input, 'input').id, 'id');
  return t.request({ method: 'POST', path: '/project-permission-definitions', body: input });
}

/** Renames reach every grant; `contained_permission_ids` replaces the list when given. */
export function updateProjectPermissionDefinition(
  t: Transport<'admin'>,
  permissionId: string,
  update: ProjectPermissionDefinitionUpdate,
): Promise<ProjectPermissionDefinition> {
  return t.request({
    method: 'PATCH',
    path: `/project-permission-definitions/${seg(requireSegment(permissionId, 'permissionId'))}`,
    body: requireObject(update, 'update'),
  });
}

/** Deletes the definition and every grant of it. */
export function deleteProjectPermissionDefinition(
  t: Transport<'admin'>,
  permissionId: string,
): Promise<SuccessResponse> {
  return t.request({
    method: 'DELETE',
    path: `/project-permission-definitions/${seg(requireSegment(permissionId, 'permissionId'))}`,
  });
}
