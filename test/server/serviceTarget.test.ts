import { describe, expect, it } from 'vitest';
import * as api from '../../protocol/endpoints/index.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { createAdminApp, createRefreshingTokenSource, createServerApp } from '../../protocol/server.js';
import { createTransport, staticTokenSource, type Transport } from '../../protocol/transport.js';
import { useServiceTarget, type ServiceTarget } from '../support/serviceTarget.js';

/**
 * `authbroker/server` and the protocol layer against the run's service target: a fresh emulator
 * in `npm test`, the real Stack Auth backend in the real-service lane. Only the REST API and the
 * mailbox: nothing here may use an emulator-only endpoint.
 */
const target = useServiceTarget({ unknownEmailDelayMillis: 0 });
const PASSWORD = 'Target-suite-passw0rd!';
const CALLBACK = 'http://localhost:5173/handler/email-verification';

function email(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
}

function client(
  t: ServiceTarget,
  tokens?: { access_token: string },
  keys: { projectId?: string; publishableClientKey?: string } = {},
): Transport<'client'> {
  return createTransport({
    baseUrl: t.baseUrl,
    projectId: keys.projectId ?? t.projectId,
    accessType: 'client',
    publishableClientKey: keys.publishableClientKey ?? t.publishableClientKey,
    userTokens: tokens === undefined ? undefined : staticTokenSource(tokens.access_token),
    extraRequestHeaders: t.extraRequestHeaders,
    attemptTimeoutMillis: 600_000,
    diagnoseFailures: false,
  });
}

