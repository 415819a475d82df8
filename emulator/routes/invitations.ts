import { createKnownError } from '../../protocol/errors/create.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { createCode, linkWithCode, redeemCode } from '../codes.js';
import type { AuthContext } from '../auth/authenticate.js';
import { requireAccess, requireUser, resolveUserId } from '../http/access.js';
import { serviceErrors, StatusError } from '../errors.js';
import { paymentErrors } from '../paymentErrors.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { code45, email, obj, url, userIdOrMe, uuid, validate } from '../http/validate.js';
import type { ProjectRecord, UserRecord, VerificationCodeRecord } from '../state/model.js';
import { itemQuantity } from '../state/payments.js';
import { restrictedReasonOf } from '../state/restriction.js';
import { own } from '../state/store.js';
import { addMember, findTeam } from '../state/teams.js';
import { channelsOf, sameEmail } from '../state/users.js';
import { trustPolicy } from './password.js';
import { requireMember, requireTeam, requireTeamPermission } from './teams.js';

/** Unused, unexpired invitations, oldest first. */
function pendingInvitations(p: ProjectRecord, now: number): VerificationCodeRecord[] {
  return Object.values(p.verification_codes)
    .filter((c) => c.type === 'team_invitation' && c.used_at_millis === null && c.expires_at_millis > now)
    .sort((a, b) => a.created_at_millis - b.created_at_millis);
}

function invitationView(c: VerificationCodeRecord, teamName: string) {
  return {
    id: c.id,
    team_id: String(c.data.team_id),
    team_display_name: teamName,
    expires_at_millis: c.expires_at_millis,
    recipient_email: String(c.data.email),
  };
}

/** Whether the user has verified this e-mail address: what lets an invitation to it be listed and accepted by id. */
function hasVerifiedEmail(p: ProjectRecord, userId: string, address: string): boolean {
  return channelsOf(p, userId).some((c) => c.type === 'email' && c.is_verified && sameEmail(c.value, address));
}

/** Restricted users (anonymous, or with an unverified e-mail where the project requires one) may not join by invitation. */
function requireUnrestricted(p: ProjectRecord, user: UserRecord): void {
  const reason = restrictedReasonOf(p, user);
  if (reason !== null) throw serviceErrors.teamInvitationRestrictedUserNotAllowed(reason);
}

/**
 * The service's dashboard project (`internal`) sells team seats: joining one of its teams needs a `dashboard_admins`
 * item for every member, the new one included (counted before it checks whether the user is a member already).
 */
function requireDashboardSeat(p: ProjectRecord, teamId: string, now: number): void {
  if (p.id !== 'internal') return;
  const members = p.memberships.filter((m) => m.team_id === teamId).length;
  const seats = itemQuantity(p, { customer_type: 'team', customer_id: teamId }, 'dashboard_admins', now);
  if (members + 1 > seats) throw paymentErrors.itemQuantityInsufficientAmount('dashboard_admins', teamId, -1);
}

/** The user an invitation call names: a client may name only itself (else CANNOT_GET_OWN_USER_WITHOUT_USER). */
function namedUser(auth: AuthContext, userId: string): string {
  const id = resolveUserId(auth, userId);
  if (auth.type === 'client' && (auth.user === null || auth.user.id !== id))
    throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
  return id;
}

/** Invitations sent to the user's verified e-mail addresses, of teams that still exist. */
function invitationsTo(p: ProjectRecord, userId: string, now: number) {
  return pendingInvitations(p, now).flatMap((c) => {
    const team = findTeam(p, String(c.data.team_id));
    return team && hasVerifiedEmail(p, userId, String(c.data.email)) ? [invitationView(c, team.display_name)] : [];
  });
}

/** The team an invitation code points at, checked by §7's redemption algorithm. */
function redeemInvitation(req: ApiRequest, variant: 'use' | 'check' | 'details') {
  const auth = requireAccess(req);
  const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
  const code = redeemCode(auth.project, 'team_invitation', body.code, req.now, variant);
  return { auth, teamId: String(code.data.team_id) };
}

