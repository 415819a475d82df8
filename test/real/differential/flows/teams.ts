import * as api from '../../../../protocol/endpoints/index.js';
import { codeFromMail, type Flow } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

export const teamFlow: Flow = {
  name: 'team',
  covers: 'teams, memberships, member profiles and invitations by e-mail',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const ownerEmail = ctx.email('owner');
    const guestEmail = ctx.email('guest');
    const owner = await ctx.step('sign-up (owner)', () =>
      api.signUpWithPassword(client, { email: ownerEmail, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    const guest = await ctx.step('sign-up (guest)', () =>
      api.signUpWithPassword(client, { email: guestEmail, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    if (!owner || !guest) return;
    const me = ctx.client(owner);
    const team = await ctx.step('create a team (client)', () =>
      api.createTeam(me, { display_name: 'Team A', creator_user_id: 'me' }),
    );
    await ctx.step('create a team without a name', () => api.createTeam(me, { creator_user_id: 'me' } as never));
    await ctx.step('list my teams (client)', () => api.listTeams(me, { userId: 'me' }));
    await ctx.step('list teams (server)', () => api.listTeams(ctx.server()));
    await ctx.raw('list teams without user_id (client)', {
      method: 'GET',
      path: '/teams',
      headers: ctx.headers('client', { 'x-stack-access-token': owner.access_token }),
    });
    if (!team) return;
    await ctx.step('get the team (client)', () => api.getTeam(me, team.id));
    await ctx.step('get the team (server)', () => api.getTeam(ctx.server(), team.id));
    await ctx.step('get an unknown team', () => api.getTeam(me, NOBODY));
    await ctx.step('update the team (client)', () =>
      api.updateTeam(me, team.id, { display_name: 'Team B', client_metadata: { a: 1 } }),
    );
    await ctx.step('update the team (server)', () =>
      api.updateTeam(ctx.server(), team.id, { server_metadata: { s: 1 } }),
    );
    await ctx.step('select the team', () => api.updateCurrentUser(me, { selected_team_id: team.id }));
    await ctx.step('users/me with a selected team', () => api.getCurrentUser(me));
    await ctx.step('member profiles of the team (client)', () => api.listTeamMemberProfiles(me, { teamId: team.id }));
    await ctx.step('member profiles of the team (server)', () =>
      api.listTeamMemberProfiles(ctx.server(), { teamId: team.id }),
    );
    await ctx.step('my profile in the team', () => api.getTeamMemberProfile(me, team.id, 'me'));
    await ctx.step('update my profile in the team', () =>
      api.updateTeamMemberProfile(me, team.id, 'me', { display_name: 'Captain' }),
    );

    const guestMe = await ctx.step('users/me (guest)', () => api.getCurrentUser(ctx.client(guest)));
    const guestId = guestMe?.id ?? NOBODY;
    await ctx.step('the guest reads the team', () => api.getTeam(ctx.client(guest), team.id));
    const invitation = await ctx.step('invite by e-mail', () =>
      api.sendTeamInvitation(me, {
        team_id: team.id,
        email: guestEmail,
        callback_url: 'http://localhost:5173/handler/team-invitation',
      }),
    );
    await ctx.step('list invitations', () => api.listTeamInvitations(me, team.id));
    const mail = await ctx.mail(guestEmail, /invit|join/i);
    const code = codeFromMail(mail) ?? 'q'.repeat(45);
    await ctx.step('invitation: details', () => api.getTeamInvitationDetails(ctx.client(guest), code));
    await ctx.step('invitation: check the code', () => api.checkTeamInvitationCode(ctx.client(guest), code));
    await ctx.step('invitation: accept', () => api.acceptTeamInvitation(ctx.client(guest), code));
    await ctx.step('invitation: accept again', () => api.acceptTeamInvitation(ctx.client(guest), code));
    await ctx.step('invitation: a wrong code', () => api.checkTeamInvitationCode(ctx.client(guest), 'q'.repeat(45)));
    const second = await ctx.step('invite another address', () =>
      api.sendTeamInvitation(me, {
        team_id: team.id,
        email: ctx.email('later'),
        callback_url: 'http://localhost:5173/handler/team-invitation',
      }),
    );
    const revokeId = second?.id ?? invitation?.id;
    if (revokeId)
      await ctx.step('revoke an invitation', () =>
        api.revokeTeamInvitation(me, { teamId: team.id, invitationId: revokeId }),
      );
    await ctx.step('the guest lists its teams', () => api.listTeams(ctx.client(guest), { userId: 'me' }));
    await ctx.step('remove the guest (client, owner)', () => api.removeTeamMember(me, team.id, guestId));
    await ctx.step('add the guest back (server)', () => api.addTeamMember(ctx.server(), team.id, guestId));
    await ctx.step('add the guest again (server)', () => api.addTeamMember(ctx.server(), team.id, guestId));
    await ctx.step('the guest leaves', () => api.removeTeamMember(ctx.client(guest), team.id, 'me'));
    await ctx.step('the guest deletes the team (no permission)', () => api.deleteTeam(ctx.client(guest), team.id));
    await ctx.step('delete the team (client, owner)', () => api.deleteTeam(me, team.id));
    await ctx.step('delete it again', () => api.deleteTeam(me, team.id));
    const serverTeam = await ctx.step('create a team (server)', () =>
      api.createTeam(ctx.server(), { display_name: 'Server team', server_metadata: { x: 1 } }),
    );
    if (serverTeam) await ctx.step('delete a team (server)', () => api.deleteTeam(ctx.server(), serverTeam.id));
  },
};

export const permissionFlow: Flow = {
  name: 'permission',
  covers: 'team permission definitions (admin), granting, listing and revoking team permissions',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const admin = ctx.admin();
    const owner = await ctx.step('sign-up', () =>
      api.signUpWithPassword(ctx.client(), {
        email: ctx.email('perm'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    await ctx.step('list definitions', () => api.listPermissionDefinitions(admin));
    await ctx.step('create a definition', () =>
      api.createPermissionDefinition(admin, { id: 'read_reports', description: 'Read reports' }),
    );
    await ctx.step('create a containing definition', () =>
      api.createPermissionDefinition(admin, { id: 'manage_reports', contained_permission_ids: ['read_reports'] }),
    );
    await ctx.step('create a definition twice', () => api.createPermissionDefinition(admin, { id: 'read_reports' }));
    await ctx.step('create a definition with a bad id', () => api.createPermissionDefinition(admin, { id: 'Bad Id!' }));
    await ctx.step('update a definition', () =>
      api.updatePermissionDefinition(admin, 'read_reports', { description: 'Read all reports' }),
    );
    await ctx.step('list definitions after', () => api.listPermissionDefinitions(admin));
    if (!owner) return;
    const me = ctx.client(owner);
    const user = await ctx.step('users/me', () => api.getCurrentUser(me));
    const team = await ctx.step('create a team', () =>
      api.createTeam(me, { display_name: 'Perm team', creator_user_id: 'me' }),
    );
    if (!team || !user) return;
    await ctx.step("the creator's permissions", () => api.listTeamPermissions(me, { team_id: team.id, user_id: 'me' }));
    await ctx.step('grant (server)', () => api.grantTeamPermission(ctx.server(), team.id, user.id, 'manage_reports'));
    await ctx.step('grant twice', () => api.grantTeamPermission(ctx.server(), team.id, user.id, 'manage_reports'));
    await ctx.step('grant an unknown permission', () =>
      api.grantTeamPermission(ctx.server(), team.id, user.id, 'no_such_permission'),
    );
    await ctx.step('list, direct', () => api.listTeamPermissions(me, { team_id: team.id, user_id: 'me' }));
    await ctx.step('list, recursive', () =>
      api.listTeamPermissions(me, { team_id: team.id, user_id: 'me', recursive: true }),
    );
    await ctx.step('list one permission (server)', () =>
      api.listTeamPermissions(ctx.server(), {
        team_id: team.id,
        user_id: user.id,
        permission_id: 'read_reports',
        recursive: true,
      }),
    );
    await ctx.step("list another user's (client)", () =>
      api.listTeamPermissions(me, { team_id: team.id, user_id: NOBODY }),
    );
    await ctx.step('revoke (server)', () => api.revokeTeamPermission(ctx.server(), team.id, user.id, 'manage_reports'));
    await ctx.step('revoke twice', () => api.revokeTeamPermission(ctx.server(), team.id, user.id, 'manage_reports'));
    await ctx.step('delete a definition', () => api.deletePermissionDefinition(admin, 'manage_reports'));
    await ctx.step('delete an unknown definition', () => api.deletePermissionDefinition(admin, 'manage_reports'));
  },
};
