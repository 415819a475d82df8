import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const plain = (status: number, body: string) => ({ code: 'HTTP_STATUS_ERROR', status, body });

async function newUser(em: RunningEmulator, displayName?: string) {
  const server = transportFor(em, 'server');
  const user = await endpoints.createUser(server, {
    primary_email: uniqueEmail('team'),
    ...(displayName === undefined ? {} : { display_name: displayName }),
  });
  const { access_token } = await endpoints.createSession(server, { user_id: user.id });
  return { user, client: transportFor(em, 'client', { accessToken: access_token }) };
}

/** A team created by a client (its creator gets `admin`) plus a plain member (gets `member`). */
async function teamWithMember(em: RunningEmulator) {
  const owner = await newUser(em, 'Owner');
  const member = await newUser(em, 'Member');
  const team = await endpoints.createTeam(owner.client, { display_name: 'Crew' });
  await endpoints.addTeamMember(transportFor(em, 'server'), team.id, member.user.id);
  return { owner, member, team };
}

function raw(
  em: RunningEmulator,
  method: string,
  path: string,
  options: { access?: 'client' | 'server'; token?: string; body?: unknown } = {},
) {
  const keys = em.projects.demo;
  const access = options.access ?? 'server';
  return fetch(`${em.url}/api/v1${path}`, {
    method,
    headers: {
      'x-stack-project-id': keys.id,
      'x-stack-access-type': access,
      ...(access === 'client'
        ? { 'x-stack-publishable-client-key': keys.publishableClientKey }
        : { 'x-stack-secret-server-key': keys.secretServerKey }),
      ...(options.token === undefined ? {} : { 'x-stack-access-token': options.token }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

describe('teams', () => {
  it('lists teams: clients only their own, in creation order', async () => {
    const em = emulator();
    const { user, client } = await newUser(em);
    const first = await endpoints.createTeam(client, { display_name: 'First' });
    const second = await endpoints.createTeam(client, { display_name: 'Second' });
    expect((await endpoints.listTeams(client, { userId: 'me' })).map((t) => t.id)).toEqual([first.id, second.id]);
    expect((await endpoints.listTeams(client, { userId: user.id }))[0]).not.toHaveProperty('created_at_millis');
    const refusal = plain(
      403,
      'Client can only list teams for their own user. user_id must be either "me" or the ID of the current user',
    );
    await expect(endpoints.listTeams(client)).rejects.toMatchObject(refusal);
    await expect(endpoints.listTeams(client, { userId: crypto.randomUUID() })).rejects.toMatchObject(refusal);
    await expect(endpoints.listTeams(transportFor(em, 'client'), { userId: 'me' })).rejects.toMatchObject({
      code: 'CANNOT_GET_OWN_USER_WITHOUT_USER',
    });
    const everything = await endpoints.listTeams(transportFor(em, 'server'));
    expect(everything.map((t) => t.id)).toEqual(expect.arrayContaining([first.id, second.id]));
  });

  it('creates teams for clients with the creator as admin', async () => {
    const em = emulator();
    const { user, client } = await newUser(em);
    await expect(endpoints.createTeam(transportFor(em, 'client'), { display_name: 'x' })).rejects.toMatchObject({
      code: 'USER_AUTHENTICATION_REQUIRED',
      status: 401,
    });
    await expect(
      endpoints.createTeam(client, { display_name: 'x', profile_image_url: 'https://example.com/x.png' }),
    ).rejects.toMatchObject(plain(400, 'Invalid profile image URL'));
    await expect(
      endpoints.createTeam(client, { display_name: 'x', creator_user_id: crypto.randomUUID() }),
    ).rejects.toMatchObject(
      plain(
        403,
        "You cannot create a team as a user that is not yourself. Make sure you set the creator_user_id to 'me'.",
      ),
    );
    const config = em.env.store.project(em.projects.demo.id)!.config;
    config.client_team_creation_enabled = false;
    await expect(endpoints.createTeam(client, { display_name: 'x' })).rejects.toMatchObject(
      plain(403, 'Client team creation is disabled for this project'),
    );
    config.client_team_creation_enabled = true;
    const team = await endpoints.createTeam(client, { display_name: 'Mine', client_metadata: { a: 1 } });
    expect(team).toEqual({
      id: team.id,
      display_name: 'Mine',
      profile_image_url: null,
      client_metadata: { a: 1 },
      client_read_only_metadata: null,
    });
    const grants = await endpoints.listTeamPermissions(client, { user_id: 'me', team_id: team.id });
    expect(grants).toEqual([{ id: 'team_admin', team_id: team.id, user_id: user.id }]);
  });

  it('creates teams for servers, with or without a creator', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { user } = await newUser(em);
    const response = await raw(em, 'POST', '/teams', {
      body: { display_name: 'Server team', server_metadata: { s: true } },
    });
    expect(response.status).toBe(201);
    const team = (await response.json()) as { id: string; server_metadata: unknown; created_at_millis: number };
    expect(team.server_metadata).toEqual({ s: true });
    expect(await endpoints.listTeamMemberProfiles(server, { teamId: team.id })).toEqual([]);
    await expect(
      endpoints.createTeam(server, { display_name: 'x', creator_user_id: crypto.randomUUID() }),
    ).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    const both = await raw(em, 'POST', '/teams?add_current_user=false', {
      body: { display_name: 'x', creator_user_id: user.id },
    });
    expect(both.status).toBe(400);
    expect(await both.text()).toBe(
      'Cannot use both creator_user_id and add_current_user. add_current_user is deprecated, please only use creator_user_id in the body.',
    );
    const signedOut = await raw(em, 'POST', '/teams?add_current_user=true', { body: { display_name: 'x' } });
    expect(signedOut.status).toBe(401);
    expect(await signedOut.text()).toBe('You must be logged in to create a team with the current user as a member.');
  });

  it('reads, updates and deletes with the right permissions', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { owner, member, team } = await teamWithMember(em);
    const stranger = await newUser(em);
    expect((await endpoints.getTeam(member.client, team.id)).display_name).toBe('Crew');
    await expect(endpoints.getTeam(stranger.client, team.id)).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
      status: 404,
    });
    await expect(endpoints.getTeam(transportFor(em, 'client'), team.id)).rejects.toMatchObject({
      code: 'USER_AUTHENTICATION_REQUIRED',
    });
    const missing = crypto.randomUUID();
    await expect(endpoints.getTeam(server, missing)).rejects.toMatchObject({
      code: 'TEAM_NOT_FOUND',
      status: 404,
      details: { team_id: missing },
    });

    await expect(endpoints.updateTeam(member.client, team.id, { display_name: 'Nope' })).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      status: 401,
      details: { team_id: team.id, user_id: member.user.id, permission_id: '$update_team' },
    });
    await expect(endpoints.updateTeam(owner.client, team.id, { server_metadata: {} } as never)).rejects.toMatchObject({
      code: 'SCHEMA_ERROR',
    });
    expect((await endpoints.updateTeam(owner.client, team.id, { display_name: 'Renamed' })).display_name).toBe(
      'Renamed',
    );
    expect((await endpoints.updateTeam(server, team.id, { server_metadata: { k: 1 } })).server_metadata).toEqual({
      k: 1,
    });
    await expect(endpoints.updateTeam(server, missing, { display_name: 'x' })).rejects.toMatchObject({
      code: 'TEAM_NOT_FOUND',
    });

    await expect(endpoints.deleteTeam(member.client, team.id)).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      details: { permission_id: '$delete_team' },
    });
    await expect(endpoints.deleteTeam(owner.client, team.id)).resolves.toEqual({ success: true });
    await expect(endpoints.getTeam(server, team.id)).rejects.toMatchObject({ code: 'TEAM_NOT_FOUND' });
    expect(await endpoints.listTeams(member.client, { userId: 'me' })).toEqual([]);
  });
});

