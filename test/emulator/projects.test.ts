import { describe, expect, it } from 'vitest';
import { DEMO_EXTENSION_REDIRECT_ORIGINS } from '../../emulator/state/seed.js';
import { endpoints, HttpStatusError, KnownError } from '../../protocol/index.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import {
  adminTokenTransport,
  freshProject,
  internalUserTransport,
  keyHeaders,
  raw,
  rejection,
  signInAdmin,
} from './httpSupport.js';

const emulator = useEmulator();

async function expectPlain(promise: Promise<unknown>, status: number, body: string): Promise<void> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(HttpStatusError);
  expect(error).toMatchObject({ status, body });
}

async function expectKnown(
  promise: Promise<unknown>,
  code: string,
  details?: Record<string, unknown>,
): Promise<KnownError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(KnownError);
  expect((error as KnownError).code).toBe(code);
  if (details !== undefined) expect((error as KnownError).details).toEqual(details);
  return error as KnownError;
}

describe('GET /projects/current', () => {
  it('gives every access type the client view, exactly (the admin view moved to /internal/projects/current)', async () => {
    const em = emulator();
    const expected = {
      id: em.projects.demo.id,
      display_name: 'Authbroker Demo',
      config: {
        sign_up_enabled: true,
        credential_enabled: true,
        magic_link_enabled: true,
        passkey_enabled: true,
        client_team_creation_enabled: true,
        client_user_deletion_enabled: true,
        enabled_oauth_providers: [{ id: 'github' }, { id: 'google' }],
        // The demo extension's social sign-in comes back to these (emulator/state/seed.ts).
        domains: DEMO_EXTENSION_REDIRECT_ORIGINS.map((domain) => ({ domain, handler_path: '/handler' })),
        allow_user_api_keys: false,
        allow_team_api_keys: false,
      },
    };
    expect(await endpoints.getCurrentProject(transportFor(em, 'client'))).toEqual(expected);
    expect(await endpoints.getCurrentProject(transportFor(em, 'server'))).toEqual(expected);
    expect((await raw(em, 'GET', '/api/v1/projects/current', { headers: keyHeaders(em, 'admin') })).json()).toEqual(
      expected,
    );
  });

  it('gives admins the admin view with provider credentials at /internal/projects/current', async () => {
    const em = emulator();
    const project = await endpoints.getCurrentProject(transportFor(em, 'admin'));
    expect(project).toMatchObject({
      id: em.projects.demo.id,
      description: 'Seeded by the authbroker emulator',
      is_production_mode: false,
      onboarding_status: 'completed',
      logo_url: null,
    });
    expect(project).not.toHaveProperty('user_count');
    expect(project.config.oauth_providers.map((p) => p.id)).toEqual(['github', 'google']);
    expect(project.config.oauth_providers[0]).toEqual({
      provider_config_id: 'github',
      id: 'github',
      type: 'standard',
      client_id: 'emulator-github-client',
      client_secret: 'emulator-github-secret',
    });
    expect(project.config.email_config).toMatchObject({ type: 'standard', password: 'emulator' });
    expect(project.config).not.toHaveProperty('id');
    expect(project.config).toMatchObject({
      user_default_permissions: [],
      allow_user_api_keys: false,
      allow_team_api_keys: false,
      email_theme: expect.any(String),
    });
  });
});