function serverApp(t: ServiceTarget) {
  return createServerApp({
    baseUrl: t.baseUrl,
    projectId: t.projectId,
    secretServerKey: t.secretServerKey,
    extraRequestHeaders: { ...t.extraRequestHeaders },
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe(`the service target (${process.env.AUTHBROKER_SERVICE_TARGET?.startsWith('real:') ? 'the real backend' : 'the emulator'})`, () => {
  it("signs up with a password; the server app verifies the token against the project's keys and reads today's user fields", async () => {
    const t = target();
    const address = email('target');
    const signedUp = await api.signUpWithPassword(client(t), {
      email: address,
      password: PASSWORD,
      verification_callback_url: CALLBACK,
    });
    const app = serverApp(t);
    const verified = await app.verifyAccessToken(signedUp.access_token);
    expect(verified).toMatchObject({ userId: signedUp.user_id, projectId: t.projectId });
    expect(verified.expiresAtMillis).toBeGreaterThan(Date.now());
    const user = await app.getUser(signedUp.user_id);
    expect(user).toMatchObject({
      id: signedUp.user_id,
      primaryEmail: address,
      hasPassword: true,
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      restrictedByAdmin: false,
    });
    expect(user.riskScores.signUp).toEqual({ bot: expect.any(Number), freeTrialAbuse: expect.any(Number) });
    const me = await api.getCurrentUser(client(t, signedUp));
    expect(me).toMatchObject({ id: signedUp.user_id, is_anonymous: false, restricted_reason: null });
    expect(me).not.toHaveProperty('server_metadata');
  });

  it('renews the access token at the token endpoint, and a signed-out session no longer renews', async () => {
    const t = target();
    const signedUp = await api.signUpWithPassword(client(t), {
      email: email('renew'),
      password: PASSWORD,
      verification_callback_url: CALLBACK,
    });
    const ended: unknown[] = [];
    const source = createRefreshingTokenSource({
      baseUrl: t.baseUrl,
      projectId: t.projectId,
      publishableClientKey: t.publishableClientKey,
      refreshToken: signedUp.refresh_token,
      onSessionEnded: (reason) => ended.push(reason),
    });
    const renewed = await source.getAccessToken();
    expect(renewed).toEqual(expect.any(String));
    expect((await serverApp(t).verifyAccessToken(renewed!)).userId).toBe(signedUp.user_id);
    await api.signOutCurrentSession(client(t, signedUp), { maxAttempts: 1 });
    source.invalidateAccessToken(renewed!);
    expect(await source.getAccessToken()).toBeNull();
    expect(source.ended).toBe(true);
    expect(isKnownError(ended[0], 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED')).toBe(true);
  });

  it('users, teams and memberships through the server app', async () => {
    const t = target();
    const app = serverApp(t);
    const user = await app.createUser({
      primaryEmail: email('made'),
      primaryEmailAuthEnabled: true,
      password: PASSWORD,
      displayName: 'Made',
    });
    const team = await app.createTeam({ displayName: 'Target team' });
    await app.addTeamMember(team.id, user.id);
    expect((await app.listTeams({ userId: user.id })).map((x) => x.id)).toContain(team.id);
    const grants = await app.listTeamPermissions({ teamId: team.id, userId: user.id });
    expect(grants.map((g) => g.id)).toEqual(['team_member']);
    const renamed = await app.updateUser(user.id, { displayName: 'Renamed', clientReadOnlyMetadata: { plan: 'pro' } });
    expect(renamed).toMatchObject({ displayName: 'Renamed', clientReadOnlyMetadata: { plan: 'pro' } });
    const taken = await rejection(app.createUser({ primaryEmail: user.primaryEmail!, primaryEmailAuthEnabled: true }));
    expect(taken).toMatchObject({
      code: 'USER_EMAIL_ALREADY_EXISTS',
      details: { email: user.primaryEmail, would_work_if_email_was_verified: false },
    });
    await app.deleteTeam(team.id);
    await app.deleteUser(user.id);
    expect(await rejection(app.getUser(user.id))).toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('an unknown project id is CURRENT_PROJECT_NOT_FOUND whatever the key; a wrong key is INVALID_PUBLISHABLE_CLIENT_KEY; no key is allowed', async () => {
    const t = target();
    const ghost = '00000000-0000-4000-8000-000000000000';
    expect(await rejection(api.getCurrentProject(client(t, undefined, { projectId: ghost })))).toMatchObject({
      code: 'CURRENT_PROJECT_NOT_FOUND',
      status: 400,
      details: { project_id: ghost },
    });
    expect(
      await rejection(api.getCurrentProject(client(t, undefined, { publishableClientKey: 'pck_wrong' }))),
    ).toMatchObject({ code: 'INVALID_PUBLISHABLE_CLIENT_KEY', status: 401 });
    const keyless = createTransport({
      baseUrl: t.baseUrl,
      projectId: t.projectId,
      accessType: 'client',
      extraRequestHeaders: t.extraRequestHeaders,
      diagnoseFailures: false,
    });
    expect((await api.getCurrentProject(keyless)).id).toBe(t.projectId);
  });

  it('the admin app reads and updates the project where the service keeps it now', async () => {
    const t = target();
    const admin = createAdminApp({
      baseUrl: t.baseUrl,
      projectId: t.projectId,
      superSecretAdminKey: t.superSecretAdminKey,
      extraRequestHeaders: { ...t.extraRequestHeaders },
    });
    const before = await admin.getCurrentProject();
    expect(before).toMatchObject({
      id: t.projectId,
      config: { allowLocalhost: true, teamMemberDefaultPermissions: [{ id: 'team_member' }] },
    });
    expect(before).not.toHaveProperty('userCount');
    const updated = await admin.updateCurrentProject({ description: 'Set by the target suite' });
    expect(updated.description).toBe('Set by the target suite');
    // An update without a description keeps it.
    expect((await admin.updateCurrentProject({ displayName: before.displayName })).description).toBe(
      'Set by the target suite',
    );
  });

  it('a contact channel is verified with the code from its e-mail', async () => {
    const t = target();
    const signedUp = await api.signUpWithPassword(client(t), {
      email: email('channel'),
      password: PASSWORD,
      verification_callback_url: CALLBACK,
    });
    const second = email('second');
    const channel = await api.createContactChannel(client(t, signedUp), {
      user_id: 'me',
      type: 'email',
      value: second,
      used_for_auth: false,
    });
    await api.sendContactChannelVerificationCode(client(t, signedUp), 'me', channel.id, CALLBACK);
    const mail = await t.waitForMail(second, /verif/i);
    const code = /[?&]code=([A-Za-z0-9_-]+)/.exec(`${mail.text}\n${mail.html ?? ''}`.replace(/&amp;/g, '&'))?.[1];
    expect(code).toBeDefined();
    await api.verifyContactChannel(client(t), code!);
    expect((await api.getContactChannel(client(t, signedUp), 'me', channel.id)).is_verified).toBe(true);
  });
});
