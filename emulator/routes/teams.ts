import type { AuthContext } from '../auth/authenticate.js';
import { createKnownError } from '../../protocol/errors/create.js';
import type { Json } from '../../protocol/resources/common.js';
import { requireAccess, requireUser, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { anyJson, obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { ProjectRecord, TeamRecord } from '../state/model.js';
import { addMember, createTeamRecord, deleteTeam, findMembership, findTeam, hasPermission } from '../state/teams.js';
import { findUser } from '../state/users.js';
import { teamView } from '../views.js';
import { imageUrl, requireClientImage } from './users.js';

/** TEAM_NOT_FOUND for servers (clients see membership errors first). */
export function requireTeam(p: ProjectRecord, teamId: string): TeamRecord {
  const team = findTeam(p, teamId);
  if (!team) throw createKnownError('TEAM_NOT_FOUND', { team_id: teamId });
  return team;
}

/** The service's "ensure membership": USER_NOT_FOUND, then TEAM_MEMBERSHIP_NOT_FOUND. */
export function requireMember(p: ProjectRecord, teamId: string, userId: string): void {
  if (!findUser(p, userId)) throw createKnownError('USER_NOT_FOUND');
  if (!findMembership(p, teamId, userId))
    throw createKnownError('TEAM_MEMBERSHIP_NOT_FOUND', { team_id: teamId, user_id: userId });
}

/** A member holding `permissionId`, directly or through contained permissions (§5.4). */
export function requireTeamPermission(p: ProjectRecord, teamId: string, userId: string, permissionId: string): void {
  requireMember(p, teamId, userId);
  if (!hasPermission(p, teamId, userId, permissionId)) {
    throw createKnownError('TEAM_PERMISSION_REQUIRED', {
      team_id: teamId,
      user_id: userId,
      permission_id: permissionId,
    });
  }
}

/** A client may always act on itself; acting on another member of the team needs `permissionId`. */
export function requireClientRightOver(auth: AuthContext, teamId: string, userId: string, permissionId: string): void {
  if (auth.type !== 'client') return;
  if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
  if (userId !== auth.user.id) requireTeamPermission(auth.project, teamId, auth.user.id, permissionId);
}

/** Invitations of a deleted team must not add members to nothing. */
function deleteInvitationsOf(p: ProjectRecord, teamId: string): void {
  for (const [id, code] of Object.entries(p.verification_codes)) {
    if (code.type === 'team_invitation' && code.data.team_id === teamId) delete p.verification_codes[id];
  }
}

const clientTeamFields = { display_name: yup.string(), profile_image_url: imageUrl(), client_metadata: anyJson() };
const serverTeamFields = { ...clientTeamFields, client_read_only_metadata: anyJson(), server_metadata: anyJson() };
const createSchemas = {
  client: obj({ ...clientTeamFields, display_name: yup.string().defined(), creator_user_id: userIdOrMe() }).defined(),
  server: obj({ ...serverTeamFields, display_name: yup.string().defined(), creator_user_id: userIdOrMe() }).defined(),
};
const updateSchemas = { client: obj(clientTeamFields).defined(), server: obj(serverTeamFields).defined() };
type TeamWrite = yup.InferType<typeof updateSchemas.server>;
const teamParams = obj({ team_id: uuid().defined() }).defined();

function applyTeamWrite(team: TeamRecord, body: TeamWrite): void {
  if (body.display_name !== undefined) team.display_name = body.display_name;
  if (body.profile_image_url !== undefined) team.profile_image_url = body.profile_image_url;
  if (body.client_metadata !== undefined) team.client_metadata = body.client_metadata as Json;
  if (body.client_read_only_metadata !== undefined)
    team.client_read_only_metadata = body.client_read_only_metadata as Json;
  if (body.server_metadata !== undefined) team.server_metadata = body.server_metadata as Json;
}

/** Teams (§5.4). */
export function registerTeamRoutes(router: Router): void {
  router.add('GET', '/teams', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ user_id: userIdOrMe() }).defined() });
    const userId = query.user_id === undefined ? undefined : resolveUserId(auth, query.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (userId !== auth.user.id) {
        throw new StatusError(
          403,
          'Client can only list teams for their own user. user_id must be either "me" or the ID of the current user',
        );
      }
    }
    const p = auth.project;
    const items = Object.values(p.teams)
      .filter((t) => userId === undefined || findMembership(p, t.id, userId) !== undefined)
      .sort((a, b) => a.created_at_millis - b.created_at_millis)
      .map((t) => teamView(t, auth.type));
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/teams', (req) => {
    const auth = requireAccess(req);
    const { body, query } = validate(req, {
      body: auth.type === 'client' ? createSchemas.client : createSchemas.server,
      query: obj({ add_current_user: yup.string().oneOf(['true', 'false']) }).defined(),
    });
    const p = auth.project;
    let creatorId = body.creator_user_id === undefined ? undefined : resolveUserId(auth, body.creator_user_id);
    if (creatorId !== undefined && query.add_current_user !== undefined) {
      throw new StatusError(
        400,
        'Cannot use both creator_user_id and add_current_user. add_current_user is deprecated, please only use creator_user_id in the body.',
      );
    }
    if (auth.type === 'client') {
      const user = requireUser(auth);
      if (!p.config.client_team_creation_enabled)
        throw new StatusError(403, 'Client team creation is disabled for this project');
      requireClientImage(auth, body.profile_image_url);
      if (creatorId !== undefined && creatorId !== user.id) {
        throw new StatusError(
          403,
          "You cannot create a team as a user that is not yourself. Make sure you set the creator_user_id to 'me'.",
        );
      }
      creatorId = user.id;
    }
    if (query.add_current_user === 'true') {
      if (auth.user === null)
        throw new StatusError(401, 'You must be logged in to create a team with the current user as a member.');
      creatorId = auth.user.id;
    }
    if (creatorId !== undefined && !findUser(p, creatorId)) throw createKnownError('USER_NOT_FOUND');
    const team = createTeamRecord(p, { display_name: body.display_name }, req.now);
    applyTeamWrite(team, body as TeamWrite);
    if (creatorId !== undefined) addMember(p, team.id, creatorId, 'creator', req.now);
    return json(teamView(team, auth.type), 201);
  });

  router.add('GET', '/teams/:team_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: teamParams });
    if (auth.type === 'client') requireMember(auth.project, params.team_id, requireUser(auth).id);
    return json(teamView(requireTeam(auth.project, params.team_id), auth.type));
  });

  router.add('PATCH', '/teams/:team_id', (req) => {
    const auth = requireAccess(req);
    const { params, body } = validate(req, {
      params: teamParams,
      body: auth.type === 'client' ? updateSchemas.client : updateSchemas.server,
    });
    requireClientImage(auth, body.profile_image_url);
    if (auth.type === 'client')
      requireTeamPermission(auth.project, params.team_id, requireUser(auth).id, '$update_team');
    const team = requireTeam(auth.project, params.team_id);
    applyTeamWrite(team, body as TeamWrite);
    return json(teamView(team, auth.type));
  });

  router.add('DELETE', '/teams/:team_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: teamParams });
    if (auth.type === 'client')
      requireTeamPermission(auth.project, params.team_id, requireUser(auth).id, '$delete_team');
    requireTeam(auth.project, params.team_id);
    deleteInvitationsOf(auth.project, params.team_id);
    deleteTeam(auth.project, params.team_id);
    return success();
  });
}
