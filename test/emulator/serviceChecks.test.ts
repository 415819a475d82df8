/**
 * Checks answered as the service answers them today: one set of permission ids across scopes (a grant of an id of the
 * other scope is WRONG_PERMISSION_SCOPE), the project's default permissions granted to new users, `me` resolved first,
 * and schema errors listed in the order of the service's request schema (body, params, query).
 */
import { describe, expect, it } from 'vitest';
import { api, withDemoConfig } from '../support/authFlows.js';
import { useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

const bodyOf = (response: { body: unknown }) => response.body as { code: string; error: string; details?: unknown };

async function userInTeam() {
  const em = emulator();
  const user = (await api(em, 'POST', '/users', { access: 'server', body: {} })).body as { id: string };
  const team = (
    await api(em, 'POST', '/teams', { access: 'server', body: { display_name: 'S', creator_user_id: user.id } })
  ).body as { id: string };
  return { em, user, team };
}

describe('permission scopes', () => {
  it('a project permission granted in a team, and a team permission granted to the project, are of the wrong scope', async () => {
    const { em, user, team } = await userInTeam();
    await api(em, 'POST', '/project-permission-definitions', { access: 'admin', body: { id: 'scope_p' } });
    await api(em, 'POST', '/team-permission-definitions', { access: 'admin', body: { id: 'scope_t' } });
    const inTeam = await api(em, 'POST', `/team-permissions/${team.id}/${user.id}/scope_p`, {
      access: 'server',
      body: {},
    });
    expect({ status: inTeam.status, ...bodyOf(inTeam) }).toEqual({
      status: 404,
      code: 'WRONG_PERMISSION_SCOPE',
      details: { permission_id: 'scope_p', expected_scope: 'team', actual_scope: 'project' },
      error:
        'Permission "scope_p" not found. (It was found for a different scope "project", but scope "team" was expected.)',
    });
    const inProject = await api(em, 'POST', `/project-permissions/${user.id}/scope_t`, { access: 'server', body: {} });
    expect(bodyOf(inProject)).toMatchObject({
      code: 'WRONG_PERMISSION_SCOPE',
      details: { permission_id: 'scope_t', expected_scope: 'project', actual_scope: 'team' },
    });
  });

  it('new users get the project’s default project permissions', async () => {
    const em = emulator();
    await api(em, 'POST', '/project-permission-definitions', { access: 'admin', body: { id: 'reader' } });
    await withDemoConfig(em, { user_default_permissions: ['reader'] }, async () => {
      const user = (await api(em, 'POST', '/users', { access: 'server', body: {} })).body as { id: string };
      const granted = await api(em, 'GET', `/project-permissions?user_id=${user.id}`, { access: 'server' });
      expect((granted.body as { items: unknown[] }).items).toEqual([{ id: 'reader', user_id: user.id }]);
    });
  });
});

describe('requests', () => {
  it('`me` without a user is refused before the notification category is looked up', async () => {
    const response = await api(emulator(), 'PATCH', `/emails/notification-preference/me/${crypto.randomUUID()}`, {
      body: { enabled: true },
    });
    expect(bodyOf(response).code).toBe('CANNOT_GET_OWN_USER_WITHOUT_USER');
  });

  it('lists schema errors of the path before those of the query', async () => {
    const response = await api(emulator(), 'PATCH', '/teams/me?team_id=abc', {
      access: 'server',
      body: { display_name: 'x' },
    });
    expect(bodyOf(response).error).toBe(
      'Request validation failed on PATCH /api/v1/teams/me:\n  - params.team_id must be a valid UUID\n  - query contains unknown properties: team_id',
    );
  });
});