/** Team invitations (§5.4, §6.6). */
export function registerInvitationRoutes(router: Router): void {
  router.add('POST', '/team-invitations/send-code', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ team_id: uuid().defined(), email: email().defined(), callback_url: url().defined() }).defined(),
    });
    const p = auth.project;
    if (auth.type === 'client') requireTeamPermission(p, body.team_id, requireUser(auth).id, '$invite_members');
    // Upstream fails with a 500 for a server inviting to a missing team; TEAM_NOT_FOUND says why.
    const team = requireTeam(p, body.team_id);
    if (!isTrustedRedirectUrl(body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    const code = createCode(p, 'team_invitation', { team_id: team.id, email: body.email }, req.now);
    const link = linkWithCode(body.callback_url, code.code);
    req.env.mailbox.sendTemplate(
      p,
      'team_invitation',
      body.email,
      { teamDisplayName: team.display_name, teamInvitationLink: link },
      link,
    );
    req.env.stats.email();
    return json({ success: true, id: code.id });
  });

  router.add('GET', '/team-invitations', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ team_id: uuid(), user_id: userIdOrMe() }).defined() });
    const p = auth.project;
    if (query.user_id !== undefined) resolveUserId(auth, query.user_id);
    if (query.team_id !== undefined && query.user_id !== undefined)
      throw new StatusError(400, 'Cannot specify both team_id and user_id');
    if (query.user_id !== undefined) {
      const userId = namedUser(auth, query.user_id);
      return json({ items: invitationsTo(p, userId, req.now), is_paginated: false });
    }
    if (query.team_id === undefined) throw new StatusError(400, 'Must specify either team_id or user_id');
    const teamId = query.team_id;
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      requireMember(p, teamId, auth.user.id);
      for (const permission of ['$read_members', '$invite_members'])
        requireTeamPermission(p, teamId, auth.user.id, permission);
    } else {
      requireTeam(p, teamId);
    }
    const teamName = own(p.teams, teamId)?.display_name ?? '';
    const items = pendingInvitations(p, req.now)
      .filter((c) => c.data.team_id === teamId)
      .map((c) => invitationView(c, teamName));
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/team-invitations/:id/accept', (req) => {
    const auth = requireAccess(req);
    const { params, query } = validate(req, {
      params: obj({ id: uuid().defined() }).defined(),
      query: obj({ user_id: userIdOrMe().defined() }).defined(),
    });
    const p = auth.project;
    const userId = namedUser(auth, query.user_id);
    if (auth.type === 'client' && auth.user !== null) requireUnrestricted(p, auth.user);
    const code = own(p.verification_codes, params.id);
    const pending =
      code !== undefined &&
      code.type === 'team_invitation' &&
      code.used_at_millis === null &&
      code.expires_at_millis > req.now;
    // An invitation to an address the user has not verified is "not found" for them, as the service answers.
    if (!pending || !hasVerifiedEmail(p, userId, String(code.data.email)))
      throw createKnownError('VERIFICATION_CODE_NOT_FOUND');
    code.used_at_millis = req.now;
    const teamId = String(code.data.team_id);
    requireTeam(p, teamId);
    requireDashboardSeat(p, teamId, req.now);
    addMember(p, teamId, userId, 'member', req.now);
    return json({});
  });

  router.add('DELETE', '/team-invitations/:id', (req) => {
    const auth = requireAccess(req);
    const { params, query } = validate(req, {
      params: obj({ id: uuid().defined() }).defined(),
      query: obj({ team_id: uuid().defined() }).defined(),
    });
    const p = auth.project;
    if (auth.type === 'client') {
      if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
      requireMember(p, query.team_id, auth.user.id);
      requireTeamPermission(p, query.team_id, auth.user.id, '$remove_members');
    } else {
      requireTeam(p, query.team_id);
    }
    // Upstream answers 500 for an unknown id and does not check the team; here both are a plain 404,
    // so $remove_members in one team cannot revoke another team's invitations.
    const code = own(p.verification_codes, params.id);
    if (!code || code.type !== 'team_invitation' || code.data.team_id !== query.team_id) {
      throw new StatusError(404, 'Team invitation not found');
    }
    delete p.verification_codes[params.id];
    return success();
  });

  router.add('POST', '/team-invitations/accept', (req) => {
    // The code is consumed before the user check (quirk §11.2): a signed-out accept burns it.
    const { auth, teamId } = redeemInvitation(req, 'use');
    const user = requireUser(auth);
    requireUnrestricted(auth.project, user);
    requireTeam(auth.project, teamId);
    requireDashboardSeat(auth.project, teamId, req.now);
    addMember(auth.project, teamId, user.id, 'member', req.now);
    return json({});
  });

  router.add(
    'POST',
    '/team-invitations/accept/check-code',
    (req) => {
      redeemInvitation(req, 'check');
      return json({ is_code_valid: true });
    },
    { write: true },
  );

  router.add(
    'POST',
    '/team-invitations/accept/details',
    (req) => {
      const { auth, teamId } = redeemInvitation(req, 'details');
      requireUnrestricted(auth.project, requireUser(auth));
      const team = requireTeam(auth.project, teamId);
      return json({ team_id: team.id, team_display_name: team.display_name });
    },
    { write: true },
  );
}
