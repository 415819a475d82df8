import { requireNonEmptyString, requireObject } from '../args.js';
import type { AccessType, ListResponse, SuccessResponse } from '../resources/common.js';
import type { AdminProject, ProjectCreate, ProjectUpdate } from '../resources/project.js';
import type { ProjectFor } from '../resources/views.js';
import type { Transport } from '../transport.js';

/**
 * Clients and servers get the client view; admins the full configuration, which the service now
 * serves at `/internal/projects/current` (`/projects/current` gives every access type the client view).
 */
export function getCurrentProject<A extends AccessType>(t: Transport<A>): Promise<ProjectFor<A>> {
  return t.request({
    method: 'GET',
    path: t.accessType === 'admin' ? '/internal/projects/current' : '/projects/current',
  });
}

/**
 * Lists replace whole lists (a provider left out of `oauth_providers` is turned off). The service
 * answers `PATCH /projects/current` with 405 now: the admin update lives at `/internal/projects/current`.
 */
export function updateCurrentProject(t: Transport<'admin'>, update: ProjectUpdate): Promise<AdminProject> {
  return t.request({ method: 'PATCH', path: '/internal/projects/current', body: requireObject(update, 'update') });
}

/** Deletes the project and everything in it. */
export function deleteCurrentProject(t: Transport<'admin'>): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: '/internal/projects/current' });
}

/** Projects the signed-in `internal` user owns, newest first (transport for project `internal`). */
export async function listOwnedProjects(t: Transport): Promise<AdminProject[]> {
  return (await t.request<ListResponse<AdminProject>>({ method: 'GET', path: '/internal/projects' })).items;
}

/** Creates a project owned by the signed-in `internal` user. It starts with no API keys. */
export function createProject(t: Transport, input: ProjectCreate): Promise<AdminProject> {
  requireNonEmptyString(requireObject(input, 'input').display_name, 'display_name');
  return t.request({ method: 'POST', path: '/internal/projects', body: input });
}
