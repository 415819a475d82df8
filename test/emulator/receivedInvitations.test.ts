/**
 * Invitations a user has received (`GET /team-invitations?user_id=…`) and accepting one by its id
 * (`POST /team-invitations/{id}/accept?user_id=…`): only invitations to the user's verified addresses count, a client
 * may ask only for itself, and restricted (anonymous) users may not join by invitation.
 */
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { api, expectKnownError, expectPlainError } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const CALLBACK = 'http://localhost:5173/handler/team-invitation';

/** A user made by the server, with a session, and its primary e-mail verified or not. */
async function newUser(em: RunningEmulator, verified: boolean, email = uniqueEmail('rcv')) {
  const created = await api(em, 'POST', '/users', {
    access: 'server',
    body: { primary_email: email, primary_email_verified: verified },
  });
  const id = (created.body as { id: string }).id;
  const session = await api(em, 'POST', '/auth/sessions', { access: 'server', body: { user_id: id } });
  return { id, email, accessToken: (session.body as { access_token: string }).access_token };
}

async function inviteTo(em: RunningEmulator, email: string, name = 'Crew'): Promise<string> {
  const team = await api(em, 'POST', '/teams', { access: 'server', body: { display_name: name } });
  const teamId = (team.body as { id: string }).id;
  await api(em, 'POST', '/team-invitations/send-code', {
    access: 'server',
    body: { team_id: teamId, email, callback_url: CALLBACK },
  });
  return teamId;
}

const itemsOf = (response: { body: unknown }) => (response.body as { items: Array<Record<string, unknown>> }).items;

describe('received team invitations', () => {
  it('lists invitations to a verified address, for the server and for the user itself (me)', async () => {
    const em = emulator();
    const user = await newUser(em, true);
    const teamId = await inviteTo(em, user.email, 'Received');
    const byServer = await api(em, 'GET', `/team-invitations?user_id=${user.id}`, { access: 'server' });
    expect(itemsOf(byServer)).toEqual([
      {
        id: expect.any(String),
        team_id: teamId,
        team_display_name: 'Received',
        expires_at_millis: expect.any(Number),
        recipient_email: user.email,
      },
    ]);
    const byUser = await api(em, 'GET', '/team-invitations?user_id=me', { accessToken: user.accessToken });
    expect(itemsOf(byUser)).toEqual(itemsOf(byServer));
  });

  it('leaves out invitations to an address the user has not verified', async () => {
    const em = emulator();
    const user = await newUser(em, false);
    await inviteTo(em, user.email);
    expect(itemsOf(await api(em, 'GET', `/team-invitations?user_id=${user.id}`, { access: 'server' }))).toEqual([]);
  });

  it('needs exactly one of team_id and user_id; a client may name only itself', async () => {
    const em = emulator();
    const user = await newUser(em, true);
    const other = await newUser(em, true);
    const teamId = await inviteTo(em, user.email);
    expectPlainError(
      await api(em, 'GET', '/team-invitations', { access: 'server' }),
      400,
      'Must specify either team_id or user_id',
    );
    expectPlainError(
      await api(em, 'GET', `/team-invitations?team_id=${teamId}&user_id=${user.id}`, { access: 'server' }),
      400,
      'Cannot specify both team_id and user_id',
    );
    expectKnownError(
      await api(em, 'GET', `/team-invitations?user_id=${other.id}`, { accessToken: user.accessToken }),
      'CANNOT_GET_OWN_USER_WITHOUT_USER',
      400,
    );
  });

  it('accepts one by its id: the user joins and the invitation is used', async () => {
    const em = emulator();
    const user = await newUser(em, true);
    const teamId = await inviteTo(em, user.email);
    const [invitation] = itemsOf(
      await api(em, 'GET', '/team-invitations?user_id=me', { accessToken: user.accessToken }),
    );
    const accept = () =>
      api(em, 'POST', `/team-invitations/${String(invitation!.id)}/accept?user_id=me`, {
        accessToken: user.accessToken,
      });
    const accepted = await accept();
    expect({ status: accepted.status, body: accepted.body }).toEqual({ status: 200, body: {} });
    const teams = await api(em, 'GET', '/teams?user_id=me', { accessToken: user.accessToken });
    expect(itemsOf(teams).map((t) => t.id)).toContain(teamId);
    expectKnownError(await accept(), 'VERIFICATION_CODE_NOT_FOUND', 404);
  });

  it('an invitation to someone else is not found for the user', async () => {
    const em = emulator();
    const user = await newUser(em, true);
    const other = await newUser(em, true);
    await inviteTo(em, other.email);
    const [invitation] = itemsOf(await api(em, 'GET', `/team-invitations?user_id=${other.id}`, { access: 'server' }));
    expectKnownError(
      await api(em, 'POST', `/team-invitations/${String(invitation!.id)}/accept?user_id=me`, {
        accessToken: user.accessToken,
      }),
      'VERIFICATION_CODE_NOT_FOUND',
      404,
    );
  });

  it('an anonymous user may not accept an invitation', async () => {
    const em = emulator();
    const guest = await api(em, 'POST', '/auth/anonymous/sign-up', { body: {} });
    const { access_token } = guest.body as { access_token: string };
    const accepted = await api(em, 'POST', `/team-invitations/${crypto.randomUUID()}/accept?user_id=me`, {
      accessToken: access_token,
      headers: { 'x-stack-allow-anonymous-user': 'true' },
    });
    expectKnownError(accepted, 'TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED', 403);
    expect(accepted.body).toMatchObject({ details: { restricted_reason: { type: 'anonymous' } } });
  });
});

