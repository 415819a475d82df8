import { createKnownError } from '../../protocol/errors/create.js';
import type { ProjectPermission, ProjectPermissionDefinition } from '../../protocol/resources/projectPermission.js';
import { ADMIN, requireAccess, resolveUserId, SERVER } from '../http/access.js';
import { serviceErrors, StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, userIdOrMe, validate, yup } from '../http/validate.js';
import type { PermissionDefinitionRecord, ProjectRecord } from '../state/model.js';
import {
  directProjectPermissionIds,
  effectiveProjectPermissionIds,
  projectPermissionDefinitions,
  projectPermissionGrants,
} from '../state/projectFeatures.js';
import { own } from '../state/store.js';
import { findUser } from '../state/users.js';

/** The team system permissions: the only ids that may start with `$` (none is a project permission). */
const TEAM_SYSTEM_IDS = new Set([
  '$delete_team',
  '$invite_members',
  '$read_members',
  '$remove_members',
  '$update_team',
  '$manage_api_keys',
]);

const permissionId = () =>
  yup
    .string()
    .matches(
      /^\$?[a-z0-9_:]+$/,
      'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed',
    )
    .test(
      'is-system-permission',
      'System permissions must start with a dollar sign',
      (v) => !v || !v.startsWith('$') || TEAM_SYSTEM_IDS.has(v),
    );
const customId = () => yup.string().matches(/^[a-z0-9_:]+$/, 'Only lowercase letters, numbers, ":", "_" are allowed');
const definitionBody = { description: yup.string(), contained_permission_ids: yup.array(permissionId().defined()) };
const grantParams = obj({ user_id: userIdOrMe().defined(), permission_id: permissionId().defined() }).defined();
const definitionParams = obj({ permission_id: permissionId().defined() }).defined();
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The service keeps team and project permission definitions under one set of ids. */
function requireFreeId(p: ProjectRecord, id: string): void {
  if (own(projectPermissionDefinitions(p), id) !== undefined || own(p.permission_definitions, id) !== undefined) {
    throw createKnownError('PERMISSION_ID_ALREADY_EXISTS', { permission_id: id });
  }
}

/** Contained ids must be project permissions (a team permission, system or not, is not found). */
function requireContained(p: ProjectRecord, ids: string[] | undefined): void {
  const missing = ids?.find((id) => own(projectPermissionDefinitions(p), id) === undefined);
  if (missing !== undefined) throw createKnownError('CONTAINED_PERMISSION_NOT_FOUND', { permission_id: missing });
}

function requireDefinition(p: ProjectRecord, id: string): PermissionDefinitionRecord {
  const definition = own(projectPermissionDefinitions(p), id);
  if (!definition) throw createKnownError('PERMISSION_NOT_FOUND', { permission_id: id });
  return definition;
}

function requireUser(p: ProjectRecord, userId: string): void {
  if (!findUser(p, userId)) throw createKnownError('USER_NOT_FOUND');
}

function definitionView(d: PermissionDefinitionRecord): ProjectPermissionDefinition {
  return {
    id: d.id,
    ...(d.description === '' ? {} : { description: d.description }),
    contained_permission_ids: [...d.contained_permission_ids],
  };
}

/** A rename or deletion reaches every grant and every definition that contains the id. */
function replaceId(p: ProjectRecord, oldId: string, newId: string | null): void {
  p.project_permission_grants = projectPermissionGrants(p).flatMap((g) =>
    g.permission_id !== oldId ? [g] : newId === null ? [] : [{ ...g, permission_id: newId }],
  );
  for (const d of Object.values(projectPermissionDefinitions(p))) {
    d.contained_permission_ids = [
      ...new Set(d.contained_permission_ids.flatMap((id) => (id !== oldId ? [id] : newId === null ? [] : [newId]))),
    ];
  }
}

