import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const CALLBACK = 'http://localhost:5173/handler/team-invitation';
const WEEK = 7 * 24 * 3600 * 1000;

async function newUser(em: RunningEmulator, displayName = 'Someone') {
  const server = transportFor(em, 'server');
  const email = uniqueEmail('inv');
  const user = await endpoints.createUser(server, { primary_email: email, display_name: displayName });
  const { access_token } = await endpoints.createSession(server, { user_id: user.id });
  return { user, email, client: transportFor(em, 'client', { accessToken: access_token }) };
}

async function teamWithMember(em: RunningEmulator) {
  const owner = await newUser(em, 'Owner');
  const member = await newUser(em, 'Member');
  const team = await endpoints.createTeam(owner.client, { display_name: 'Crew' });
  await endpoints.addTeamMember(transportFor(em, 'server'), team.id, member.user.id);
  return { owner, member, team };
}

interface Mail {
  to: string;
  subject: string;
  text: string;
  link: string | null;
}

/** The code of the newest invitation e-mail to `to`, read from the emulator's mailbox. */
async function invitationCode(em: RunningEmulator, to: string): Promise<{ mail: Mail; code: string }> {
  const { items } = await devRequest<{ items: Mail[] }>(em, 'GET', `/emulator/mailbox?to=${encodeURIComponent(to)}`);
  const mail = items.at(-1)!;
  const code = new URL(mail.link!).searchParams.get('code')!;
  return { mail, code };
}

