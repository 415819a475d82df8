import { describe, expect, it } from 'vitest';
import { signInWithPassword } from '../../protocol/endpoints/auth.js';
import { createAdminApp } from '../../protocol/server.js';
import { demoServerApp, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

const serverApp = () => demoServerApp(emulator());

describe('authbroker/server speaks the same camelCase models as the browser side', () => {
  it('takes camelCase input and returns camelCase users, leaving metadata as the app wrote it', async () => {
    const app = serverApp();
    const email = uniqueEmail('models');
    const created = await app.createUser({
      primaryEmail: email,
      primaryEmailAuthEnabled: true,
      displayName: 'Ada',
      clientMetadata: { favourite_colour: 'green' },
    });
    expect(created.primaryEmail).toBe(email);
    expect(created.displayName).toBe('Ada');
    expect(created.clientMetadata).toEqual({ favourite_colour: 'green' });
    expect(created).not.toHaveProperty('primary_email');
    expect(typeof created.signedUpAtMillis).toBe('number');

    const updated = await app.updateUser(created.id, { displayName: 'Ada L.', serverMetadata: { plan_tier: 'pro' } });
    expect(updated.displayName).toBe('Ada L.');
    expect(updated.serverMetadata).toEqual({ plan_tier: 'pro' });
    expect((await app.getUser(created.id)).displayName).toBe('Ada L.');
  });

  it('pages and iterates users as models', async () => {
    const app = serverApp();
    await app.createUser({ primaryEmail: uniqueEmail('page') });
    await app.createUser({ primaryEmail: uniqueEmail('page') });
    const page = await app.listUsers({ limit: 1, desc: true });
    expect(page.items).toHaveLength(1);
    expect(page.pagination.nextCursor).toEqual(expect.any(String));
    expect(page.items[0]).toHaveProperty('primaryEmail');
    let seen = 0;
    for await (const user of app.iterateUsers({ limit: 2 })) {
      expect(user).toHaveProperty('signedUpAtMillis');
      seen += 1;
    }
    expect(seen).toBeGreaterThanOrEqual(3);
  });

  it("acting as a user (forUser) gives the user's own model", async () => {
    const em = emulator();
    const { access_token } = await signInWithPassword(transportFor(em, 'client'), {
      email: em.demoUser!.email,
      password: em.demoUser!.password,
    });
    const me = await serverApp().forUser(access_token).getCurrentUser();
    expect(me?.primaryEmail).toBe(em.demoUser!.email);
  });

  it('the admin app returns models too', async () => {
    const { demo } = emulator().projects;
    const admin = createAdminApp({
      baseUrl: emulator().url,
      projectId: demo.id,
      superSecretAdminKey: demo.superSecretAdminKey,
    });
    const project = await admin.updateCurrentProject({ description: 'Renamed by a test' });
    expect(project.description).toBe('Renamed by a test');
    expect(project.config).toHaveProperty('allowLocalhost');
    expect(project).toHaveProperty('createdAtMillis');
  });
});

describe('server app misconfiguration', () => {
  it('a publishable key given as a secret one is refused when the app is created, and a baseUrl with /api/v1 works', async () => {
    const { createServerApp, createAdminApp } = await import('../../protocol/server.js');
    const em = emulator();
    const base = { baseUrl: em.url, projectId: em.projects.demo.id };
    expect(() => createServerApp({ ...base, secretServerKey: em.projects.demo.publishableClientKey })).toThrow(
      expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }),
    );
    expect(() => createAdminApp({ ...base, superSecretAdminKey: 'pck_not_an_admin_key' })).toThrow(
      expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }),
    );
    const app = createServerApp({
      ...base,
      baseUrl: `${em.url}/api/v1/`,
      secretServerKey: em.projects.demo.secretServerKey,
    });
    const page = await app.listUsers({ limit: 1 });
    expect(page.items.length).toBe(1);
  });
});