/** Project permissions and their definitions (newer than PROTOCOL.md; the service's behaviour of 2026-04). */
export function registerProjectPermissionRoutes(router: Router): void {
  router.add('GET', '/project-permissions', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, {
      query: obj({
        user_id: userIdOrMe(),
        permission_id: permissionId(),
        recursive: yup.string().oneOf(['true', 'false']),
      }).defined(),
    });
    const p = auth.project;
    const userId = query.user_id === undefined ? undefined : resolveUserId(auth, query.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (userId !== auth.user.id)
        throw new StatusError(
          403,
          'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user',
        );
    }
    const userIds =
      userId !== undefined ? [userId] : [...new Set(projectPermissionGrants(p).map((g) => g.user_id))].sort(compare);
    const items: ProjectPermission[] = [];
    for (const id of userIds) {
      const ids = query.recursive === 'true' ? effectiveProjectPermissionIds(p, id) : directProjectPermissionIds(p, id);
      for (const permission of ids)
        if (query.permission_id === undefined || permission === query.permission_id)
          items.push({ id: permission, user_id: id });
    }
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/project-permissions/:user_id/:permission_id', (req) => {
    const auth = requireAccess(req, SERVER);
    const { params } = validate(req, { params: grantParams, body: obj({}).defined() });
    const p = auth.project;
    const userId = resolveUserId(auth, params.user_id);
    requireUser(p, userId);
    // One set of permission ids for both scopes, as on the service: a team permission's id is of the wrong scope.
    if (own(p.permission_definitions, params.permission_id) !== undefined)
      throw serviceErrors.wrongPermissionScope(params.permission_id, 'project', 'team');
    requireDefinition(p, params.permission_id);
    const grants = projectPermissionGrants(p);
    // Granting again is no error and changes nothing.
    if (!grants.some((g) => g.user_id === userId && g.permission_id === params.permission_id))
      grants.push({ user_id: userId, permission_id: params.permission_id });
    return json({ id: params.permission_id, user_id: userId }, 201);
  });

  router.add('DELETE', '/project-permissions/:user_id/:permission_id', (req) => {
    const auth = requireAccess(req, SERVER);
    const { params } = validate(req, { params: grantParams });
    const p = auth.project;
    const userId = resolveUserId(auth, params.user_id);
    requireUser(p, userId);
    // Only a direct grant can be revoked; one reached through a containing permission is "not found".
    if (!directProjectPermissionIds(p, userId).includes(params.permission_id))
      throw createKnownError('PERMISSION_NOT_FOUND', { permission_id: params.permission_id });
    p.project_permission_grants = projectPermissionGrants(p).filter(
      (g) => !(g.user_id === userId && g.permission_id === params.permission_id),
    );
    return success();
  });

  router.add('GET', '/project-permission-definitions', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    const definitions = Object.values(projectPermissionDefinitions(auth.project)).sort((a, b) => compare(a.id, b.id));
    return json({ items: definitions.map(definitionView), is_paginated: false });
  });

  router.add('POST', '/project-permission-definitions', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, { body: obj({ id: customId().defined(), ...definitionBody }).defined() });
    const p = auth.project;
    requireFreeId(p, body.id);
    requireContained(p, body.contained_permission_ids);
    const definition: PermissionDefinitionRecord = {
      id: body.id,
      description: body.description ?? '',
      contained_permission_ids: [...new Set(body.contained_permission_ids ?? [])],
    };
    projectPermissionDefinitions(p)[body.id] = definition;
    return json(definitionView(definition), 201);
  });

  router.add('PATCH', '/project-permission-definitions/:permission_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { params, body } = validate(req, {
      params: definitionParams,
      body: obj({ id: customId(), ...definitionBody }).defined(),
    });
    const p = auth.project;
    const definition = requireDefinition(p, params.permission_id);
    const newId = body.id ?? definition.id;
    if (newId !== definition.id) requireFreeId(p, newId);
    requireContained(p, body.contained_permission_ids);
    const definitions = projectPermissionDefinitions(p);
    if (newId !== definition.id) {
      delete definitions[definition.id];
      replaceId(p, definition.id, newId);
    }
    // The service writes the whole definition: a field left out goes back to its default (quirk).
    const updated: PermissionDefinitionRecord = {
      id: newId,
      description: body.description ?? '',
      contained_permission_ids: [...new Set(body.contained_permission_ids ?? [])],
    };
    definitions[newId] = updated;
    return json(definitionView(updated));
  });

  router.add('DELETE', '/project-permission-definitions/:permission_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { params } = validate(req, { params: definitionParams });
    const p = auth.project;
    requireDefinition(p, params.permission_id);
    delete projectPermissionDefinitions(p)[params.permission_id];
    replaceId(p, params.permission_id, null);
    return success();
  });
}