describe('team memberships', () => {
  it('adds members with body {} (201) and refuses duplicates', async () => {
    const em = emulator();
    const { user } = await newUser(em);
    const team = await endpoints.createTeam(transportFor(em, 'server'), { display_name: 'Club' });
    const bad = await raw(em, 'POST', `/team-memberships/${team.id}/${user.id}`, { body: { role: 'x' } });
    expect(bad.headers.get('x-stack-known-error')).toBe('SCHEMA_ERROR');
    const added = await raw(em, 'POST', `/team-memberships/${team.id}/${user.id}`, { body: {} });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ team_id: team.id, user_id: user.id });
    const again = await raw(em, 'POST', `/team-memberships/${team.id}/${user.id}`, { body: {} });
    expect([again.status, again.headers.get('x-stack-known-error')]).toEqual([409, 'TEAM_MEMBERSHIP_ALREADY_EXISTS']);
    const server = transportFor(em, 'server');
    await expect(endpoints.addTeamMember(server, team.id, crypto.randomUUID())).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await expect(endpoints.addTeamMember(server, crypto.randomUUID(), user.id)).rejects.toMatchObject({
      code: 'TEAM_NOT_FOUND',
    });
    expect(
      (await endpoints.listTeamPermissions(server, { team_id: team.id, user_id: user.id })).map((p) => p.id),
    ).toEqual(['team_member']);
  });

  it('lets anyone leave, and only $remove_members remove others', async () => {
    const em = emulator();
    const { owner, member, team } = await teamWithMember(em);
    const other = await newUser(em);
    await endpoints.addTeamMember(transportFor(em, 'server'), team.id, other.user.id);
    await endpoints.updateCurrentUser(other.client, { selected_team_id: team.id });
    await expect(endpoints.removeTeamMember(member.client, team.id, other.user.id)).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      details: { permission_id: '$remove_members' },
    });
    await endpoints.removeTeamMember(owner.client, team.id, other.user.id);
    expect((await endpoints.getCurrentUser(other.client))!.selected_team_id).toBeNull();
    await endpoints.removeTeamMember(member.client, team.id, 'me');
    await expect(endpoints.removeTeamMember(member.client, team.id, 'me')).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
    });
    const profiles = await endpoints.listTeamMemberProfiles(owner.client, { teamId: team.id });
    expect(profiles.map((p) => p.user_id)).toEqual([owner.user.id]);
  });
});

