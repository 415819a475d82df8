/**
 * Invitations a user received (`GET /team-invitations?user_id=me`, `POST /team-invitations/{id}/accept`), as
 * scenarios over a target (see ../scenarioKit.ts): listed by the verified addresses they were sent to, accepted by id
 * besides by the link's code, never by a restricted user.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import type { TeamInvitationModel } from '../../../protocol/models.js';
import {
  brokerFor,
  clientTransport,
  failureOf,
  HANDLER_URLS,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  serviceCodeOf,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

/** A user of the project with a session; `verified` says whether their e-mail is verified. */
async function someone(
  target: ServiceTarget,
  verified = true,
): Promise<{ userId: string; email: string; accessToken: string }> {
  const server = serverApp(target);
  const email = uniqueEmail('invited');
  const user = await server.createUser({
    primaryEmail: email,
    primaryEmailVerified: verified,
    primaryEmailAuthEnabled: true,
    password: PASSWORD,
  });
  const { accessToken } = await server.createSession({ userId: user.id });
  return { userId: user.id, email, accessToken };
}

/** A team (made by the server) and an invitation of it to `email`. */
async function invite(target: ServiceTarget, email: string, name = 'Inviting team') {
  const server = serverApp(target);
  const team = await server.createTeam({ displayName: name });
  const sent = await server.sendTeamInvitation({ teamId: team.id, email, callbackUrl: HANDLER_URLS.teamInvitation });
  return { teamId: team.id, invitationId: sent.id };
}

/** The invitation sent to a verified address is listed for its user, accepted by id, and gone from the list. */
export async function listsAndAcceptsReceivedInvitations(target: ServiceTarget): Promise<void> {
  const user = await someone(target);
  const { teamId, invitationId } = await invite(target, user.email, 'Received');
  const client = clientTransport(target, user.accessToken);
  expect(await endpoints.listReceivedTeamInvitations(client, 'me')).toEqual([
    {
      id: invitationId,
      team_id: teamId,
      team_display_name: 'Received',
      expires_at_millis: expect.any(Number),
      recipient_email: user.email,
    },
  ]);
  // The server lists them for any user.
  expect((await serverApp(target).listReceivedTeamInvitations(user.userId)).map((i) => i.id)).toEqual([invitationId]);

  expect(await endpoints.acceptTeamInvitationById(client, invitationId)).toEqual({});
  expect((await endpoints.listTeams(client, { userId: 'me' })).map((t) => t.id)).toContain(teamId);
  expect(await endpoints.listReceivedTeamInvitations(client, 'me')).toEqual([]);
  // Used once.
  expect(knownCodeOf(await failureOf(endpoints.acceptTeamInvitationById(client, invitationId)))).toBe(
    'VERIFICATION_CODE_NOT_FOUND',
  );
}

/** An address the user has not verified brings no invitation, and its invitation cannot be accepted by id. */
export async function unverifiedAddressesReceiveNothing(target: ServiceTarget): Promise<void> {
  const user = await someone(target, false);
  const { invitationId } = await invite(target, user.email);
  const client = clientTransport(target, user.accessToken);
  expect(await endpoints.listReceivedTeamInvitations(client, 'me')).toEqual([]);
  expect(knownCodeOf(await failureOf(endpoints.acceptTeamInvitationById(client, invitationId)))).toBe(
    'VERIFICATION_CODE_NOT_FOUND',
  );
  // Someone else's invitation is not theirs to accept either.
  const other = await someone(target);
  const theirs = await invite(target, other.email);
  expect(knownCodeOf(await failureOf(endpoints.acceptTeamInvitationById(client, theirs.invitationId)))).toBe(
    'VERIFICATION_CODE_NOT_FOUND',
  );
}

/** Refusals: another user's list or acceptance, both filters at once, neither, a restricted (anonymous) user. */
export async function receivedInvitationRefusals(target: ServiceTarget): Promise<void> {
  const user = await someone(target);
  const other = await someone(target);
  const client = clientTransport(target, user.accessToken);
  expect(knownCodeOf(await failureOf(endpoints.listReceivedTeamInvitations(client, other.userId)))).toBe(
    'CANNOT_GET_OWN_USER_WITHOUT_USER',
  );
  const { teamId, invitationId } = await invite(target, other.email);
  expect(knownCodeOf(await failureOf(endpoints.acceptTeamInvitationById(client, invitationId, other.userId)))).toBe(
    'CANNOT_GET_OWN_USER_WITHOUT_USER',
  );
  const both = await rawCall(target, 'GET', `/team-invitations?team_id=${teamId}&user_id=me`, {
    accessToken: user.accessToken,
  });
  expect([both.status, both.body]).toEqual([400, 'Cannot specify both team_id and user_id']);
  const neither = await rawCall(target, 'GET', '/team-invitations', { accessToken: user.accessToken });
  expect([neither.status, neither.body]).toEqual([400, 'Must specify either team_id or user_id']);

  // An anonymous user is restricted: refused before the invitation is even looked at.
  const guest = await endpoints.signUpAnonymously(clientTransport(target));
  const asGuest = clientTransport(target, guest.access_token);
  expect(serviceCodeOf(await failureOf(endpoints.acceptTeamInvitationById(asGuest, invitationId)))).toBe(
    'TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED',
  );
  expect(await endpoints.listReceivedTeamInvitations(asGuest, 'me')).toEqual([]);
}

/** Through the broker: the receivedTeamInvitations query, accepted by id in one tab, the teams in the other. */
export async function brokerAcceptsAReceivedInvitation(target: ServiceTarget): Promise<void> {
  const user = await someone(target);
  const { teamId, invitationId } = await invite(target, user.email, 'Joined from a tab');
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [tab, other] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    expect(await tab.api.read({ kind: 'receivedTeamInvitations' })).toEqual([]);
    await tab.api.signInWithPassword({ email: user.email, password: PASSWORD });
    await other.subscribe('received', { kind: 'receivedTeamInvitations' });
    await other.subscribe('teams', { kind: 'teams' });
    const listed = await other.waitFor(
      'received',
      (s) => ((s.data as TeamInvitationModel[] | undefined) ?? []).length === 1,
      30_000,
    );
    expect(listed.data).toEqual([
      {
        id: invitationId,
        teamId,
        teamDisplayName: 'Joined from a tab',
        expiresAtMillis: expect.any(Number),
        recipientEmail: user.email,
      },
    ]);
    await tab.api.acceptTeamInvitationById(invitationId);
    await other.waitFor('received', (s) => (s.data as TeamInvitationModel[] | undefined)?.length === 0, 30_000);
    await other.waitFor(
      'teams',
      (s) => ((s.data as Array<{ id: string }> | undefined) ?? []).some((t) => t.id === teamId),
      30_000,
    );
  } finally {
    close();
  }
}