describe('PATCH /internal/projects/current', () => {
  it('is admin-only; PATCH and DELETE of /projects/current answer 405 with no body, as the service does now', async () => {
    const em = emulator();
    for (const method of ['PATCH', 'DELETE']) {
      const old = await raw(em, method, '/api/v1/projects/current', {
        headers: keyHeaders(em, 'admin'),
        json: { display_name: 'x' },
      });
      expect([old.status, old.text]).toEqual([405, '']);
    }
    for (const access of ['client', 'server'] as const) {
      const response = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
        headers: keyHeaders(em, access),
        json: { display_name: 'x' },
      });
      expect(response.status).toBe(401);
      expect(response.json()).toMatchObject({
        code: 'INSUFFICIENT_ACCESS_TYPE',
        details: { actual_access_type: access, allowed_access_types: ['admin'] },
      });
    }
  });

  it('updates fields, replaces lists and keeps an omitted description', async () => {
    const em = emulator();
    const { admin } = await freshProject(em);
    const first = await endpoints.updateCurrentProject(admin, {
      display_name: 'Renamed',
      description: 'About it',
      is_production_mode: true,
      config: {
        magic_link_enabled: true,
        domains: [
          { domain: 'https://a.example.com', handler_path: '/handler' },
          { domain: 'http://b.example.com', handler_path: '/h' },
        ],
        oauth_providers: [{ id: 'github', type: 'shared' }],
      },
    });
    expect(first).toMatchObject({ display_name: 'Renamed', description: 'About it', is_production_mode: true });
    expect(first.config.magic_link_enabled).toBe(true);
    expect(first.config.oauth_providers).toEqual([{ provider_config_id: 'github', id: 'github', type: 'shared' }]);
    expect(first.config.enabled_oauth_providers).toEqual([{ id: 'github' }]);

    const second = await endpoints.updateCurrentProject(admin, {
      config: {
        domains: [{ domain: 'https://c.example.com', handler_path: '/handler' }],
        oauth_providers: [
          { id: 'google', type: 'standard', client_id: 'g', client_secret: 's' },
          { id: 'github', type: 'shared' },
        ],
      },
    });
    // v2.7 reset the description when an update left it out (§4.9); the service no longer does.
    expect(second.description).toBe('About it');
    expect(second.display_name).toBe('Renamed');
    expect(second.config.domains).toEqual([{ domain: 'https://c.example.com', handler_path: '/handler' }]);
    expect(second.config.oauth_providers.map((p) => p.id)).toEqual(['github', 'google']);
    expect(second.config.enabled_oauth_providers).toEqual([{ id: 'github' }, { id: 'google' }]);
    expect(second.config.magic_link_enabled).toBe(true);
  });

  it('replaces the provider list: one left out is off, the later of two with one id wins, shared keys are taken for any provider', async () => {
    const em = emulator();
    const { admin } = await freshProject(em, {
      display_name: 'P',
      config: { oauth_providers: [{ id: 'github', type: 'shared' }] },
    });
    const replaced = await endpoints.updateCurrentProject(admin, {
      config: {
        oauth_providers: [
          { id: 'google', type: 'shared' },
          { id: 'discord', type: 'shared', client_id: 'kept-as-given' },
          { id: 'google', type: 'standard', client_id: 'g', client_secret: 's' },
        ],
      },
    });
    expect(replaced.config.oauth_providers).toEqual([
      { provider_config_id: 'discord', id: 'discord', type: 'shared', client_id: 'kept-as-given' },
      { provider_config_id: 'google', id: 'google', type: 'standard', client_id: 'g', client_secret: 's' },
    ]);
    expect(replaced.config.enabled_oauth_providers).toEqual([{ id: 'discord' }, { id: 'google' }]);
    const none = await endpoints.updateCurrentProject(admin, { config: { oauth_providers: [] } });
    expect([none.config.oauth_providers, none.config.enabled_oauth_providers]).toEqual([[], []]);
  });

  it("refuses v2.7's enabled flag, as the service does now", async () => {
    const em = emulator();
    const { project } = await freshProject(em);
    const headers = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'admin',
      'x-stack-admin-access-token': (await signInAdmin(em)).access_token,
    };
    const flagged = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers,
      json: { config: { oauth_providers: [{ id: 'github', type: 'shared', enabled: true }] } },
    });
    expect(flagged.json()).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(flagged.json<{ error: string }>().error).toContain('enabled');
  });

  it('requires non-empty credentials for standard providers, and takes the provider-specific fields', async () => {
    const em = emulator();
    const { project, admin } = await freshProject(em);
    const headers = {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'admin',
      'x-stack-admin-access-token': (await signInAdmin(em)).access_token,
    };
    const missing = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers,
      json: { config: { oauth_providers: [{ id: 'discord', type: 'standard' }] } },
    });
    expect(missing.json()).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(missing.json<{ error: string }>().error).toContain(
      'body.config.oauth_providers[0].client_id must be defined',
    );
    const empty = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers,
      json: { config: { oauth_providers: [{ id: 'discord', type: 'standard', client_id: '', client_secret: 's' }] } },
    });
    expect(empty.json<{ error: string }>().error).toContain(
      'body.config.oauth_providers[0].client_id must not be empty',
    );
    const specific = await endpoints.updateCurrentProject(admin, {
      config: {
        oauth_providers: [
          { id: 'apple', type: 'standard', client_id: 'a', client_secret: 's', apple_bundle_ids: ['com.example.app'] },
          { id: 'microsoft', type: 'standard', client_id: 'm', client_secret: 's', microsoft_tenant_id: 't' },
          { id: 'twitch', type: 'shared' },
        ],
      },
    });
    expect(specific.config.oauth_providers).toEqual([
      {
        provider_config_id: 'apple',
        id: 'apple',
        type: 'standard',
        client_id: 'a',
        client_secret: 's',
        apple_bundle_ids: ['com.example.app'],
      },
      {
        provider_config_id: 'microsoft',
        id: 'microsoft',
        type: 'standard',
        client_id: 'm',
        client_secret: 's',
        microsoft_tenant_id: 't',
      },
      { provider_config_id: 'twitch', id: 'twitch', type: 'shared' },
    ]);
  });

  it('refuses duplicate domains, bad domains and unknown default permissions', async () => {
    const em = emulator();
    const { admin } = await freshProject(em);
    const domain = { domain: 'https://a.example.com', handler_path: '/handler' };
    await expectPlain(
      endpoints.updateCurrentProject(admin, { config: { domains: [domain, domain] } }),
      400,
      'Duplicated domain found',
    );
    const bad = await expectKnown(
      endpoints.updateCurrentProject(admin, {
        config: { domains: [{ domain: 'ftp://a.example.com', handler_path: '/h' }] },
      }),
      'SCHEMA_ERROR',
    );
    expect(bad.message).toContain('URL must start with http:// or https://');
    await expectPlain(
      endpoints.updateCurrentProject(admin, { config: { team_member_default_permissions: [{ id: 'nope' }] } }),
      400,
      'Invalid team default permission ids',
    );
    const ok = await endpoints.updateCurrentProject(admin, {
      config: { team_member_default_permissions: [{ id: 'team_member' }, { id: '$read_members' }] },
    });
    expect(ok.config.team_member_default_permissions).toEqual([{ id: '$read_members' }, { id: 'team_member' }]);
  });

  it('refuses shared e-mail while custom templates exist, with the exact text', async () => {
    const em = emulator();
    const standard = {
      type: 'standard' as const,
      host: 'smtp.example.com',
      port: 587,
      username: 'u',
      password: 'p',
      sender_name: 'S',
      sender_email: 's@example.com',
    };
    const { admin } = await freshProject(em, { display_name: 'Mail', config: { email_config: standard } });
    await endpoints.updateEmailTemplate(admin, 'password_reset', { subject: 'Custom' });
    await expectPlain(
      endpoints.updateCurrentProject(admin, { config: { email_config: { type: 'shared' } } }),
      400,
      'Cannot change email service type to shared when custom templates are defined. Disable custom templates first, before changing the email service type.',
    );
    await endpoints.resetEmailTemplate(admin, 'password_reset');
    const shared = await endpoints.updateCurrentProject(admin, { config: { email_config: { type: 'shared' } } });
    expect(shared.config.email_config).toEqual({ type: 'shared' });
  });

  it('validates standard e-mail configs', async () => {
    const em = emulator();
    const { admin } = await freshProject(em);
    const error = await expectKnown(
      endpoints.updateCurrentProject(admin, {
        config: { email_config: { type: 'standard', host: '', port: 70000 } as never },
      }),
      'SCHEMA_ERROR',
    );
    expect(error.message).toContain('body.config.email_config.host must not be empty');
    expect(error.message).toContain('body.config.email_config.port must be less than or equal to 65535');
    expect(error.message).toContain('body.config.email_config.username must be defined');
  });

  it('does not let config.id, created_at_millis or user_count be written', async () => {
    const em = emulator();
    const headers = keyHeaders(em, 'admin');
    const top = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers,
      json: { created_at_millis: 1, user_count: 5 },
    });
    expect(top.status).toBe(400);
    expect(top.json()).toMatchObject({ code: 'SCHEMA_ERROR' });
    expect(top.json<{ error: string }>().error).toBe(
      'Request validation failed on PATCH /api/v1/internal/projects/current:\n  - body contains unknown properties: created_at_millis, user_count',
    );
    const nested = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers,
      json: { config: { id: crypto.randomUUID() } },
    });
    expect(nested.json<{ error: string }>().error).toContain('body.config contains unknown properties: id');
  });
});

