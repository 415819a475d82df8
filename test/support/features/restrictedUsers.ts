/**
 * Restricted users, as scenarios over a target (see ../scenarioKit.ts): signed up but held back, because the project
 * requires a verified e-mail they have not verified, or because an administrator restricted them. Their tokens are of
 * an audience of their own and count only with `x-stack-allow-restricted-user` (or allow-anonymous, which our
 * transport sends); the user says why; they may not join teams by invitation.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import type { User } from '../../../protocol/models.js';
import type { ClientUser, ServerUser } from '../../../protocol/resources/user.js';
import {
  brokerFor,
  claimsOf,
  clientTransport,
  ensureProjectSettings,
  failureOf,
  HANDLER_URLS,
  PASSWORD,
  rawCall,
  serverApp,
  serviceCodeOf,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

async function someone(target: ServiceTarget, verified: boolean) {
  const email = uniqueEmail('restricted');
  const user = await serverApp(target).createUser({
    primaryEmail: email,
    primaryEmailVerified: verified,
    primaryEmailAuthEnabled: true,
    password: PASSWORD,
  });
  return { userId: user.id, email };
}

const session = async (target: ServiceTarget, userId: string) =>
  (await serverApp(target).createSession({ userId })).accessToken;

/**
 * Where the project requires a verified e-mail, a user who has not verified theirs is restricted: their token's
 * audience is `<project>:restricted`, the service refuses it without the allow header, lists leave them out; once
 * verified, they are not.
 */
export async function anUnverifiedEmailRestrictsWhereVerificationIsRequired(target: ServiceTarget): Promise<void> {
  await ensureProjectSettings(target, { require_email_verification: true });
  try {
    const { userId } = await someone(target, false);
    const server = serverApp(target);
    expect(await server.getUser(userId)).toMatchObject({
      isRestricted: true,
      restrictedReason: { type: 'email_not_verified' },
      restrictedByAdmin: false,
    });
    const token = await session(target, userId);
    expect(claimsOf(token)).toMatchObject({
      aud: `${target.projectId}:restricted`,
      is_restricted: true,
      restricted_reason: { type: 'email_not_verified' },
    });
    const refused = await rawCall(target, 'GET', '/users/me', { accessToken: token });
    expect([refused.status, refused.code]).toEqual([403, 'RESTRICTED_USER_NOT_ALLOWED']);
    const allowed = await rawCall(target, 'GET', '/users/me', {
      accessToken: token,
      headers: { 'x-stack-allow-restricted-user': 'true' },
    });
    expect((allowed.body as ClientUser).restricted_reason).toEqual({ type: 'email_not_verified' });
    // Our transport sends allow-anonymous, which allows restricted users too.
    expect(await endpoints.getCurrentUser(clientTransport(target, token))).toMatchObject({
      id: userId,
      is_restricted: true,
    });
    const listed = async (includeRestricted: boolean) =>
      (
        (
          await rawCall(target, 'GET', `/users?limit=200&desc=true&include_restricted=${includeRestricted}`, {
            access: 'server',
          })
        ).body as { items: ServerUser[] }
      ).items.some((u) => u.id === userId);
    expect(await listed(false)).toBe(false);
    expect(await listed(true)).toBe(true);

    await server.updateUser(userId, { primaryEmailVerified: true });
    expect(await server.getUser(userId)).toMatchObject({ isRestricted: false, restrictedReason: null });
    expect(claimsOf(await session(target, userId))).toMatchObject({ aud: target.projectId, is_restricted: false });
  } finally {
    await ensureProjectSettings(target, { require_email_verification: false });
  }
}

/**
 * An administrator (the server) restricts a user, with a reason the user sees and details only servers see; the
 * reason needs the restriction beside it; lifting it clears both.
 */
export async function anAdministratorRestrictsAUser(target: ServiceTarget): Promise<void> {
  const { userId } = await someone(target, true);
  const server = serverApp(target);
  const restricted = await server.updateUser(userId, {
    restrictedByAdmin: true,
    restrictedByAdminReason: 'Your account is under review.',
    restrictedByAdminPrivateDetails: 'Sign-up rule 4',
  });
  expect(restricted).toMatchObject({
    isRestricted: true,
    restrictedReason: { type: 'restricted_by_administrator' },
    restrictedByAdmin: true,
    restrictedByAdminReason: 'Your account is under review.',
    restrictedByAdminPrivateDetails: 'Sign-up rule 4',
  });
  const token = await session(target, userId);
  expect(claimsOf(token)).toMatchObject({
    aud: `${target.projectId}:restricted`,
    restricted_reason: { type: 'restricted_by_administrator' },
  });
  const me = (await endpoints.getCurrentUser(clientTransport(target, token))) as ClientUser;
  expect(me).toMatchObject({ restricted_by_admin: true, restricted_by_admin_reason: 'Your account is under review.' });
  expect(me).not.toHaveProperty('restricted_by_admin_private_details');

  // A restricted user may not join a team by invitation.
  const team = await server.createTeam({ displayName: 'Not for now' });
  const email = (await server.getUser(userId)).primaryEmail!;
  const sent = await server.sendTeamInvitation({ teamId: team.id, email, callbackUrl: HANDLER_URLS.teamInvitation });
  expect(
    serviceCodeOf(await failureOf(endpoints.acceptTeamInvitationById(clientTransport(target, token), sent.id))),
  ).toBe('TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED');

  // A reason alone is refused by the schema: it needs `restricted_by_admin: true` in the same write.
  const reasonAlone = await rawCall(target, 'PATCH', `/users/${userId}`, {
    access: 'server',
    body: { restricted_by_admin_reason: 'x' },
  });
  expect([reasonAlone.status, reasonAlone.code]).toEqual([400, 'SCHEMA_ERROR']);
  expect(JSON.stringify(reasonAlone.body)).toContain(
    'restricted_by_admin_reason must be null when restricted_by_admin is not true',
  );

  expect(await server.updateUser(userId, { restrictedByAdmin: false })).toMatchObject({
    isRestricted: false,
    restrictedReason: null,
    restrictedByAdmin: false,
    restrictedByAdminReason: null,
    restrictedByAdminPrivateDetails: null,
  });
}

/** Through the broker: a restricted user signs in; every tab's user says why, and the change when it is lifted. */
export async function brokerShowsWhyAUserIsRestricted(target: ServiceTarget): Promise<void> {
  const { userId, email } = await someone(target, true);
  const server = serverApp(target);
  await server.updateUser(userId, { restrictedByAdmin: true, restrictedByAdminReason: 'Pending review' });
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [tab, other] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    await tab.api.signInWithPassword({ email, password: PASSWORD });
    await other.subscribe('user', { kind: 'currentUser' });
    const seen = await other.waitFor('user', (s) => (s.data as User | null | undefined)?.id === userId, 30_000);
    expect(seen.data).toMatchObject({
      isRestricted: true,
      restrictedReason: { type: 'restricted_by_administrator' },
      restrictedByAdminReason: 'Pending review',
    });
    await server.updateUser(userId, { restrictedByAdmin: false });
    await tab.api.refetch({ kind: 'currentUser' });
    await other.waitFor('user', (s) => (s.data as User | null | undefined)?.isRestricted === false, 30_000);
  } finally {
    close();
  }
}
