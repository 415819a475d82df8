/**
 * The `internal` project (the service's dashboard project) has the new-project team permissions, narrowed as the
 * service's seed narrows them: a member added to a team gets `team_member`, a team's creator `team_admin`.
 */
import { describe, expect, it } from 'vitest';
import { api } from '../support/authFlows.js';
import { useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

const internal = { access: 'server' as const, project: 'internal' as const };

describe('the internal project’s team permissions', () => {
  it('gives members team_member (reading members) and creators team_admin', async () => {
    const em = emulator();
    const creator = (await api(em, 'POST', '/users', { ...internal, body: {} })).body as { id: string };
    const member = (await api(em, 'POST', '/users', { ...internal, body: {} })).body as { id: string };
    const team = (
      await api(em, 'POST', '/teams', { ...internal, body: { display_name: 'T', creator_user_id: creator.id } })
    ).body as { id: string };
    await api(em, 'POST', `/team-memberships/${team.id}/${member.id}`, { ...internal, body: {} });
    const permissionsOf = async (userId: string, recursive = false) =>
      (
        (
          await api(
            em,
            'GET',
            `/team-permissions?team_id=${team.id}&user_id=${userId}&recursive=${recursive}`,
            internal,
          )
        ).body as { items: Array<{ id: string }> }
      ).items.map((p) => p.id);
    expect(await permissionsOf(member.id)).toEqual(['team_member']);
    expect(await permissionsOf(creator.id)).toEqual(['team_admin']);
    expect((await permissionsOf(member.id, true)).sort()).toEqual(['$read_members', 'team_member']);
    expect((await permissionsOf(creator.id, true)).sort()).toEqual([
      '$read_members',
      '$remove_members',
      '$update_team',
      'team_admin',
    ]);
  });
});