describe('team invitations', () => {
  it('sends a link, checks it, shows details, and adds the accepting user', async () => {
    const em = emulator();
    const { owner, team } = await teamWithMember(em);
    const invitee = await newUser(em, 'Invitee');
    const sent = await endpoints.sendTeamInvitation(owner.client, {
      team_id: team.id,
      email: invitee.email,
      callback_url: `${CALLBACK}?from=mail`,
    });
    expect(sent).toEqual({ success: true, id: expect.any(String) });
    const { mail, code } = await invitationCode(em, invitee.email);
    expect(mail.subject).toBe('You have been invited to join Crew');
    expect(mail.link).toMatch(/^http:\/\/localhost:5173\/handler\/team-invitation\?from=mail&code=[0-9a-z]{45}$/);
    expect(mail.text).toContain(mail.link!);

    const [listed] = await endpoints.listTeamInvitations(owner.client, team.id);
    expect(listed).toEqual({
      id: sent.id,
      team_id: team.id,
      team_display_name: team.display_name,
      recipient_email: invitee.email,
      expires_at_millis: expect.any(Number),
    });
    const { now_millis } = await devRequest<{ now_millis: number }>(em, 'GET', '/emulator/time');
    expect(Math.abs(listed!.expires_at_millis - (now_millis + WEEK))).toBeLessThan(60_000);

    const anonymous = transportFor(em, 'client');
    expect(await endpoints.checkTeamInvitationCode(anonymous, code)).toEqual({ is_code_valid: true });
    await expect(endpoints.getTeamInvitationDetails(anonymous, code)).rejects.toMatchObject({
      code: 'USER_AUTHENTICATION_REQUIRED',
      status: 401,
    });
    expect(await endpoints.getTeamInvitationDetails(invitee.client, code)).toEqual({
      team_id: team.id,
      team_display_name: 'Crew',
    });

    expect(await endpoints.acceptTeamInvitation(invitee.client, code)).toEqual({});
    const teams = await endpoints.listTeams(invitee.client, { userId: 'me' });
    expect(teams.map((t) => t.id)).toEqual([team.id]);
    const grants = await endpoints.listTeamPermissions(invitee.client, { user_id: 'me', team_id: team.id });
    expect(grants.map((g) => g.id)).toEqual(['team_member']);
    expect(await endpoints.listTeamInvitations(owner.client, team.id)).toEqual([]);
    await expect(endpoints.acceptTeamInvitation(invitee.client, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_ALREADY_USED',
      status: 409,
    });
    await expect(endpoints.checkTeamInvitationCode(anonymous, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_ALREADY_USED',
    });
  });

  it('is not bound to the invited address, and burns the code when accepted signed out', async () => {
    const em = emulator();
    const { owner, team } = await teamWithMember(em);
    const someoneElse = await newUser(em);
    const invited = uniqueEmail('nobody');
    await endpoints.sendTeamInvitation(owner.client, { team_id: team.id, email: invited, callback_url: CALLBACK });
    const { code } = await invitationCode(em, invited);
    await expect(endpoints.acceptTeamInvitation(transportFor(em, 'client'), code)).rejects.toMatchObject({
      code: 'USER_AUTHENTICATION_REQUIRED',
    });
    await expect(endpoints.acceptTeamInvitation(someoneElse.client, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_ALREADY_USED',
    });

    await endpoints.sendTeamInvitation(owner.client, { team_id: team.id, email: invited, callback_url: CALLBACK });
    const second = await invitationCode(em, invited);
    await endpoints.acceptTeamInvitation(someoneElse.client, second.code);
    expect((await endpoints.listTeams(someoneElse.client, { userId: 'me' })).map((t) => t.id)).toEqual([team.id]);
    await expect(endpoints.acceptTeamInvitation(someoneElse.client, 'x'.repeat(45))).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_NOT_FOUND',
      status: 404,
    });
  });

  it('needs $invite_members and a trusted callback to send', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { member, team } = await teamWithMember(em);
    const outsider = await newUser(em);
    const input = { team_id: team.id, email: uniqueEmail(), callback_url: CALLBACK };
    await expect(endpoints.sendTeamInvitation(transportFor(em, 'client'), input)).rejects.toMatchObject({
      code: 'USER_AUTHENTICATION_REQUIRED',
    });
    await expect(endpoints.sendTeamInvitation(outsider.client, input)).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
    });
    await expect(
      endpoints.sendTeamInvitation(member.client, { ...input, callback_url: 'https://evil.example.com/join' }),
    ).rejects.toMatchObject({
      code: 'REDIRECT_URL_NOT_WHITELISTED',
    });
    await endpoints.revokeTeamPermission(server, team.id, member.user.id, 'team_member');
    await expect(endpoints.sendTeamInvitation(member.client, input)).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      status: 401,
      details: { team_id: team.id, user_id: member.user.id, permission_id: '$invite_members' },
    });
    expect((await endpoints.sendTeamInvitation(server, input)).success).toBe(true);
    await expect(
      endpoints.sendTeamInvitation(server, { ...input, team_id: crypto.randomUUID() }),
    ).rejects.toMatchObject({ code: 'TEAM_NOT_FOUND' });
  });

  it('lists with $read_members and $invite_members, revokes with $remove_members', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const { owner, member, team } = await teamWithMember(em);
    const invited = uniqueEmail('revoke');
    const { id } = await endpoints.sendTeamInvitation(owner.client, {
      team_id: team.id,
      email: invited,
      callback_url: CALLBACK,
    });
    const { code } = await invitationCode(em, invited);

    expect((await endpoints.listTeamInvitations(member.client, team.id)).map((i) => i.id)).toEqual([id]);
    await endpoints.revokeTeamPermission(server, team.id, member.user.id, 'team_member');
    await endpoints.grantTeamPermission(server, team.id, member.user.id, '$read_members');
    await expect(endpoints.listTeamInvitations(member.client, team.id)).rejects.toMatchObject({
      code: 'TEAM_PERMISSION_REQUIRED',
      details: { permission_id: '$invite_members' },
    });
    await expect(endpoints.listTeamInvitations(server, crypto.randomUUID())).rejects.toMatchObject({
      code: 'TEAM_NOT_FOUND',
    });

    await expect(
      endpoints.revokeTeamInvitation(member.client, { teamId: team.id, invitationId: id }),
    ).rejects.toMatchObject({ code: 'TEAM_PERMISSION_REQUIRED', details: { permission_id: '$remove_members' } });
    const otherTeam = await endpoints.createTeam(owner.client, { display_name: 'Other' });
    await expect(
      endpoints.revokeTeamInvitation(owner.client, { teamId: otherTeam.id, invitationId: id }),
    ).rejects.toMatchObject({ code: 'HTTP_STATUS_ERROR', status: 404, body: 'Team invitation not found' });
    await expect(endpoints.revokeTeamInvitation(owner.client, { teamId: team.id, invitationId: id })).resolves.toEqual({
      success: true,
    });
    expect(await endpoints.listTeamInvitations(server, team.id)).toEqual([]);
    await expect(endpoints.acceptTeamInvitation(member.client, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_NOT_FOUND',
    });
    await expect(endpoints.revokeTeamInvitation(server, { teamId: team.id, invitationId: id })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('expires invitations after seven days', async () => {
    const em = emulator();
    const { owner, team } = await teamWithMember(em);
    const invited = uniqueEmail('late');
    await endpoints.sendTeamInvitation(owner.client, { team_id: team.id, email: invited, callback_url: CALLBACK });
    const { code } = await invitationCode(em, invited);
    await devRequest(em, 'POST', '/emulator/time', { advance_millis: WEEK + 1000 });
    const server = transportFor(em, 'server');
    expect(await endpoints.listTeamInvitations(server, team.id)).toEqual([]);
    const late = await newUser(em);
    await expect(endpoints.acceptTeamInvitation(late.client, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_EXPIRED',
      status: 400,
    });
  });
});
