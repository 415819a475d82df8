import { createKnownError } from '../../protocol/errors/create.js';
import { requireAccess, resolveUserId, SERVER } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, userIdOrMe, uuid, validate } from '../http/validate.js';
import { addMember, findMembership, removeMember } from '../state/teams.js';
import { findUser } from '../state/users.js';
import { requireClientRightOver, requireMember, requireTeam } from './teams.js';

const params = obj({ team_id: uuid().defined(), user_id: userIdOrMe().defined() }).defined();

/** Team memberships (§5.4). */
export function registerMembershipRoutes(router: Router): void {
  router.add('POST', '/team-memberships/:team_id/:user_id', (req) => {
    const auth = requireAccess(req, SERVER);
    // The body must be exactly `{}`: any key is an unknown property.
    const v = validate(req, { params, body: obj({}).defined() });
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    if (!findUser(p, userId)) throw createKnownError('USER_NOT_FOUND');
    requireTeam(p, v.params.team_id);
    if (findMembership(p, v.params.team_id, userId)) throw createKnownError('TEAM_MEMBERSHIP_ALREADY_EXISTS');
    addMember(p, v.params.team_id, userId, 'member', req.now);
    return json({ team_id: v.params.team_id, user_id: userId }, 201);
  });

  router.add('DELETE', '/team-memberships/:team_id/:user_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params });
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    // Leaving is always allowed; removing someone else needs $remove_members.
    requireClientRightOver(auth, v.params.team_id, userId, '$remove_members');
    requireMember(p, v.params.team_id, userId);
    removeMember(p, v.params.team_id, userId);
    return success();
  });
}
