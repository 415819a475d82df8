import { createKnownError } from '../../protocol/errors/create.js';
import type { Json } from '../../protocol/resources/common.js';
import type { AuthContext } from '../auth/authenticate.js';
import { ADMIN, requireAccess } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { validate } from '../http/validate.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { applyConfigUpdate, createProjectRecord } from '../state/projects.js';
import { own } from '../state/store.js';
import { adminProjectView, clientProjectView } from '../views.js';
import {
  checkConfigUpdate,
  managedProjectIds,
  projectCreateSchema,
  projectUpdateSchema,
  toConfigUpdate,
} from './projectConfig.js';

/** The caller of `/internal/projects`: a signed-in user of `internal` (user checked first, as upstream). */
function requireInternalUser(auth: AuthContext): UserRecord {
  if (auth.user === null) throw createKnownError('USER_AUTHENTICATION_REQUIRED');
  if (auth.project.id !== 'internal') throw createKnownError('EXPECTED_INTERNAL_PROJECT');
  return auth.user;
}

function withManagedIds(serverMetadata: Json, ids: string[]): Json {
  const base =
    typeof serverMetadata === 'object' && serverMetadata !== null && !Array.isArray(serverMetadata)
      ? serverMetadata
      : {};
  return { ...base, managedProjectIds: ids };
}

/**
 * Current project and internal projects (PROTOCOL.md §5.7, as the service has them today):
 * `/projects/current` is the client view for every access type and answers GET only; the admin
 * view, its update and the deletion are under `/internal/projects/current`.
 */
export function registerProjectRoutes(router: Router): void {
  router.add('GET', '/projects/current', (req) => {
    const auth = requireAccess(req);
    validate(req, {});
    return json(clientProjectView(auth.project));
  });

  router.add('GET', '/internal/projects/current', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    return json(adminProjectView(auth.project));
  });

  router.add('PATCH', '/internal/projects/current', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, { body: projectUpdateSchema });
    const p = auth.project;
    const update = toConfigUpdate(body.config);
    // Every check runs before the first change, so a refused update changes nothing.
    checkConfigUpdate(p, update);
    if (body.display_name !== undefined) p.display_name = body.display_name;
    // v2.7 reset the description on an update without it (§4.9); the service no longer does.
    if (body.description !== undefined) p.description = body.description ?? '';
    if (body.is_production_mode !== undefined) p.is_production_mode = body.is_production_mode;
    applyConfigUpdate(p.config, update);
    return json(adminProjectView(p));
  });

  router.add('DELETE', '/internal/projects/current', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    const p = auth.project;
    // Deleting `internal` would leave the emulator without its dashboard project and keys.
    if (p.id === 'internal') throw new StatusError(400, 'The internal project cannot be deleted.');
    const { store } = req.env;
    delete store.state.projects[p.id];
    const internal = store.project('internal');
    for (const user of Object.values(internal?.users ?? {})) {
      const ids = managedProjectIds(user.server_metadata);
      if (ids.includes(p.id))
        user.server_metadata = withManagedIds(
          user.server_metadata,
          ids.filter((id) => id !== p.id),
        );
    }
    return success();
  });

  router.add('GET', '/internal/projects', (req) => {
    const auth = requireAccess(req);
    validate(req, {});
    const user = requireInternalUser(auth);
    const ids = managedProjectIds(user.server_metadata);
    const projects = ids
      .map((id, index) => ({ project: req.env.store.project(id), index }))
      .filter((entry): entry is { project: ProjectRecord; index: number } => entry.project !== undefined)
      // Newest first; among equal creation times, the one added to the list last.
      .sort((a, b) => b.project.created_at_millis - a.project.created_at_millis || b.index - a.index)
      .map((entry) => adminProjectView(entry.project));
    return json({ items: [...new Map(projects.map((p) => [p.id, p])).values()], is_paginated: false });
  });

  router.add('POST', '/internal/projects', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: projectCreateSchema });
    requireInternalUser(auth);
    const update = toConfigUpdate(body.config);
    checkConfigUpdate(null, update);
    // Key generation is the only await; the state changes afterwards in one synchronous block.
    const project = await createProjectRecord(
      {
        display_name: body.display_name,
        description: body.description,
        is_production_mode: body.is_production_mode,
        config: update,
      },
      req.now,
    );
    const internal = req.env.store.project('internal');
    const owner = internal && auth.user ? own(internal.users, auth.user.id) : undefined;
    if (!owner) throw createKnownError('USER_AUTHENTICATION_REQUIRED');
    project.owner_team_id = body.owner_team_id ?? owner.selected_team_id;
    req.env.store.state.projects[project.id] = project;
    owner.server_metadata = withManagedIds(owner.server_metadata, [
      ...managedProjectIds(owner.server_metadata),
      project.id,
    ]);
    return json(adminProjectView(project), 201);
  });
}
