import { createKnownError } from '../../protocol/errors/create.js';
import type { TeamPermission, TeamPermissionDefinition } from '../../protocol/resources/team.js';
import { ADMIN, requireAccess, resolveUserId, SERVER } from '../http/access.js';
import { serviceErrors, StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { PermissionDefinitionRecord, ProjectRecord } from '../state/model.js';
import { projectPermissionDefinitions } from '../state/projectFeatures.js';
import { own } from '../state/store.js';
import { directPermissionIds, effectivePermissionIds, grantPermission } from '../state/teams.js';
import { permissionDefinitionView } from '../views.js';
import { requireMember } from './teams.js';

/** The system permissions, always listed with these descriptions (§4.6; `$manage_api_keys` came after v2.7). */
const SYSTEM_PERMISSIONS: Readonly<Record<string, string>> = {
  $delete_team: 'Delete the team',
  $invite_members: 'Invite other users to the team',
  $manage_api_keys: 'Create and manage API keys for the team',
  $read_members: 'Read and list the other members of the team',
  $remove_members: 'Remove other members from the team',
  $update_team: 'Update the team information',
};

const isSystem = (id: string) => Object.hasOwn(SYSTEM_PERMISSIONS, id);
const permissionExists = (p: ProjectRecord, id: string) =>
  isSystem(id) || own(p.permission_definitions, id) !== undefined;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Any permission id: custom, or `$` followed by one of the system ids. */
const permissionId = () =>
  yup
    .string()
    .matches(
      /^\$?[a-z0-9_:]+$/,
      'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed',
    )
    .test('is-system-permission', 'Invalid system permission', (v) => !v || !v.startsWith('$') || isSystem(v));
const customId = () => yup.string().matches(/^[a-z0-9_:]+$/, 'Only lowercase letters, numbers, ":", "_" are allowed');
const containedIds = () => yup.array(permissionId().defined());

const grantParams = obj({
  team_id: uuid().defined(),
  user_id: userIdOrMe().defined(),
  permission_id: permissionId().defined(),
}).defined();
const definitionParams = obj({ permission_id: permissionId().defined() }).defined();

function requireContained(p: ProjectRecord, ids: string[] | undefined): string[] | undefined {
  if (ids === undefined) return undefined;
  for (const id of ids)
    if (!permissionExists(p, id)) throw createKnownError('CONTAINED_PERMISSION_NOT_FOUND', { permission_id: id });
  return [...new Set(ids)];
}

function definitionList(p: ProjectRecord): TeamPermissionDefinition[] {
  const system: PermissionDefinitionRecord[] = Object.entries(SYSTEM_PERMISSIONS).map(([id, description]) => ({
    id,
    description,
    contained_permission_ids: [],
  }));
  return [...system, ...Object.values(p.permission_definitions)]
    .sort((a, b) => compare(a.id.toLowerCase(), b.id.toLowerCase()))
    .map(permissionDefinitionView);
}

/** A rename or deletion reaches every place that names the id: grants, containments, defaults. */
function replacePermissionId(p: ProjectRecord, oldId: string, newId: string | null): void {
  p.permission_grants =
    newId === null
      ? p.permission_grants.filter((g) => g.permission_id !== oldId)
      : p.permission_grants.map((g) => (g.permission_id === oldId ? { ...g, permission_id: newId } : g));
  const swap = (ids: string[]) => [
    ...new Set(ids.flatMap((id) => (id !== oldId ? [id] : newId === null ? [] : [newId]))),
  ];
  for (const d of Object.values(p.permission_definitions))
    d.contained_permission_ids = swap(d.contained_permission_ids);
  p.config.team_creator_default_permissions = swap(p.config.team_creator_default_permissions).sort();
  p.config.team_member_default_permissions = swap(p.config.team_member_default_permissions).sort();
}

function requireCustomDefinition(p: ProjectRecord, id: string, action: string): PermissionDefinitionRecord {
  // Upstream fails with a 500 here; system permissions are fixed, so a plain 400 says so.
  if (isSystem(id)) throw new StatusError(400, `System permissions cannot be ${action}.`);
  const definition = own(p.permission_definitions, id);
  if (!definition) throw createKnownError('PERMISSION_NOT_FOUND', { permission_id: id });
  return definition;
}

function requireFreeId(p: ProjectRecord, id: string): void {
  // The service answers PERMISSION_ID_ALREADY_EXISTS; team and project permissions share the ids.
  if (permissionExists(p, id) || own(projectPermissionDefinitions(p), id) !== undefined)
    throw createKnownError('PERMISSION_ID_ALREADY_EXISTS', { permission_id: id });
}

/** Team permissions and definitions (§5.4). */
export function registerPermissionRoutes(router: Router): void {
  router.add('GET', '/team-permissions', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, {
      query: obj({
        team_id: uuid(),
        user_id: userIdOrMe(),
        permission_id: permissionId(),
        recursive: yup.string().oneOf(['true', 'false']),
      }).defined(),
    });
    const p = auth.project;
    const userId = query.user_id === undefined ? undefined : resolveUserId(auth, query.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (userId !== auth.user.id) {
        throw new StatusError(
          403,
          'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user',
        );
      }
    }
    const items: TeamPermission[] = [];
    for (const m of p.memberships) {
      if (
        (query.team_id !== undefined && m.team_id !== query.team_id) ||
        (userId !== undefined && m.user_id !== userId)
      )
        continue;
      const ids =
        query.recursive === 'true'
          ? [...effectivePermissionIds(p, m.team_id, m.user_id)]
          : directPermissionIds(p, m.team_id, m.user_id);
      for (const id of ids)
        if (query.permission_id === undefined || id === query.permission_id)
          items.push({ id, team_id: m.team_id, user_id: m.user_id });
    }
    items.sort((a, b) => compare(a.team_id, b.team_id) || compare(a.user_id, b.user_id) || compare(a.id, b.id));
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/team-permissions/:team_id/:user_id/:permission_id', (req) => {
    const auth = requireAccess(req, SERVER);
    const { params } = validate(req, { params: grantParams, body: obj({}).defined() });
    const p = auth.project;
    const userId = resolveUserId(auth, params.user_id);
    requireMember(p, params.team_id, userId);
    if (!permissionExists(p, params.permission_id)) {
      // The service keeps one set of permission ids for both scopes: a project permission's id is of the wrong scope.
      if (own(projectPermissionDefinitions(p), params.permission_id) !== undefined)
        throw serviceErrors.wrongPermissionScope(params.permission_id, 'team', 'project');
      throw createKnownError('PERMISSION_NOT_FOUND', { permission_id: params.permission_id });
    }
    grantPermission(p, params.team_id, userId, params.permission_id);
    return json({ id: params.permission_id, team_id: params.team_id, user_id: userId }, 201);
  });

  router.add('DELETE', '/team-permissions/:team_id/:user_id/:permission_id', (req) => {
    const auth = requireAccess(req, SERVER);
    const { params } = validate(req, { params: grantParams });
    const p = auth.project;
    const userId = resolveUserId(auth, params.user_id);
    requireMember(p, params.team_id, userId);
    // Only a direct grant can be revoked; one reached through a containing permission cannot.
    if (!directPermissionIds(p, params.team_id, userId).includes(params.permission_id)) {
      throw createKnownError('TEAM_PERMISSION_NOT_FOUND', {
        team_id: params.team_id,
        user_id: userId,
        permission_id: params.permission_id,
      });
    }
    p.permission_grants = p.permission_grants.filter(
      (g) => !(g.team_id === params.team_id && g.user_id === userId && g.permission_id === params.permission_id),
    );
    return success();
  });

  router.add('GET', '/team-permission-definitions', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    return json({ items: definitionList(auth.project), is_paginated: false });
  });

  router.add('POST', '/team-permission-definitions', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, {
      body: obj({
        id: customId().defined(),
        description: yup.string(),
        contained_permission_ids: containedIds(),
      }).defined(),
    });
    const p = auth.project;
    requireFreeId(p, body.id);
    const contained = requireContained(p, body.contained_permission_ids) ?? [];
    const definition: PermissionDefinitionRecord = {
      id: body.id,
      description: body.description ?? '',
      contained_permission_ids: contained,
    };
    p.permission_definitions[body.id] = definition;
    return json(permissionDefinitionView(definition), 201);
  });

  router.add('PATCH', '/team-permission-definitions/:permission_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { params, body } = validate(req, {
      params: definitionParams,
      body: obj({ id: customId(), description: yup.string(), contained_permission_ids: containedIds() }).defined(),
    });
    const p = auth.project;
    const definition = requireCustomDefinition(p, params.permission_id, 'updated');
    const newId = body.id ?? definition.id;
    if (newId !== definition.id) requireFreeId(p, newId);
    const contained = requireContained(p, body.contained_permission_ids);
    if (newId !== definition.id) {
      delete p.permission_definitions[definition.id];
      replacePermissionId(p, definition.id, newId);
      definition.id = newId;
      p.permission_definitions[newId] = definition;
    }
    if (body.description !== undefined) definition.description = body.description;
    if (contained !== undefined) definition.contained_permission_ids = contained;
    return json(permissionDefinitionView(definition));
  });

  router.add('DELETE', '/team-permission-definitions/:permission_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { params } = validate(req, { params: definitionParams });
    const p = auth.project;
    requireCustomDefinition(p, params.permission_id, 'deleted');
    delete p.permission_definitions[params.permission_id];
    replacePermissionId(p, params.permission_id, null);
    return success();
  });
}
