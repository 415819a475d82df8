import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import type { EmulatorState } from '../../emulator/state/model.js';
import { endpoints } from '../../protocol/index.js';
import { api, demoProject, expectKnownError, signWithKey, withDemoConfig } from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

/**
 * What the emulator does for the newer features beyond the shared scenarios (test/features/):
 * details only it can show (its stored state, project settings it toggles directly), each matching
 * what the service's code does.
 */
const emulator = useEmulator();
const VERIFY = 'http://localhost:5173/handler/email-verification';

describe('anonymous users in the emulator', () => {
  it('get the unnamed personal team, which the upgrade names after the e-mail', async () => {
    const em = emulator();
    await withDemoConfig(em, { create_team_on_sign_up: true }, async () => {
      const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client'));
      const asAnonymous = transportFor(em, 'client', { accessToken: anonymous.access_token });
      expect((await endpoints.listTeams(asAnonymous, { userId: 'me' })).map((t) => t.display_name)).toEqual([
        'Personal Team',
      ]);
      const email = uniqueEmail('named');
      const upgraded = await endpoints.signUpWithPassword(
        asAnonymous,
        { email, password: 'a-long-password', verification_callback_url: VERIFY },
        { user: 'optional' },
      );
      const teams = await endpoints.listTeams(transportFor(em, 'client', { accessToken: upgraded.access_token }), {
        userId: 'me',
      });
      expect(teams.map((t) => t.display_name)).toEqual([`${email}'s Team`]);
    });
  });

  it('are dated from the upgrade, the anonymous mark gone from the stored user', async () => {
    const em = emulator();
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client'));
    const before = demoProject(em).users[anonymous.user_id]!.signed_up_at_millis;
    em.env.clock.advance(60_000);
    await endpoints.signUpWithPassword(
      transportFor(em, 'client', { accessToken: anonymous.access_token }),
      { email: uniqueEmail('dated'), password: 'a-long-password', verification_callback_url: VERIFY },
      { user: 'optional' },
    );
    expect(demoProject(em).users[anonymous.user_id]!.signed_up_at_millis).toBeGreaterThanOrEqual(before + 60_000);
    expect(demoProject(em).users[anonymous.user_id]!.is_anonymous).toBeUndefined();
  });

  it('cannot act as project owners: an anonymous token of the internal project is no admin access token', async () => {
    const em = emulator();
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client', { project: 'internal' }));
    const answer = await api(em, 'GET', '/projects/current', {
      access: 'admin',
      headers: { 'x-stack-admin-access-token': anonymous.access_token },
    });
    expectKnownError(answer, 'UNPARSABLE_ADMIN_ACCESS_TOKEN', 401);
  });

  it('are gone with their grants and preferences when deleted', async () => {
    const em = emulator();
    const p = demoProject(em);
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client'));
    const server = transportFor(em, 'server');
    await endpoints
      .createProjectPermissionDefinition(transportFor(em, 'admin'), { id: 'anonymous_reader' })
      .catch(() => undefined);
    await endpoints.grantProjectPermission(server, anonymous.user_id, 'anonymous_reader');
    await endpoints.updateNotificationPreference(server, anonymous.user_id, '4f6f8873-3d04-46bd-8bef-18338b1a1b4c', {
      enabled: false,
    });
    await endpoints.deleteUser(server, anonymous.user_id);
    expect(p.project_permission_grants!.some((g) => g.user_id === anonymous.user_id)).toBe(false);
    expect(p.notification_preferences!.some((n) => n.user_id === anonymous.user_id)).toBe(false);
  });
});

