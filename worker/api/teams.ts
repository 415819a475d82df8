import type { BrokerApi } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { camelize, snakeize } from '../../protocol/models.js';
import { required } from './auth.js';
import type { ApiContext } from './context.js';

type TeamMethods =
  | 'createTeam'
  | 'updateTeam'
  | 'deleteTeam'
  | 'leaveTeam'
  | 'removeTeamMember'
  | 'updateTeamProfile'
  | 'inviteToTeam'
  | 'revokeTeamInvitation'
  | 'acceptTeamInvitation'
  | 'acceptTeamInvitationById'
  | 'checkTeamInvitationCode'
  | 'getTeamInvitationDetails';

export function teamMethods({
  transports,
  queries,
}: Pick<ApiContext, 'transports' | 'queries'>): Pick<BrokerApi, TeamMethods> {
  const t = transports.client;
  /** A team that appeared or disappeared changes the list and possibly the selected team. */
  const membershipChanged = (teamId?: string) => {
    queries.invalidate({ kind: 'teams' });
    queries.invalidate({ kind: 'currentUser' });
    queries.invalidate({ kind: 'receivedTeamInvitations' });
    if (teamId !== undefined) {
      for (const kind of ['team', 'teamMembers', 'teamProfile', 'permissions'] as const)
        queries.invalidate({ kind, teamId });
    }
  };
  return {
    async createTeam({ displayName, profileImageUrl, clientMetadata }) {
      const team = await endpoints.createTeam(t, {
        display_name: displayName,
        ...(profileImageUrl === undefined ? {} : { profile_image_url: profileImageUrl }),
        ...(clientMetadata === undefined ? {} : { client_metadata: clientMetadata }),
        creator_user_id: 'me',
      });
      membershipChanged();
      return camelize(team);
    },
    async updateTeam(teamId, update) {
      const team = camelize(await endpoints.updateTeam(t, teamId, snakeize({ ...update })));
      queries.setQueryData({ kind: 'team', teamId }, team);
      queries.invalidate({ kind: 'teams' });
      queries.invalidate({ kind: 'currentUser' });
      return team;
    },
    async deleteTeam(teamId) {
      await endpoints.deleteTeam(t, teamId);
      membershipChanged(teamId);
    },
    async leaveTeam(teamId) {
      await endpoints.removeTeamMember(t, teamId, 'me');
      membershipChanged(teamId);
    },
    async removeTeamMember(teamId, userId) {
      await endpoints.removeTeamMember(t, teamId, userId);
      queries.invalidate({ kind: 'teamMembers', teamId });
    },
    async updateTeamProfile(teamId, update) {
      const profile = camelize(await endpoints.updateTeamMemberProfile(t, teamId, 'me', snakeize(update)));
      queries.setQueryData({ kind: 'teamProfile', teamId }, profile);
      queries.invalidate({ kind: 'teamMembers', teamId });
      return profile;
    },
    async inviteToTeam({ teamId, email, callbackUrl }) {
      const { id } = await endpoints.sendTeamInvitation(t, {
        team_id: teamId,
        email,
        callback_url: required(callbackUrl),
      });
      queries.invalidate({ kind: 'teamInvitations', teamId });
      return { invitationId: id };
    },
    async revokeTeamInvitation({ teamId, invitationId }) {
      await endpoints.revokeTeamInvitation(t, { teamId, invitationId });
      queries.invalidate({ kind: 'teamInvitations', teamId });
    },
    async acceptTeamInvitation(code) {
      await endpoints.acceptTeamInvitation(t, code);
      membershipChanged();
    },
    async acceptTeamInvitationById(invitationId) {
      await endpoints.acceptTeamInvitationById(t, invitationId, 'me');
      membershipChanged();
    },
    async checkTeamInvitationCode(code) {
      await endpoints.checkTeamInvitationCode(t, code);
    },
    async getTeamInvitationDetails(code) {
      return camelize(await endpoints.getTeamInvitationDetails(t, code));
    },
  };
}
