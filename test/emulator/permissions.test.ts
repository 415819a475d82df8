import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const plain = (status: number, body: string) => ({ code: 'HTTP_STATUS_ERROR', status, body });

async function newUser(em: RunningEmulator) {
  const server = transportFor(em, 'server');
  const user = await endpoints.createUser(server, { primary_email: uniqueEmail('perm') });
  const { access_token } = await endpoints.createSession(server, { user_id: user.id });
  return { user, client: transportFor(em, 'client', { accessToken: access_token }) };
}

function raw(em: RunningEmulator, method: string, path: string, body?: unknown) {
  return fetch(`${em.url}/api/v1${path}`, {
    method,
    headers: {
      'x-stack-project-id': em.projects.demo.id,
      'x-stack-access-type': 'admin',
      'x-stack-super-secret-admin-key': em.projects.demo.superSecretAdminKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  const admin = transportFor(emulator(), 'admin');
  await endpoints.createPermissionDefinition(admin, {
    id: 'reader',
    description: 'Reads things',
    contained_permission_ids: ['$read_members'],
  });
  await endpoints.createPermissionDefinition(admin, {
    id: 'team:editor',
    contained_permission_ids: ['reader', '$update_team', 'reader'],
  });
});

describe('permission definitions', () => {
  it('lists the system permissions first with their fixed descriptions, then custom ones', async () => {
    const em = emulator();
    const list = await endpoints.listPermissionDefinitions(transportFor(em, 'admin'));
    expect(list.slice(0, 6)).toEqual([
      { id: '$delete_team', description: 'Delete the team', contained_permission_ids: [] },
      { id: '$invite_members', description: 'Invite other users to the team', contained_permission_ids: [] },
      { id: '$manage_api_keys', description: 'Create and manage API keys for the team', contained_permission_ids: [] },
      { id: '$read_members', description: 'Read and list the other members of the team', contained_permission_ids: [] },
      { id: '$remove_members', description: 'Remove other members from the team', contained_permission_ids: [] },
      { id: '$update_team', description: 'Update the team information', contained_permission_ids: [] },
    ]);
    expect(list.map((d) => d.id).slice(6)).toEqual(['reader', 'team:editor', 'team_admin', 'team_member']);
    expect(list.find((d) => d.id === 'team_member')).toEqual({
      id: 'team_member',
      description: 'Default permission for team members',
      contained_permission_ids: ['$invite_members', '$read_members'],
    });
    // No description: the key is left out; contained ids are sorted and unique.
    expect(list.find((d) => d.id === 'team:editor')).toEqual({
      id: 'team:editor',
      contained_permission_ids: ['$update_team', 'reader'],
    });
    await expect(endpoints.listPermissionDefinitions(transportFor(em, 'server') as never)).rejects.toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
    });
  });

  it('creates with 201 and validates ids and containments', async () => {
    const em = emulator();
    const created = await raw(em, 'POST', '/team-permission-definitions', { id: 'billing:view' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 'billing:view', contained_permission_ids: [] });
    for (const id of ['Billing', 'has-dash', '$custom']) {
      const bad = await raw(em, 'POST', '/team-permission-definitions', { id });
      expect(bad.headers.get('x-stack-known-error')).toBe('SCHEMA_ERROR');
    }
    const admin = transportFor(em, 'admin');
    await expect(
      endpoints.createPermissionDefinition(admin, { id: 'x', contained_permission_ids: ['ghost'] }),
    ).rejects.toMatchObject({
      code: 'CONTAINED_PERMISSION_NOT_FOUND',
      status: 400,
      details: { permission_id: 'ghost' },
    });
    await expect(endpoints.createPermissionDefinition(admin, { id: 'billing:view' })).rejects.toMatchObject({
      code: 'PERMISSION_ID_ALREADY_EXISTS',
      status: 400,
      details: { permission_id: 'billing:view' },
    });
  });

  it('renames, replacing the id in grants and containments', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const server = transportFor(em, 'server');
    await endpoints.createPermissionDefinition(admin, { id: 'old_name', description: 'Old' });
    await endpoints.createPermissionDefinition(admin, { id: 'wrapper', contained_permission_ids: ['old_name'] });
    const { user } = await newUser(em);
    const team = await endpoints.createTeam(server, { display_name: 'Rename', creator_user_id: user.id });
    await endpoints.grantTeamPermission(server, team.id, user.id, 'old_name');
    const renamed = await endpoints.updatePermissionDefinition(admin, 'old_name', {
      id: 'new_name',
      description: 'New',
    });
    expect(renamed).toEqual({ id: 'new_name', description: 'New', contained_permission_ids: [] });
    const list = await endpoints.listPermissionDefinitions(admin);
    expect(list.find((d) => d.id === 'wrapper')?.contained_permission_ids).toEqual(['new_name']);
    expect(list.some((d) => d.id === 'old_name')).toBe(false);
    const grants = await endpoints.listTeamPermissions(server, { team_id: team.id, user_id: user.id });
    expect(grants.map((g) => g.id)).toEqual(['new_name', 'team_admin']);
    expect(
      (await endpoints.updatePermissionDefinition(admin, 'wrapper', { contained_permission_ids: ['$delete_team'] }))
        .contained_permission_ids,
    ).toEqual(['$delete_team']);

    await expect(endpoints.updatePermissionDefinition(admin, 'missing', { description: 'x' })).rejects.toMatchObject({
      code: 'PERMISSION_NOT_FOUND',
      status: 404,
    });
    await expect(
      endpoints.updatePermissionDefinition(admin, '$read_members', { description: 'x' }),
    ).rejects.toMatchObject(plain(400, 'System permissions cannot be updated.'));
    await expect(endpoints.updatePermissionDefinition(admin, 'new_name', { id: 'wrapper' })).rejects.toMatchObject({
      code: 'PERMISSION_ID_ALREADY_EXISTS',
      details: { permission_id: 'wrapper' },
    });
    await expect(
      endpoints.updatePermissionDefinition(admin, 'new_name', { contained_permission_ids: ['nope'] }),
    ).rejects.toMatchObject({ code: 'CONTAINED_PERMISSION_NOT_FOUND' });
  });

  it('deletes, removing grants; renaming a default permission keeps new members getting it', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const server = transportFor(em, 'server');
    await endpoints.createPermissionDefinition(admin, { id: 'temporary' });
    const { user } = await newUser(em);
    const team = await endpoints.createTeam(server, { display_name: 'Delete' });
    await endpoints.addTeamMember(server, team.id, user.id);
    await endpoints.grantTeamPermission(server, team.id, user.id, 'temporary');
    await expect(endpoints.deletePermissionDefinition(admin, 'temporary')).resolves.toEqual({ success: true });
    expect((await endpoints.listTeamPermissions(server, { team_id: team.id })).map((g) => g.id)).toEqual([
      'team_member',
    ]);
    await expect(endpoints.deletePermissionDefinition(admin, 'temporary')).rejects.toMatchObject({
      code: 'PERMISSION_NOT_FOUND',
      details: { permission_id: 'temporary' },
    });
    await expect(endpoints.deletePermissionDefinition(admin, '$delete_team')).rejects.toMatchObject(
      plain(400, 'System permissions cannot be deleted.'),
    );

    await endpoints.updatePermissionDefinition(admin, 'team_member', { id: 'crew' });
    try {
      const other = await newUser(em);
      await endpoints.addTeamMember(server, team.id, other.user.id);
      expect(
        (await endpoints.listTeamPermissions(server, { team_id: team.id, user_id: other.user.id })).map((g) => g.id),
      ).toEqual(['crew']);
      expect(
        (await endpoints.listTeamPermissions(server, { team_id: team.id, user_id: user.id })).map((g) => g.id),
      ).toEqual(['crew']);
    } finally {
      await endpoints.updatePermissionDefinition(admin, 'crew', { id: 'team_member' });
    }
  });
});