describe('DELETE /internal/projects/current', () => {
  it('deletes the project and removes it from its owner', async () => {
    const em = emulator();
    const { project, admin, adminToken } = await freshProject(em, { display_name: 'Doomed' });
    expect(await endpoints.deleteCurrentProject(admin)).toEqual({ success: true });
    expect(em.env.store.project(project.id)).toBeUndefined();
    const owned = await endpoints.listOwnedProjects(internalUserTransport(em, adminToken));
    expect(owned.map((p) => p.id)).not.toContain(project.id);
    // Gone: the service says the project id is unknown before it looks at the token.
    await expectKnown(
      endpoints.getCurrentProject(adminTokenTransport(em, project.id, adminToken)),
      'CURRENT_PROJECT_NOT_FOUND',
      { project_id: project.id },
    );
  });

  it('is admin-only and keeps the internal project', async () => {
    const em = emulator();
    const client = await raw(em, 'DELETE', '/api/v1/internal/projects/current', { headers: keyHeaders(em, 'client') });
    expect(client.json()).toMatchObject({ code: 'INSUFFICIENT_ACCESS_TYPE' });
    const internal = await raw(em, 'DELETE', '/api/v1/internal/projects/current', {
      headers: keyHeaders(em, 'admin', 'internal'),
    });
    expect(internal.status).toBe(400);
    expect(em.env.store.project('internal')).toBeDefined();
  });
});

