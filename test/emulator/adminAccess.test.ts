import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { deleteUser } from '../../emulator/state/users.js';
import { endpoints, KnownError, refreshAccessToken } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { adminTokenTransport, internalUserTransport, raw, rejection, signInAdmin } from './httpSupport.js';

// A short token lifetime, so expiry is one small clock step away.
const emulator = useEmulator({ accessTokenTtlMillis: 60_000 });

function adminTokenHeaders(projectId: string, token: string, accessType = 'admin'): Record<string, string> {
  return { 'x-stack-project-id': projectId, 'x-stack-access-type': accessType, 'x-stack-admin-access-token': token };
}

async function expectKnown(promise: Promise<unknown>, code: string): Promise<KnownError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(KnownError);
  expect((error as KnownError).code).toBe(code);
  return error as KnownError;
}

describe('admin access tokens (§3.6, §6.11)', () => {
  it('administer a new project end to end: create it, create keys, use them, revoke them', async () => {
    const em = emulator();
    const { access_token: adminToken } = await signInAdmin(em);
    expect(decodeJwt(adminToken).aud).toBe('internal');

    const project = await endpoints.createProject(internalUserTransport(em, adminToken), {
      display_name: 'My App',
      config: { magic_link_enabled: true },
    });
    const admin = adminTokenTransport(em, project.id, adminToken);
    expect(await endpoints.listApiKeys(admin)).toEqual([]);

    const keys = await endpoints.createApiKey(admin, {
      description: 'default',
      expires_at_millis: Date.UTC(2090, 0, 1),
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    expect(keys.super_secret_admin_key).toBeUndefined();

    const client = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'client',
      'x-stack-publishable-client-key': keys.publishable_client_key!,
    };
    const server = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'server',
      'x-stack-secret-server-key': keys.secret_server_key!,
    };
    const asClient = await raw(em, 'GET', '/api/v1/projects/current', { headers: client });
    expect(asClient.json()).toMatchObject({
      id: project.id,
      display_name: 'My App',
      config: { magic_link_enabled: true },
    });
    expect((await raw(em, 'GET', '/api/v1', { headers: server })).text).toContain(
      `Authentication: Server\n  Project: ${project.id}`,
    );

    // A user can sign up in the new project with its new key.
    const signUp = await raw(em, 'POST', '/api/v1/auth/password/sign-up', {
      headers: client,
      json: {
        email: uniqueEmail('new-project'),
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/verify',
      },
    });
    expect(signUp.status).toBe(200);

    const updated = await endpoints.updateCurrentProject(admin, {
      config: { domains: [{ domain: 'https://app.example.com', handler_path: '/handler' }], allow_localhost: false },
    });
    expect(updated.config.allow_localhost).toBe(false);
    expect((await endpoints.listUsers(admin)).items).toHaveLength(1);

    await endpoints.revokeApiKey(admin, keys.id);
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers: client })).json()).toMatchObject({
      code: 'INVALID_PUBLISHABLE_CLIENT_KEY',
      details: { project_id: project.id },
    });
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers: server })).json()).toMatchObject({
      code: 'INVALID_SECRET_SERVER_KEY',
      details: { project_id: project.id },
    });
  });

  it('replaces the key check for any access type, even with empty key headers', async () => {
    const em = emulator();
    const { access_token } = await signInAdmin(em);
    for (const accessType of ['client', 'server', 'admin']) {
      const response = await raw(em, 'GET', '/api/v1', {
        headers: {
          ...adminTokenHeaders(em.projects.demo.id, access_token, accessType),
          'x-stack-super-secret-admin-key': '',
          'x-stack-secret-server-key': '',
        },
      });
      expect(response.status).toBe(200);
      expect(response.text).toContain(
        `Authentication: ${accessType[0]!.toUpperCase()}${accessType.slice(1)}\n  Project: ${em.projects.demo.id}`,
      );
    }
    const clientView = await endpoints.getCurrentProject(
      adminTokenTransport(em, em.projects.demo.id, access_token, 'client'),
    );
    expect(clientView).not.toHaveProperty('description');
  });

  it('is not admin for projects the user does not own, nor when issued by another project', async () => {
    const em = emulator();
    const internalClient = transportFor(em, 'client', { project: 'internal' });
    const other = await endpoints.signUpWithPassword(internalClient, {
      email: uniqueEmail('other-owner'),
      password: 'correct horse',
      verification_callback_url: 'http://localhost:3000/verify',
    });
    const notOwned = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: adminTokenHeaders(em.projects.demo.id, other.access_token),
    });
    expect(notOwned.status).toBe(401);
    expect(notOwned.headers.get('x-stack-known-error')).toBe('ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    // Their own new project is theirs alone.
    const own = await endpoints.createProject(internalUserTransport(em, other.access_token), {
      display_name: 'Theirs',
    });
    expect((await endpoints.getCurrentProject(adminTokenTransport(em, own.id, other.access_token))).id).toBe(own.id);
    const { access_token: ownerToken } = await signInAdmin(em);
    await expectKnown(
      endpoints.getCurrentProject(adminTokenTransport(em, own.id, ownerToken)),
      'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
    );

    const demoUser = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: 'demo@authbroker.dev',
      password: 'demo-password',
    });
    await expectKnown(
      endpoints.getCurrentProject(adminTokenTransport(em, em.projects.demo.id, demoUser.access_token)),
      'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
    );
  });

  it('refuses unparsable tokens, vanished users and vanished projects', async () => {
    const em = emulator();
    const garbage = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: adminTokenHeaders(em.projects.demo.id, 'not-a-jwt'),
    });
    expect(garbage.json()).toMatchObject({ code: 'UNPARSABLE_ADMIN_ACCESS_TOKEN' });

    const internal = em.env.store.project('internal')!;
    const ghostProject = crypto.randomUUID();
    const { access_token: ownerToken, user_id: ownerId } = await signInAdmin(em);
    const owner = internal.users[ownerId]!;
    const saved = owner.server_metadata;
    owner.server_metadata = {
      managedProjectIds: [...(saved as { managedProjectIds: string[] }).managedProjectIds, ghostProject],
    };
    try {
      // The service looks the project up before the token's rights (it used to answer
      // INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN).
      const missing = await raw(em, 'GET', '/api/v1/projects/current', {
        headers: adminTokenHeaders(ghostProject, ownerToken),
      });
      expect(missing.json()).toMatchObject({
        code: 'CURRENT_PROJECT_NOT_FOUND',
        details: { project_id: ghostProject },
      });
    } finally {
      owner.server_metadata = saved;
    }

    const doomed = await endpoints.signUpWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: uniqueEmail('doomed-owner'),
      password: 'correct horse',
      verification_callback_url: 'http://localhost:3000/verify',
    });
    deleteUser(internal, doomed.user_id);
    const gone = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: adminTokenHeaders(em.projects.demo.id, doomed.access_token),
    });
    expect(gone.status).toBe(401);
    expect(gone.headers.get('x-stack-known-error')).toBeNull();
    expect(gone.text).toBe(
      'The user associated with the admin access token is no longer valid. Please refresh the admin access token and try again.',
    );
  });

  it('expires with the token lifetime and works again after an ordinary refresh against internal', async () => {
    const em = emulator();
    const signedIn = await signInAdmin(em);
    const admin = adminTokenTransport(em, em.projects.demo.id, signedIn.access_token);
    expect((await endpoints.getCurrentProject(admin)).id).toBe(em.projects.demo.id);

    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: 61_000 } });
    const expired = await expectKnown(endpoints.getCurrentProject(admin), 'ADMIN_ACCESS_TOKEN_EXPIRED');
    expect(expired.status).toBe(401);
    expect(expired.details).toEqual({ expired_at_millis: (decodeJwt(signedIn.access_token).exp ?? 0) * 1000 });

    const internalKeys = em.projects.internal;
    const refreshed = await refreshAccessToken(
      { baseUrl: em.url, projectId: 'internal', publishableClientKey: internalKeys.publishableClientKey },
      signedIn.refresh_token,
    );
    expect(
      (await endpoints.getCurrentProject(adminTokenTransport(em, em.projects.demo.id, refreshed.access_token))).id,
    ).toBe(em.projects.demo.id);
  });
});