describe('team permissions', () => {
  it('expands recursively through custom definitions down to system permissions', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { user, client } = await newUser(em);
    const team = await endpoints.createTeam(server, { display_name: 'Recursive' });
    await endpoints.addTeamMember(server, team.id, user.id);
    await expect(endpoints.updateTeam(client, team.id, { display_name: 'Not yet' })).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
    });
    const response = await fetch(`${em.url}/api/v1/team-permissions/${team.id}/${user.id}/team:editor`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-stack-project-id': em.projects.demo.id,
        'x-stack-access-type': 'server',
        'x-stack-secret-server-key': em.projects.demo.secretServerKey,
      },
      body: '{}',
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 'team:editor', team_id: team.id, user_id: user.id });
    await endpoints.grantTeamPermission(server, team.id, user.id, 'team:editor');

    const direct = await endpoints.listTeamPermissions(client, { user_id: 'me', team_id: team.id });
    expect(direct.map((g) => g.id)).toEqual(['team:editor', 'team_member']);
    const all = await endpoints.listTeamPermissions(client, { user_id: 'me', team_id: team.id, recursive: true });
    expect(all.map((g) => g.id)).toEqual([
      '$invite_members',
      '$read_members',
      '$update_team',
      'reader',
      'team:editor',
      'team_member',
    ]);
    expect(all.every((g) => g.team_id === team.id && g.user_id === user.id)).toBe(true);
    expect(
      await endpoints.listTeamPermissions(client, { user_id: 'me', team_id: team.id, permission_id: '$update_team' }),
    ).toEqual([]);
    expect(
      await endpoints.listTeamPermissions(client, {
        user_id: 'me',
        team_id: team.id,
        permission_id: '$update_team',
        recursive: true,
      }),
    ).toHaveLength(1);
    expect((await endpoints.updateTeam(client, team.id, { display_name: 'Now allowed' })).display_name).toBe(
      'Now allowed',
    );

    await expect(endpoints.revokeTeamPermission(server, team.id, user.id, '$update_team')).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_NOT_FOUND',
      status: 401,
      details: { team_id: team.id, user_id: user.id, permission_id: '$update_team' },
    });
    await endpoints.revokeTeamPermission(server, team.id, user.id, 'team:editor');
    await expect(endpoints.updateTeam(client, team.id, { display_name: 'Again not' })).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
    });
  });

  it('checks grants: membership, known permission ids, server access', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { user, client } = await newUser(em);
    const team = await endpoints.createTeam(server, { display_name: 'Grants' });
    await expect(endpoints.grantTeamPermission(server, team.id, user.id, 'reader')).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
      status: 404,
    });
    await expect(endpoints.grantTeamPermission(server, team.id, crypto.randomUUID(), 'reader')).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await endpoints.addTeamMember(server, team.id, user.id);
    await expect(endpoints.grantTeamPermission(server, team.id, user.id, 'ghost')).rejects.toMatchObject({
      code: 'PERMISSION_NOT_FOUND',
      status: 404,
      details: { permission_id: 'ghost' },
    });
    await expect(endpoints.grantTeamPermission(client as never, team.id, user.id, 'reader')).rejects.toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
    });
    await endpoints.grantTeamPermission(server, team.id, user.id, '$remove_members');
    await endpoints.revokeTeamPermission(server, team.id, user.id, '$remove_members');
    await expect(endpoints.revokeTeamPermission(server, team.id, user.id, '$remove_members')).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_NOT_FOUND',
    });
  });

  it('lets clients list only their own, and sorts by team, user and id', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const a = await newUser(em);
    const b = await newUser(em);
    const refusal = plain(
      403,
      'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user',
    );
    await expect(endpoints.listTeamPermissions(a.client)).rejects.toMatchObject(refusal);
    await expect(endpoints.listTeamPermissions(a.client, { user_id: b.user.id })).rejects.toMatchObject(refusal);
    const teams = [
      await endpoints.createTeam(server, { display_name: 'S1' }),
      await endpoints.createTeam(server, { display_name: 'S2' }),
    ];
    for (const team of teams) {
      await endpoints.addTeamMember(server, team.id, a.user.id);
      await endpoints.addTeamMember(server, team.id, b.user.id);
      await endpoints.grantTeamPermission(server, team.id, a.user.id, 'reader');
    }
    const mine = await endpoints.listTeamPermissions(a.client, { user_id: 'me' });
    const expectedTeams = teams.map((t) => t.id).sort();
    expect(mine.map((g) => `${g.team_id} ${g.id}`)).toEqual(
      expectedTeams.flatMap((t) => [`${t} reader`, `${t} team_member`]),
    );
    const inTeam = await endpoints.listTeamPermissions(server, { team_id: teams[0]!.id });
    const users = [a.user.id, b.user.id].sort();
    const sorted = [...inTeam].sort((x, y) =>
      x.user_id === y.user_id ? (x.id < y.id ? -1 : 1) : x.user_id < y.user_id ? -1 : 1,
    );
    expect(inTeam).toEqual(sorted);
    expect([...new Set(inTeam.map((g) => g.user_id))]).toEqual(users);
  });
});
