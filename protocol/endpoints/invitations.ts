import { requireNonEmptyString, requireObject, requireUrl, requireUserId, requireUuid } from '../args.js';
import type { CodeCheckResponse, ListResponse, SuccessResponse } from '../resources/common.js';
import type { TeamInvitation, TeamInvitationDetails, TeamInvitationSent } from '../resources/team.js';
import type { Transport } from '../transport.js';

/** E-mails a 7-day link (`callback_url?code=…`). Clients need `$invite_members`. */
export function sendTeamInvitation(
  t: Transport,
  input: { team_id: string; email: string; callback_url: string },
): Promise<TeamInvitationSent> {
  requireObject(input, 'input');
  const team_id = requireUuid(input.team_id, 'team_id');
  const email = requireNonEmptyString(input.email, 'email');
  const callback_url = requireUrl(input.callback_url, 'callback_url');
  return t.request({ method: 'POST', path: '/team-invitations/send-code', body: { team_id, email, callback_url } });
}

/** Unused, unexpired invitations. Clients need `$read_members` and `$invite_members`. */
export async function listTeamInvitations(t: Transport, teamId: string): Promise<TeamInvitation[]> {
  const team_id = requireUuid(teamId, 'teamId');
  return (
    await t.request<ListResponse<TeamInvitation>>({ method: 'GET', path: '/team-invitations', query: { team_id } })
  ).items;
}

/**
 * The invitations sent to the user's verified e-mail addresses that are still pending, of teams that still exist
 * (clients: only `me`). An address not yet verified brings none.
 */
export async function listReceivedTeamInvitations(t: Transport, userId: string): Promise<TeamInvitation[]> {
  const user_id = requireUserId(userId);
  return (
    await t.request<ListResponse<TeamInvitation>>({ method: 'GET', path: '/team-invitations', query: { user_id } })
  ).items;
}

/**
 * Joins the team of a received invitation by its id, as the user it was sent to (an invitation to an address the user
 * has not verified is VERIFICATION_CODE_NOT_FOUND for them; restricted users may not join).
 */
export function acceptTeamInvitationById(
  t: Transport,
  invitationId: string,
  userId = 'me',
): Promise<Record<string, never>> {
  return t.request({
    method: 'POST',
    path: `/team-invitations/${requireUuid(invitationId, 'invitationId')}/accept`,
    query: { user_id: requireUserId(userId) },
  });
}

/** Clients need `$remove_members`. */
export function revokeTeamInvitation(
  t: Transport,
  input: { teamId: string; invitationId: string },
): Promise<SuccessResponse> {
  const { teamId, invitationId } = requireObject(input, 'input');
  const team_id = requireUuid(teamId, 'teamId');
  return t.request({
    method: 'DELETE',
    path: `/team-invitations/${requireUuid(invitationId, 'invitationId')}`,
    query: { team_id },
  });
}

/**
 * Joins the team of the invitation. The code is not bound to the invited address; it is consumed
 * even when the caller turns out to be signed out.
 */
export function acceptTeamInvitation(t: Transport, code: string): Promise<Record<string, never>> {
  return t.request({
    method: 'POST',
    path: '/team-invitations/accept',
    body: { code: requireNonEmptyString(code, 'code') },
  });
}

/** Whether an invitation code may still be used (without using it). */
export function checkTeamInvitationCode(t: Transport, code: string): Promise<CodeCheckResponse> {
  return t.request({
    method: 'POST',
    path: '/team-invitations/accept/check-code',
    body: { code: requireNonEmptyString(code, 'code') },
  });
}

/** Which team a code invites to, without using it (needs a signed-in user). */
export function getTeamInvitationDetails(t: Transport, code: string): Promise<TeamInvitationDetails> {
  return t.request({
    method: 'POST',
    path: '/team-invitations/accept/details',
    body: { code: requireNonEmptyString(code, 'code') },
  });
}
