import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import type { EmulatorState } from '../../emulator/state/model.js';
import { endpoints } from '../../protocol/index.js';
import { api, demoProject, expectKnownError, withDemoConfig } from '../support/authFlows.js';
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
      expect((await endpoints.listTeams(asAnonymous, { userId: 'me' })).map((t) => t.display_name)).toEqual(['Personal Team']);
      const email = uniqueEmail('named');
      const upgraded = await endpoints.signUpWithPassword(asAnonymous, { email, password: 'a-long-password', verification_callback_url: VERIFY }, { user: 'optional' });
      const teams = await endpoints.listTeams(transportFor(em, 'client', { accessToken: upgraded.access_token }), { userId: 'me' });
      expect(teams.map((t) => t.display_name)).toEqual([`${email}'s Team`]);
    });
  });

  it('are dated from the upgrade, the anonymous mark gone from the stored user', async () => {
    const em = emulator();
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client'));
    const before = demoProject(em).users[anonymous.user_id]!.signed_up_at_millis;
    em.env.clock.advance(60_000);
    await endpoints.signUpWithPassword(transportFor(em, 'client', { accessToken: anonymous.access_token }), { email: uniqueEmail('dated'), password: 'a-long-password', verification_callback_url: VERIFY }, { user: 'optional' });
    expect(demoProject(em).users[anonymous.user_id]!.signed_up_at_millis).toBeGreaterThanOrEqual(before + 60_000);
    expect(demoProject(em).users[anonymous.user_id]!.is_anonymous).toBeUndefined();
  });

  it('cannot act as project owners: an anonymous token of the internal project is no admin access token', async () => {
    const em = emulator();
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client', { project: 'internal' }));
    const answer = await api(em, 'GET', '/projects/current', { access: 'admin', headers: { 'x-stack-admin-access-token': anonymous.access_token } });
    expectKnownError(answer, 'UNPARSABLE_ADMIN_ACCESS_TOKEN', 401);
  });

  it('are gone with their grants and preferences when deleted', async () => {
    const em = emulator();
    const p = demoProject(em);
    const anonymous = await endpoints.signUpAnonymously(transportFor(em, 'client'));
    const server = transportFor(em, 'server');
    await endpoints.createProjectPermissionDefinition(transportFor(em, 'admin'), { id: 'anonymous_reader' }).catch(() => undefined);
    await endpoints.grantProjectPermission(server, anonymous.user_id, 'anonymous_reader');
    await endpoints.updateNotificationPreference(server, anonymous.user_id, '4f6f8873-3d04-46bd-8bef-18338b1a1b4c', { enabled: false });
    await endpoints.deleteUser(server, anonymous.user_id);
    expect(p.project_permission_grants!.some((g) => g.user_id === anonymous.user_id)).toBe(false);
    expect(p.notification_preferences!.some((n) => n.user_id === anonymous.user_id)).toBe(false);
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
    for (const p of Object.values(state.projects)) {
      delete p.project_permission_definitions;
      delete p.project_permission_grants;
      delete p.notification_preferences;
    }
    writeFileSync(file, JSON.stringify(state));
    const em = await startEmulator({ port: 0, dataFile: file });
    try {
      expect(em.projects.demo.id).toBe(demo.id);
      expect(await endpoints.listProjectPermissionDefinitions(transportFor(em, 'admin'))).toEqual([]);
      const user = await endpoints.signUpWithPassword(transportFor(em, 'client'), { email: uniqueEmail('old-snapshot'), password: 'a-long-password', verification_callback_url: VERIFY });
      const asUser = transportFor(em, 'client', { accessToken: user.access_token });
      expect(await endpoints.listProjectPermissions(asUser, { user_id: 'me' })).toEqual([]);
      expect((await endpoints.listNotificationPreferences(asUser, 'me')).map((p) => p.enabled)).toEqual([true, true]);
    } finally {
      await em.stop();
    }
  });
});