describe('the dashboard project’s seats', () => {
  it('joining a team of the internal project needs a dashboard_admins seat per member', async () => {
    const em = emulator();
    const internal = { access: 'server' as const, project: 'internal' as const };
    const owner = (await api(em, 'POST', '/users', { ...internal, body: {} })).body as { id: string };
    const team = (
      await api(em, 'POST', '/teams', { ...internal, body: { display_name: 'Seats', creator_user_id: owner.id } })
    ).body as { id: string };
    const email = uniqueEmail('seat');
    const invited = (
      await api(em, 'POST', '/users', { ...internal, body: { primary_email: email, primary_email_verified: true } })
    ).body as { id: string };
    await api(em, 'POST', '/team-invitations/send-code', {
      ...internal,
      body: { team_id: team.id, email, callback_url: 'http://localhost:5173/handler/team-invitation' },
    });
    const [invitation] = itemsOf(await api(em, 'GET', `/team-invitations?user_id=${invited.id}`, internal));
    const accepted = await api(
      em,
      'POST',
      `/team-invitations/${String(invitation!.id)}/accept?user_id=${invited.id}`,
      internal,
    );
    expectKnownError(accepted, 'ITEM_QUANTITY_INSUFFICIENT_AMOUNT', 400);
    expect(accepted.body).toMatchObject({
      details: { item_id: 'dashboard_admins', customer_id: team.id, quantity: -1 },
    });
  });

  it('a team made in the internal project starts on its free plan: one seat, its creator’s; another team has none', async () => {
    const em = emulator();
    const internal = { access: 'server' as const, project: 'internal' as const };
    const team = (await api(em, 'POST', '/teams', { ...internal, body: { display_name: 'Plans' } })).body as {
      id: string;
    };
    const products = itemsOf(await api(em, 'GET', `/payments/products/team/${team.id}`, internal));
    expect(products.map((owned) => owned.id)).toEqual(['free']);
    const seats = await api(em, 'GET', `/payments/items/team/${team.id}/dashboard_admins`, internal);
    expect(seats.body).toMatchObject({ id: 'dashboard_admins', quantity: 1 });
    // The demo project has no such plans: its teams own nothing.
    const demoTeam = (await api(em, 'POST', '/teams', { access: 'server', body: { display_name: 'Plain' } })).body as {
      id: string;
    };
    expect(itemsOf(await api(em, 'GET', `/payments/products/team/${demoTeam.id}`, { access: 'server' }))).toEqual([]);
  });
});
