import { describe, expect, it } from 'vitest';
import { endpoints, KnownError } from '../../protocol/index.js';
import { sha256Hex } from '../../emulator/crypto.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { freshProject, keyHeaders, raw, rejection } from './httpSupport.js';

const emulator = useEmulator();
const FAR_FUTURE = Date.UTC(2090, 0, 1);

function clientHeaders(projectId: string, publishableKey: string): Record<string, string> {
  return {
    'x-stack-project-id': projectId,
    'x-stack-access-type': 'client',
    'x-stack-publishable-client-key': publishableKey,
  };
}

describe('/internal/api-keys', () => {
  it('lists the seeded set obfuscated', async () => {
    const em = emulator();
    const [seeded] = await endpoints.listApiKeys(transportFor(em, 'admin'));
    expect(seeded).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      description: 'Seeded by the emulator',
      created_at_millis: expect.any(Number),
      expires_at_millis: Date.UTC(2099, 11, 31),
      publishable_client_key: { last_four: em.projects.demo.publishableClientKey.slice(-4) },
      secret_server_key: { last_four: em.projects.demo.secretServerKey.slice(-4) },
      super_secret_admin_key: { last_four: em.projects.demo.superSecretAdminKey.slice(-4) },
    });
  });

  it('creates a set (200) with full secrets shown once, storing only hashes', async () => {
    const em = emulator();
    const { project, admin, adminToken } = await freshProject(em);
    const response = await raw(em, 'POST', '/api/v1/internal/api-keys', {
      headers: {
        'x-stack-project-id': project.id,
        'x-stack-access-type': 'admin',
        'x-stack-admin-access-token': adminToken,
      },
      json: {
        description: 'default',
        expires_at_millis: FAR_FUTURE,
        has_publishable_client_key: true,
        has_secret_server_key: true,
        has_super_secret_admin_key: false,
      },
    });
    expect(response.status).toBe(200);
    const created = response.json<Record<string, unknown>>();
    expect(Object.keys(created).sort()).toEqual([
      'created_at_millis',
      'description',
      'expires_at_millis',
      'id',
      'publishable_client_key',
      'secret_server_key',
    ]);
    expect(created.publishable_client_key).toMatch(/^pck_[0-9a-z]{45}$/);
    expect(created.secret_server_key).toMatch(/^ssk_[0-9a-z]{45}$/);

    const stored = JSON.stringify(em.env.store.state.projects[project.id]);
    expect(stored).not.toContain(created.publishable_client_key);
    expect(stored).not.toContain(created.secret_server_key);
    expect(stored).toContain(sha256Hex(created.publishable_client_key as string));

    const listed = await endpoints.getApiKey(admin, created.id as string);
    expect(listed).toEqual({
      id: created.id,
      description: 'default',
      created_at_millis: created.created_at_millis,
      expires_at_millis: FAR_FUTURE,
      publishable_client_key: { last_four: (created.publishable_client_key as string).slice(-4) },
      secret_server_key: { last_four: (created.secret_server_key as string).slice(-4) },
    });
    const works = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: clientHeaders(project.id, created.publishable_client_key as string),
    });
    expect(works.status).toBe(200);
  });

  it('lists newest first', async () => {
    const em = emulator();
    const { admin } = await freshProject(em);
    const input = {
      expires_at_millis: FAR_FUTURE,
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    };
    const first = await endpoints.createApiKey(admin, { description: 'first', ...input });
    const second = await endpoints.createApiKey(admin, { description: 'second', ...input });
    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: 10 } });
    const third = await endpoints.createApiKey(admin, { description: 'third', ...input });
    expect((await endpoints.listApiKeys(admin)).map((k) => k.id)).toEqual([third.id, second.id, first.id]);
  });

  it('answers API_KEY_NOT_FOUND for unknown ids and SCHEMA_ERROR for malformed ones', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    for (const call of [
      endpoints.getApiKey(admin, crypto.randomUUID()),
      endpoints.updateApiKey(admin, crypto.randomUUID(), { description: 'x' }),
    ]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(KnownError);
      expect(error).toMatchObject({ code: 'API_KEY_NOT_FOUND', status: 404 });
    }
    const malformed = await raw(em, 'GET', '/api/v1/internal/api-keys/not-a-uuid', {
      headers: keyHeaders(em, 'admin'),
    });
    expect(malformed.json<{ code: string; error: string }>()).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(malformed.json<{ error: string }>().error).toContain('params.api_key_id must be a valid UUID');
  });

  it('validates the create body and is admin-only', async () => {
    const em = emulator();
    const missing = await raw(em, 'POST', '/api/v1/internal/api-keys', {
      headers: keyHeaders(em, 'admin'),
      json: { description: 'x' },
    });
    expect(missing.status).toBe(400);
    const error = missing.json<{ error: string }>().error;
    for (const field of [
      'expires_at_millis',
      'has_publishable_client_key',
      'has_secret_server_key',
      'has_super_secret_admin_key',
    ])
      expect(error).toContain(`body.${field} must be defined`);
    const server = await raw(em, 'GET', '/api/v1/internal/api-keys', { headers: keyHeaders(em, 'server') });
    expect(server.json()).toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
      details: { actual_access_type: 'server', allowed_access_types: ['admin'] },
    });
  });

  it('updates the description, refuses revoked: false, and a revoked key stops at once', async () => {
    const em = emulator();
    const { project, admin } = await freshProject(em);
    const created = await endpoints.createApiKey(admin, {
      description: 'old',
      expires_at_millis: FAR_FUTURE,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    });
    expect((await endpoints.updateApiKey(admin, created.id, { description: 'new' })).description).toBe('new');

    const falseRevoke = await rejection(endpoints.updateApiKey(admin, created.id, { revoked: false as never }));
    expect(falseRevoke).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect((falseRevoke as KnownError).message).toContain('body.revoked must be one of the following values: true');

    const server = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'server',
      'x-stack-secret-server-key': created.secret_server_key!,
    };
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers: server })).status).toBe(200);
    const before = Date.now();
    const revoked = await endpoints.revokeApiKey(admin, created.id);
    expect(revoked.manually_revoked_at_millis).toBeGreaterThanOrEqual(before - 1000);
    expect(revoked.secret_server_key).toEqual({ last_four: created.secret_server_key!.slice(-4) });

    const refused = await raw(em, 'GET', '/api/v1/projects/current', { headers: server });
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'INVALID_SECRET_SERVER_KEY', details: { project_id: project.id } });
    const client = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: clientHeaders(project.id, created.publishable_client_key!),
    });
    expect(client.json()).toMatchObject({ code: 'INVALID_PUBLISHABLE_CLIENT_KEY' });
    const adminKey = await raw(em, 'GET', '/api/v1/internal/api-keys', {
      headers: {
        'x-stack-project-id': project.id,
        'x-stack-access-type': 'admin',
        'x-stack-super-secret-admin-key': created.super_secret_admin_key!,
      },
    });
    expect(adminKey.json()).toMatchObject({ code: 'INVALID_SUPER_SECRET_ADMIN_KEY' });
    // Revoking again keeps the first revocation time.
    expect((await endpoints.revokeApiKey(admin, created.id)).manually_revoked_at_millis).toBe(
      revoked.manually_revoked_at_millis,
    );
  });

  it('stops an expired key as soon as the clock passes its expiry', async () => {
    const em = emulator();
    const { project, admin } = await freshProject(em);
    const now = ((await (await fetch(`${em.url}/emulator/time`)).json()) as { now_millis: number }).now_millis;
    const created = await endpoints.createApiKey(admin, {
      description: 'short',
      expires_at_millis: now + 60_000,
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    });
    const headers = clientHeaders(project.id, created.publishable_client_key!);
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers })).status).toBe(200);
    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: 61_000 } });
    const expired = await raw(em, 'GET', '/api/v1/projects/current', { headers });
    expect(expired.json()).toMatchObject({
      code: 'INVALID_PUBLISHABLE_CLIENT_KEY',
      details: { project_id: project.id },
    });
  });
});