describe('/internal/projects', () => {
  it('needs a signed-in user, then the internal project', async () => {
    const em = emulator();
    await expectKnown(
      endpoints.listOwnedProjects(transportFor(em, 'client', { project: 'internal' })),
      'USER_AUTHENTICATION_REQUIRED',
    );
    const demoUser = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: 'demo@authbroker.dev',
      password: 'demo-password',
    });
    await expectKnown(
      endpoints.listOwnedProjects(transportFor(em, 'client', { accessToken: demoUser.access_token })),
      'EXPECTED_INTERNAL_PROJECT',
    );
    await expectKnown(
      endpoints.createProject(transportFor(em, 'client', { accessToken: demoUser.access_token }), {
        display_name: 'x',
      }),
      'EXPECTED_INTERNAL_PROJECT',
    );
  });

  it('creates a project with the §12.1 defaults, 201, owned by the caller and without keys', async () => {
    const em = emulator();
    const { access_token, user_id } = await signInAdmin(em);
    const response = await raw(em, 'POST', '/api/v1/internal/projects', {
      headers: { ...keyHeaders(em, 'client', 'internal'), 'x-stack-access-token': access_token },
      json: { display_name: 'My App' },
    });
    expect(response.status).toBe(201);
    const project = response.json<Record<string, unknown> & { id: string; config: Record<string, unknown> }>();
    expect(project.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(project).toMatchObject({
      display_name: 'My App',
      description: '',
      is_production_mode: false,
      owner_team_id: expect.any(String),
    });
    const { email_theme: _theme, ...config } = project.config;
    expect(config).toEqual({
      allow_localhost: true,
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      create_team_on_sign_up: false,
      oauth_account_merge_strategy: 'link_method',
      oauth_providers: [],
      enabled_oauth_providers: [],
      domains: [],
      email_config: { type: 'shared' },
      team_creator_default_permissions: [{ id: 'team_admin' }],
      team_member_default_permissions: [{ id: 'team_member' }],
      user_default_permissions: [],
      allow_user_api_keys: false,
      allow_team_api_keys: false,
    });
    const owner = em.env.store.project('internal')!.users[user_id]!;
    expect((owner.server_metadata as { managedProjectIds: string[] }).managedProjectIds).toContain(project.id);
    expect(await endpoints.listApiKeys(adminTokenTransport(em, project.id, access_token))).toEqual([]);
  });

  it('lists owned projects newest first', async () => {
    const em = emulator();
    const { access_token } = await signInAdmin(em);
    const t = internalUserTransport(em, access_token);
    const a = await endpoints.createProject(t, { display_name: 'A' });
    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: 1000 } });
    const b = await endpoints.createProject(t, { display_name: 'B', config: { magic_link_enabled: true } });
    expect(b.config.magic_link_enabled).toBe(true);
    const ids = (await endpoints.listOwnedProjects(t)).map((p) => p.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(ids[0]).toBe(b.id);
    expect(ids).toContain(em.projects.demo.id);
    expect(ids).toContain('internal');
  });

  it('validates the create body', async () => {
    const em = emulator();
    const { access_token } = await signInAdmin(em);
    const response = await raw(em, 'POST', '/api/v1/internal/projects', {
      headers: { ...keyHeaders(em, 'client', 'internal'), 'x-stack-access-token': access_token },
      json: { description: 'no name' },
    });
    expect(response.json<{ error: string }>().error).toContain('body.display_name must be defined');
    await expectKnown(
      endpoints.createProject(internalUserTransport(em, access_token), {
        display_name: 'x',
        config: { oauth_providers: [{ id: 'myspace', type: 'shared' }] },
      }),
      'SCHEMA_ERROR',
    );
  });
});
