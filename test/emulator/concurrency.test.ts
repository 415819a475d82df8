import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

function codes(results: PromiseSettledResult<unknown>[]): string[] {
  return results.map((r) => (r.status === 'fulfilled' ? 'ok' : String((r.reason as { code?: unknown }).code)));
}

async function userCount(em: RunningEmulator): Promise<number> {
  return (await endpoints.listUsers(transportFor(em, 'server'))).items.length;
}

describe('concurrent writes stay consistent', () => {
  it('30 concurrent PATCHes of one user leave one of the written values', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const user = await endpoints.createUser(server, { primary_email: uniqueEmail('race') });
    const written = Array.from({ length: 30 }, (_, i) => ({ writer: i, nested: { list: [i, i * 2] } }));
    const results = await Promise.all(
      written.map((value, i) =>
        endpoints.updateUser(server, user.id, { client_metadata: value, display_name: `Writer ${i}` }),
      ),
    );
    results.forEach((result, i) => expect(result.client_metadata).toEqual(written[i]));
    const final = await endpoints.getUser(server, user.id);
    const index = written.findIndex((w) => JSON.stringify(w) === JSON.stringify(final.client_metadata));
    expect(index).toBeGreaterThanOrEqual(0);
    // Both fields come from the same write: no request's change was half applied.
    expect(final.display_name).toBe(`Writer ${index}`);
  });

  it('20 concurrent membership adds and removes on one team leave no duplicates', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const team = await endpoints.createTeam(server, { display_name: 'Busy' });
    const users = await Promise.all(
      Array.from({ length: 20 }, () => endpoints.createUser(server, { primary_email: uniqueEmail('member') })),
    );
    // Everyone joins, and the first user is added five times over.
    const adds = await Promise.allSettled([
      ...users.map((u) => endpoints.addTeamMember(server, team.id, u.id)),
      ...Array.from({ length: 5 }, () => endpoints.addTeamMember(server, team.id, users[0]!.id)),
    ]);
    expect(codes(adds).filter((c) => c === 'ok')).toHaveLength(20);
    expect(codes(adds).filter((c) => c !== 'ok')).toEqual(Array(5).fill('TEAM_MEMBERSHIP_ALREADY_EXISTS'));
    // The even ones leave while the odd ones are removed twice at once.
    const leaving = users.filter((_, i) => i % 2 === 0);
    const removals = await Promise.allSettled([
      ...leaving.map((u) => endpoints.removeTeamMember(server, team.id, u.id)),
      ...leaving.map((u) => endpoints.removeTeamMember(server, team.id, u.id)),
    ]);
    expect(codes(removals).filter((c) => c === 'ok')).toHaveLength(leaving.length);
    expect(codes(removals).filter((c) => c !== 'ok')).toEqual(Array(leaving.length).fill('TEAM_MEMBERSHIP_NOT_FOUND'));

    const profiles = await endpoints.listTeamMemberProfiles(server, { teamId: team.id });
    const memberIds = profiles.map((p) => p.user_id);
    expect(new Set(memberIds).size).toBe(memberIds.length);
    expect(memberIds.sort()).toEqual(
      users
        .filter((_, i) => i % 2 === 1)
        .map((u) => u.id)
        .sort(),
    );
    const grants = await endpoints.listTeamPermissions(server, { team_id: team.id });
    expect(grants.map((g) => `${g.user_id}:${g.id}`).sort()).toEqual(memberIds.map((id) => `${id}:team_member`).sort());
  });

  it('concurrent creations count right, and an auth e-mail is taken exactly once', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const before = await userCount(em);
    const distinct = await Promise.allSettled(
      Array.from({ length: 25 }, () =>
        endpoints.createUser(server, { primary_email: uniqueEmail('bulk'), primary_email_auth_enabled: true }),
      ),
    );
    expect(codes(distinct).every((c) => c === 'ok')).toBe(true);
    // Hashing the password is an await between reading and writing: the check must happen after it.
    const email = uniqueEmail('contended');
    const same = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        endpoints.createUser(server, {
          primary_email: email,
          primary_email_auth_enabled: true,
          password: 'same password',
        }),
      ),
    );
    expect(codes(same).filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes(same).filter((c) => c !== 'ok')).toEqual(Array(9).fill('USER_EMAIL_ALREADY_EXISTS'));
    expect(await userCount(em)).toBe(before + 26);
  });

  it('one invitation code accepted by ten users at once adds exactly one member', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const team = await endpoints.createTeam(server, { display_name: 'One seat' });
    const invited = uniqueEmail('seat');
    await endpoints.sendTeamInvitation(server, {
      team_id: team.id,
      email: invited,
      callback_url: 'http://localhost:5173/handler/team-invitation',
    });
    const { items } = await devRequest<{ items: Array<{ link: string }> }>(
      em,
      'GET',
      `/emulator/mailbox?to=${encodeURIComponent(invited)}`,
    );
    const code = new URL(items.at(-1)!.link).searchParams.get('code')!;
    const clients = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const user = await endpoints.createUser(server, {});
        const { access_token } = await endpoints.createSession(server, { user_id: user.id });
        return transportFor(em, 'client', { accessToken: access_token });
      }),
    );
    const results = await Promise.allSettled(clients.map((c) => endpoints.acceptTeamInvitation(c, code)));
    expect(codes(results).filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes(results).filter((c) => c !== 'ok')).toEqual(Array(9).fill('VERIFICATION_CODE_ALREADY_USED'));
    expect(await endpoints.listTeamMemberProfiles(server, { teamId: team.id })).toHaveLength(1);
  });

  it('concurrent contact channels with one auth e-mail: only one is used for auth', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const users = await Promise.all(Array.from({ length: 8 }, () => endpoints.createUser(server, {})));
    const value = uniqueEmail('shared');
    const results = await Promise.allSettled(
      users.map((u) =>
        endpoints.createContactChannel(server, { user_id: u.id, type: 'email', value, used_for_auth: true }),
      ),
    );
    expect(codes(results).filter((c) => c === 'ok')).toHaveLength(1);
    const channels = (
      await Promise.all(users.map((u) => endpoints.listContactChannels(server, { userId: u.id })))
    ).flat();
    expect(channels.filter((c) => c.used_for_auth)).toHaveLength(1);
  });
});
