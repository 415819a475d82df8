import { createKnownError } from '../../protocol/errors/create.js';
import { requireAccess, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import { findMembership } from '../state/teams.js';
import { findUser } from '../state/users.js';
import { memberProfileView } from '../views.js';
import { requireClientRightOver, requireMember, requireTeam, requireTeamPermission } from './teams.js';
import { imageUrl } from './users.js';

const params = obj({ team_id: uuid().defined(), user_id: userIdOrMe().defined() }).defined();

/** Team member profiles (§5.4). The view falls back to the user's own name and image. */
export function registerMemberProfileRoutes(router: Router): void {
  router.add('GET', '/team-member-profiles', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ team_id: uuid(), user_id: userIdOrMe() }).defined() });
    const p = auth.project;
    const userId = query.user_id === undefined ? undefined : resolveUserId(auth, query.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (query.team_id === undefined) throw new StatusError(400, 'team_id is required for access type client');
      requireMember(p, query.team_id, auth.user.id);
      if (userId !== auth.user.id) requireTeamPermission(p, query.team_id, auth.user.id, '$read_members');
    } else {
      if (query.team_id !== undefined) requireTeam(p, query.team_id);
      if (userId !== undefined && !findUser(p, userId)) throw createKnownError('USER_NOT_FOUND');
    }
    const items = p.memberships
      .filter(
        (m) =>
          (query.team_id === undefined || m.team_id === query.team_id) &&
          (userId === undefined || m.user_id === userId),
      )
      .sort((a, b) => a.created_at_millis - b.created_at_millis)
      .map((m) => memberProfileView(p, m, auth.type));
    return json({ items, is_paginated: false });
  });

  router.add('GET', '/team-member-profiles/:team_id/:user_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params });
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    requireClientRightOver(auth, v.params.team_id, userId, '$read_members');
    requireMember(p, v.params.team_id, userId);
    return json(memberProfileView(p, findMembership(p, v.params.team_id, userId)!, auth.type));
  });

  router.add('PATCH', '/team-member-profiles/:team_id/:user_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, {
      params,
      body: obj({ display_name: yup.string(), profile_image_url: imageUrl() }).defined(),
    });
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      if (userId !== auth.user.id) throw new StatusError(403, "Cannot update another user's profile");
    }
    requireMember(p, v.params.team_id, userId);
    const membership = findMembership(p, v.params.team_id, userId)!;
    if (v.body.display_name !== undefined) membership.display_name = v.body.display_name;
    if (v.body.profile_image_url !== undefined) membership.profile_image_url = v.body.profile_image_url;
    return json(memberProfileView(p, membership, auth.type));
  });
}
