import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { endpoints, refreshAccessToken } from '../../protocol/index.js';
import { userTransport } from '../support/authFlows.js';
import { transportFor, uniqueEmail } from '../support/emulator.js';

/**
 * What the emulator's state file keeps at rest: after sign-ups, sign-ins, password changes,
 * server-made sessions, a CLI login and API key creation, none of the passwords, refresh tokens
 * or key secrets used or received is in the file, not even a long piece of one; the file is 0600.
 */
const dir = mkdtempSync(join(tmpdir(), 'authbroker-at-rest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where `secret` (or any 16-character piece of it, or its JSON-escaped form) appears in `text`. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  if (text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1))) found.push(secret);
  for (let i = 0; i + 16 <= secret.length; i++)
    if (text.includes(secret.slice(i, i + 16))) found.push(`…${secret.slice(i, i + 16)}…`);
  return found;
}

describe('the state file at rest', () => {
  it('holds no plaintext password, refresh token or API key secret, and only its owner may read it', async () => {
    const file = join(dir, 'state.json');
    const em = await startEmulator({ port: 0, dataFile: file, unknownEmailDelayMillis: 0 });
    const secrets: Record<string, string> = {};
    try {
      const client = transportFor(em, 'client');
      const server = transportFor(em, 'server');
      // Sign-ups with passwords of several shapes (ASCII, Unicode, spaces).
      const passwords = ['plain-password-at-rest', 'pässwörd ünïcode 密码', 'correct horse battery staple'];
      const users = [];
      for (const [i, password] of passwords.entries()) {
        const email = uniqueEmail(`rest${i}`);
        const signedUp = await endpoints.signUpWithPassword(client, {
          email,
          password,
          verification_callback_url: 'http://localhost:5173/v',
        });
        secrets[`password ${i}`] = password;
        secrets[`sign-up refresh token ${i}`] = signedUp.refresh_token;
        const signedIn = await endpoints.signInWithPassword(client, { email, password });
        secrets[`sign-in refresh token ${i}`] = signedIn.refresh_token;
        users.push({ email, ...signedIn });
      }
      // The seeded users' passwords were given at start; the owner signs in to the internal project.
      secrets['demo user password'] = em.demoUser!.password;
      secrets['admin user password'] = em.adminUser.password;
      const admin = await endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
        email: em.adminUser.email,
        password: em.adminUser.password,
      });
      secrets['admin refresh token'] = admin.refresh_token;

      // A password change, a refresh grant, a server-made session.
      const first = users[0]!;
      await endpoints.updatePassword(userTransport(em, first), {
        old_password: passwords[0]!,
        new_password: 'changed-password-at-rest',
      });
      secrets['changed password'] = 'changed-password-at-rest';
      const again = await endpoints.signInWithPassword(client, {
        email: first.email,
        password: 'changed-password-at-rest',
      });
      secrets['refresh token after the change'] = again.refresh_token;
      await refreshAccessToken(
        {
          baseUrl: em.url,
          projectId: em.projects.demo.id,
          publishableClientKey: em.projects.demo.publishableClientKey,
        },
        again.refresh_token,
      );
      const made = await endpoints.createSession(server, { user_id: users[1]!.user_id });
      secrets['server-made refresh token'] = made.refresh_token;

      // A CLI login handed a refresh token over; once polled, the file need not keep it.
      const cli = await endpoints.startCliLogin(client);
      await endpoints.completeCliLogin(userTransport(em, users[2]!), {
        login_code: cli.login_code,
        refresh_token: users[2]!.refresh_token,
      });
      const polled = await endpoints.pollCliLogin(client, cli.polling_code);
      expect(polled).toMatchObject({ status: 'success', refresh_token: users[2]!.refresh_token });

      // API keys: the secrets are shown once, in this answer.
      const keys = await endpoints.createApiKey(transportFor(em, 'admin'), {
        description: 'at rest',
        expires_at_millis: em.env.clock.now() + 86_400_000,
        has_publishable_client_key: true,
        has_secret_server_key: true,
        has_super_secret_admin_key: true,
      });
      for (const name of ['publishable_client_key', 'secret_server_key', 'super_secret_admin_key'] as const) {
        const value = keys[name];
        expect(typeof value, name).toBe('string');
        secrets[`new ${name}`] = value!;
      }
      // The seeded keys were given as options at start; they are kept hashed as well.
      for (const [name, value] of Object.entries(em.projects.demo))
        if (name !== 'id') secrets[`seeded demo ${name}`] = value;
      for (const [name, value] of Object.entries(em.projects.internal))
        if (name !== 'id') secrets[`seeded internal ${name}`] = value;
      // The new key works, so what we look for is what the service accepted.
      const withNewKey = await endpoints.getCurrentProject(transportFor(em, 'client', {}));
      expect(withNewKey.id).toBe(em.projects.demo.id);
    } finally {
      await em.stop();
    }

    const text = readFileSync(file, 'utf8');
    const state = JSON.parse(text) as {
      projects: Record<string, { users: object; sessions: object; api_keys: unknown[] }>;
    };
    // The scan looks at a file that does hold the records: users, sessions and keys are there.
    const demo = state.projects[em.projects.demo.id]!;
    expect(Object.keys(demo.users).length).toBeGreaterThanOrEqual(4);
    // Six sign-ups and sign-ins, one revoked by the password change, one more sign-in, one made by the server.
    expect(Object.keys(demo.sessions).length).toBe(7);
    expect(demo.api_keys.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(20);
    const found = Object.entries(secrets).flatMap(([name, secret]) =>
      leaks(text, secret).map((piece) => `${name}: ${piece}`),
    );
    expect(found).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temporary copy left beside it (it would hold the same data, perhaps with looser rights).
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});