describe('team member profiles', () => {
  it('lists members for clients with $read_members, themselves without', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { owner, member, team } = await teamWithMember(em);
    await expect(endpoints.listTeamMemberProfiles(member.client, {})).rejects.toMatchObject(
      plain(400, 'team_id is required for access type client'),
    );
    const listed = await endpoints.listTeamMemberProfiles(member.client, { teamId: team.id });
    expect(listed).toEqual([
      { team_id: team.id, user_id: owner.user.id, display_name: 'Owner', profile_image_url: null },
      { team_id: team.id, user_id: member.user.id, display_name: 'Member', profile_image_url: null },
    ]);
    await endpoints.revokeTeamPermission(server, team.id, member.user.id, 'team_member');
    await expect(endpoints.listTeamMemberProfiles(member.client, { teamId: team.id })).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      details: { permission_id: '$read_members' },
    });
    await expect(endpoints.getTeamMemberProfile(member.client, team.id, owner.user.id)).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
    });
    expect(await endpoints.listTeamMemberProfiles(member.client, { teamId: team.id, userId: 'me' })).toHaveLength(1);
    expect((await endpoints.getTeamMemberProfile(member.client, team.id, 'me')).user_id).toBe(member.user.id);
    const stranger = await newUser(em);
    await expect(endpoints.listTeamMemberProfiles(stranger.client, { teamId: team.id })).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
    });
    await expect(endpoints.listTeamMemberProfiles(server, { teamId: crypto.randomUUID() })).rejects.toMatchObject({
      code: 'TEAM_NOT_FOUND',
    });
    await expect(endpoints.listTeamMemberProfiles(server, { userId: crypto.randomUUID() })).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
  });

  it('updates only your own profile; the profile overrides the user name', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { owner, member, team } = await teamWithMember(em);
    await expect(
      endpoints.updateTeamMemberProfile(owner.client, team.id, member.user.id, { display_name: 'x' }),
    ).rejects.toMatchObject(plain(403, "Cannot update another user's profile"));
    const updated = await endpoints.updateTeamMemberProfile(member.client, team.id, 'me', { display_name: 'Captain' });
    expect(updated).toEqual({
      team_id: team.id,
      user_id: member.user.id,
      display_name: 'Captain',
      profile_image_url: null,
    });
    const asServer = await endpoints.getTeamMemberProfile(server, team.id, member.user.id);
    expect(asServer).toMatchObject({ display_name: 'Captain', user: { id: member.user.id, display_name: 'Member' } });
    expect(asServer.user).toHaveProperty('server_metadata');
    await expect(endpoints.getTeamMemberProfile(server, team.id, crypto.randomUUID())).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
  });
});
