import { describe, expect, it } from 'vitest';
import { signInWithPassword } from '../../protocol/endpoints/auth.js';
import { demoServerApp, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

const serverApp = () => demoServerApp(emulator());

/**
 * The server app takes camelCase everywhere. Wire bodies are snake_cased on the way out, but some
 * calls take options of our own (ids for the path or the query string): those must arrive as the
 * app wrote them, not be dropped (a `listTeams({ userId })` that lists every team of the project).
 */
describe('authbroker/server: options objects reach the service', () => {
  it('listTeams({ userId }) lists only that user’s teams', async () => {
    const app = serverApp();
    const user = await app.createUser({ primaryEmail: uniqueEmail('teams') });
    await app.createTeam({ displayName: 'Somebody else’s team' });
    const mine = await app.createTeam({ displayName: 'Mine', creatorUserId: user.id });
    expect((await app.listTeams({ userId: user.id })).map((t) => t.id)).toEqual([mine.id]);
  });

  it('revokeTeamInvitation takes one object, as in the browser', async () => {
    const app = serverApp();
    const team = await app.createTeam({ displayName: 'Inviting' });
    const sent = await app.sendTeamInvitation({
      teamId: team.id,
      email: uniqueEmail('invitee'),
      callbackUrl: 'http://localhost:5173/handler/team-invitation',
    });
    expect((await app.listTeamInvitations(team.id)).map((i) => i.id)).toEqual([sent.id]);
    await expect(app.revokeTeamInvitation({ teamId: team.id, invitationId: sent.id })).resolves.toEqual({
      success: true,
    });
    expect(await app.listTeamInvitations(team.id)).toEqual([]);
  });

  it('listTeamMemberProfiles({ teamId }) and ({ userId }) filter as asked', async () => {
    const app = serverApp();
    const [a, b] = [
      await app.createUser({ primaryEmail: uniqueEmail('a') }),
      await app.createUser({ primaryEmail: uniqueEmail('b') }),
    ];
    const team = await app.createTeam({ displayName: 'Profiles', creatorUserId: a.id });
    await app.addTeamMember(team.id, b.id);
    const other = await app.createTeam({ displayName: 'Other', creatorUserId: b.id });
    expect((await app.listTeamMemberProfiles({ teamId: team.id })).map((p) => p.userId).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect((await app.listTeamMemberProfiles({ userId: b.id })).map((p) => p.teamId).sort()).toEqual(
      [team.id, other.id].sort(),
    );
  });

  it('listContactChannels({ userId }) and ({ channelId }) filter as asked', async () => {
    const app = serverApp();
    const [a, b] = [
      await app.createUser({ primaryEmail: uniqueEmail('a') }),
      await app.createUser({ primaryEmail: uniqueEmail('b') }),
    ];
    const [channel] = await app.listContactChannels({ userId: b.id });
    expect(channel).toMatchObject({ userId: b.id, value: b.primaryEmail });
    expect((await app.listContactChannels({ channelId: channel!.id })).map((c) => c.userId)).toEqual([b.id]);
    expect((await app.listContactChannels({ userId: a.id })).map((c) => c.value)).toEqual([a.primaryEmail]);
  });

  it('wire-shaped queries still go out snake_cased (listTeamPermissions, listUsers)', async () => {
    const app = serverApp();
    const user = await app.createUser({ primaryEmail: uniqueEmail('perm') });
    const team = await app.createTeam({ displayName: 'Perms', creatorUserId: user.id });
    const granted = await app.listTeamPermissions({ teamId: team.id, userId: user.id, recursive: true });
    expect(granted.length).toBeGreaterThan(0);
    expect(granted.every((p) => p.teamId === team.id && p.userId === user.id)).toBe(true);
    const page = await app.listUsers({ orderBy: 'signed_up_at', desc: true, limit: 1 });
    expect(page.items[0]!.id).toBe(user.id);
  });

  it('forUser(token): listTeams() and signOut() act as that user', async () => {
    const em = emulator();
    const app = serverApp();
    const email = uniqueEmail('me');
    const user = await app.createUser({
      primaryEmail: email,
      primaryEmailAuthEnabled: true,
      password: 'a-long-password',
    });
    const team = await app.createTeam({ displayName: 'My own', creatorUserId: user.id });
    const { access_token } = await signInWithPassword(transportFor(em, 'client'), {
      email,
      password: 'a-long-password',
    });
    const me = app.forUser(access_token);
    expect((await me.listTeams({ userId: 'me' })).map((t) => t.id)).toEqual([team.id]);
    await expect(me.signOut({ maxAttempts: 1 })).resolves.toEqual({ success: true });
  });
});
