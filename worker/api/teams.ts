import { requireNonEmptyString, requireUrl, requireUserId, requireUuid } from '../../protocol/args.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import type { BrokerCore } from '../core.js';
import { camelize, snakeize } from '../models.js';
import { optionalJson, optionalNullableString, optionalString, requireInput } from './args.js';
import type { BrokerApi } from './types.js';

export function teamMethods(core: BrokerCore): Pick<
  BrokerApi,
  | 'createTeam'
  | 'updateTeam'
  | 'deleteTeam'
  | 'leaveTeam'
  | 'removeTeamMember'
  | 'updateTeamProfile'
  | 'inviteToTeam'
  | 'revokeTeamInvitation'
  | 'acceptTeamInvitation'
  | 'checkTeamInvitationCode'
  | 'getTeamInvitationDetails'
> {
  const t = core.client;
  /** A team that appeared or disappeared changes the list and possibly the selected team. */
  const membershipChanged = (teamId?: string) => {
    core.invalidate({ kind: 'teams' });
    core.invalidate({ kind: 'currentUser' });
    if (teamId !== undefined) {
      core.invalidate({ kind: 'team', teamId });
      core.invalidate({ kind: 'teamMembers', teamId });
      core.invalidate({ kind: 'permissions', teamId });
    }
  };
  return {
    async createTeam(input) {
      const i = requireInput(input, 'input', ['displayName', 'profileImageUrl', 'clientMetadata']);
      const team = await endpoints.createTeam(t, {
        display_name: requireNonEmptyString(i.displayName, 'displayName'),
        ...(i.profileImageUrl === undefined ? {} : { profile_image_url: optionalNullableString(i.profileImageUrl, 'profileImageUrl') ?? null }),
        ...(i.clientMetadata === undefined ? {} : { client_metadata: optionalJson(i.clientMetadata, 'clientMetadata')! }),
        creator_user_id: 'me',
      });
      membershipChanged();
      return camelize(team);
    },
    async updateTeam(teamId, update) {
      const id = requireUuid(teamId, 'teamId');
      const u = requireInput(update, 'update', ['displayName', 'profileImageUrl', 'clientMetadata']);
      optionalString(u.displayName, 'update.displayName');
      optionalNullableString(u.profileImageUrl, 'update.profileImageUrl');
      const team = camelize(await endpoints.updateTeam(t, id, snakeize({ ...u, clientMetadata: optionalJson(u.clientMetadata, 'update.clientMetadata') })));
      core.setQueryData({ kind: 'team', teamId: id }, team);
      core.invalidate({ kind: 'teams' });
      core.invalidate({ kind: 'currentUser' });
      return team;
    },
    async deleteTeam(teamId) {
      const id = requireUuid(teamId, 'teamId');
      await endpoints.deleteTeam(t, id);
      membershipChanged(id);
    },
    async leaveTeam(teamId) {
      const id = requireUuid(teamId, 'teamId');
      await endpoints.removeTeamMember(t, id, 'me');
      membershipChanged(id);
    },
    async removeTeamMember(teamId, userId) {
      const id = requireUuid(teamId, 'teamId');
      await endpoints.removeTeamMember(t, id, requireUserId(userId));
      core.invalidate({ kind: 'teamMembers', teamId: id });
    },
    async updateTeamProfile(teamId, update) {
      const id = requireUuid(teamId, 'teamId');
      const u = requireInput(update, 'update', ['displayName', 'profileImageUrl']);
      optionalString(u.displayName, 'update.displayName');
      optionalNullableString(u.profileImageUrl, 'update.profileImageUrl');
      const profile = await endpoints.updateTeamMemberProfile(t, id, 'me', snakeize(u));
      core.invalidate({ kind: 'teamMembers', teamId: id });
      return camelize(profile);
    },
    async inviteToTeam(input) {
      const i = requireInput(input, 'input', ['teamId', 'email', 'callbackUrl']);
      const teamId = requireUuid(i.teamId, 'teamId');
      const { id } = await endpoints.sendTeamInvitation(t, { team_id: teamId, email: requireNonEmptyString(i.email, 'email'), callback_url: requireUrl(i.callbackUrl, 'callbackUrl') });
      core.invalidate({ kind: 'teamInvitations', teamId });
      return { invitationId: id };
    },
    async revokeTeamInvitation(teamId, invitationId) {
      const id = requireUuid(teamId, 'teamId');
      await endpoints.revokeTeamInvitation(t, requireUuid(invitationId, 'invitationId'), id);
      core.invalidate({ kind: 'teamInvitations', teamId: id });
    },
    async acceptTeamInvitation(code) {
      await endpoints.acceptTeamInvitation(t, requireNonEmptyString(code, 'code'));
      membershipChanged();
    },
    async checkTeamInvitationCode(code) {
      await endpoints.checkTeamInvitationCode(t, requireNonEmptyString(code, 'code'));
    },
    async getTeamInvitationDetails(code) {
      return camelize(await endpoints.getTeamInvitationDetails(t, requireNonEmptyString(code, 'code')));
    },
  };
}