describe("anonymous users' tokens are signed with a key of their own, as the service signs them", () => {
  const jwks = (em: ReturnType<typeof emulator>, query = '') =>
    api(em, 'GET', `/projects/${em.projects.demo.id}/.well-known/jwks.json${query}`, { access: null });
  const kidsOf = (answer: Awaited<ReturnType<typeof jwks>>) =>
    (answer.body as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);

  it('published only when the key set is asked for them: two keys per audience, as the service publishes', async () => {
    const em = emulator();
    const anonymousKid = decodeProtectedHeader(
      (await endpoints.signUpAnonymously(transportFor(em, 'client'))).access_token,
    ).kid;
    const user = await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email: uniqueEmail('keys'),
      password: 'a-long-password',
      verification_callback_url: VERIFY,
    });
    const userKid = decodeProtectedHeader(user.access_token).kid;
    expect(anonymousKid).not.toBe(userKid);
    const plain = kidsOf(await jwks(em));
    const withRestricted = kidsOf(await jwks(em, '?include_restricted=true'));
    const withAnonymous = kidsOf(await jwks(em, '?include_anonymous=true'));
    // Per audience the key that signs, then the next one (as the service keeps two).
    expect(plain).toHaveLength(2);
    expect(plain[0]).toBe(userKid);
    expect(withRestricted).toHaveLength(4);
    expect(withRestricted.slice(0, 2)).toEqual(plain);
    expect(withAnonymous).toHaveLength(6);
    expect(withAnonymous.slice(0, 4)).toEqual(withRestricted);
    expect(withAnonymous[4]).toBe(anonymousKid);
    expect(new Set(withAnonymous).size).toBe(6);
    expect(kidsOf(await jwks(em, '?include_restricted=false&include_anonymous=false'))).toEqual(plain);
    expectKnownError(await jwks(em, '?include_anonymous=yes'), 'SCHEMA_ERROR', 400);
  });

  it("a token with the project's own audience signed with the anonymous key is refused: the key signs only its audience", async () => {
    const em = emulator();
    const user = await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email: uniqueEmail('forged'),
      password: 'a-long-password',
      verification_callback_url: VERIFY,
    });
    const { anonymous } = demoProject(em).audience_keys;
    const forged = await signWithKey(decodeJwt(user.access_token), anonymous);
    expectKnownError(await api(em, 'GET', '/users/me', { accessToken: forged }), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expect((await api(em, 'GET', '/users/me', { accessToken: user.access_token })).status).toBe(200);
  });
});

describe('snapshots written before these features', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authbroker-features-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('load, and serve project permissions and preferences from empty', async () => {
    const file = join(dir, 'state.json');
    const first = await startEmulator({ port: 0, dataFile: file });
    const demo = first.projects.demo;
    await first.stop();
    // As an emulator of before wrote it: none of the new fields.
    const state = JSON.parse(readFileSync(file, 'utf8')) as EmulatorState;
    const signingKid = state.projects[demo.id]!.signing_key.kid;
    for (const p of Object.values(state.projects) as Array<Partial<EmulatorState['projects'][string]>>) {
      delete p.project_permission_definitions;
      delete p.project_permission_grants;
      delete p.notification_preferences;
      delete p.audience_keys;
    }
    writeFileSync(file, JSON.stringify(state));
    const em = await startEmulator({ port: 0, dataFile: file });
    try {
      expect(em.projects.demo.id).toBe(demo.id);
      // The audience keys are made at load, and written back at once, so they survive the next restart; the project's
      // own key is kept.
      const written = JSON.parse(readFileSync(file, 'utf8')) as EmulatorState;
      expect(written.projects[demo.id]!.signing_key.kid).toBe(signingKid);
      expect(written.projects[demo.id]!.audience_keys.anonymous.kid).toEqual(expect.any(String));
      const guest = await endpoints.signUpAnonymously(transportFor(em, 'client'));
      expect(decodeProtectedHeader(guest.access_token).kid).toBe(
        written.projects[demo.id]!.audience_keys.anonymous.kid,
      );
      expect(await endpoints.listProjectPermissionDefinitions(transportFor(em, 'admin'))).toEqual([]);
      const user = await endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email: uniqueEmail('old-snapshot'),
        password: 'a-long-password',
        verification_callback_url: VERIFY,
      });
      const asUser = transportFor(em, 'client', { accessToken: user.access_token });
      expect(await endpoints.listProjectPermissions(asUser, { user_id: 'me' })).toEqual([]);
      expect((await endpoints.listNotificationPreferences(asUser, 'me')).map((p) => p.enabled)).toEqual([true, true]);
    } finally {
      await em.stop();
    }
  });
});
