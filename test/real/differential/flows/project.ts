import * as api from '../../../../protocol/endpoints/index.js';
import type { AdminProject } from '../../../../protocol/resources/project.js';
import type { Flow, FlowContext, ProjectKeys } from '../flow.js';

export const PASSWORD = 'Sup3r-secret-passw0rd!';
export const CALLBACK = 'http://localhost:5173/handler/email-verification';
/** A well-formed id that names no user, project or category. */
export const NOBODY = '00000000-0000-4000-8000-000000000000';

/** What every other flow needs switched on in its project. */
export const FLOW_PROJECT_CONFIG = {
  sign_up_enabled: true,
  credential_enabled: true,
  magic_link_enabled: true,
  passkey_enabled: true,
  client_team_creation_enabled: true,
  client_user_deletion_enabled: true,
  allow_localhost: true,
};

/**
 * A project made the way the dashboard makes one, on each side: an `internal` user signs up, creates
 * a project for their team, gives it keys, and configures it. Returns the keys (null when a step failed).
 */
export async function createFlowProject(ctx: FlowContext): Promise<ProjectKeys | null> {
  const owner = ctx.email('owner');
  const internal = (tokens?: { access_token: string; refresh_token?: string }) =>
    ctx.transport('client', { internal: true, tokens });
  const signedUp = await ctx.step('internal sign-up', () =>
    api.signUpWithPassword(internal(), { email: owner, password: PASSWORD, verification_callback_url: CALLBACK }),
  );
  if (!signedUp) return null;
  const me = await ctx.step('internal users/me', () => api.getCurrentUser(internal(signedUp)));
  const project = await ctx.step('create project', () =>
    api.createProject(internal(signedUp), {
      display_name: 'authbroker differential',
      ...(me?.selected_team_id ? { owner_team_id: me.selected_team_id } : {}),
      config: { credential_enabled: true, allow_localhost: true, sign_up_enabled: true },
    } as Parameters<typeof api.createProject>[1]),
  );
  if (!project) return null;
  await ctx.step('list owned projects', () => api.listOwnedProjects(internal(signedUp)));
  const admin = ctx.transport('admin', { adminAccessToken: signedUp.access_token, keys: { projectId: project.id } });
  const keys = await ctx.step('create api keys', () =>
    api.createApiKey(admin, {
      description: 'differential',
      expires_at_millis: Date.now() + 24 * 3600_000,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    }),
  );
  if (!keys?.publishable_client_key || !keys.secret_server_key || !keys.super_secret_admin_key) return null;
  ctx.project = {
    projectId: project.id,
    publishableClientKey: keys.publishable_client_key,
    secretServerKey: keys.secret_server_key,
    superSecretAdminKey: keys.super_secret_admin_key,
  };
  ctx.vars.adminAccessToken = signedUp.access_token;
  ctx.vars.apiKeyId = keys.id;
  await ctx.step('configure project', () => api.updateCurrentProject(ctx.admin(), { config: FLOW_PROJECT_CONFIG }));
  return ctx.project;
}

export const projectFlow: Flow = {
  name: 'project',
  covers: 'creating and configuring a project, its keys, the project views of each access type',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    await ctx.step('project: client view', () => api.getCurrentProject(ctx.client()));
    await ctx.step('project: server view', () => api.getCurrentProject(ctx.server()));
    await ctx.step('project: admin view', () => api.getCurrentProject(ctx.admin()));
    await ctx.raw('project: admin view, internal path', {
      method: 'GET',
      path: '/internal/projects/current',
      headers: ctx.headers('admin'),
    });
    await ctx.raw('project: PATCH /internal/projects/current', {
      method: 'PATCH',
      path: '/internal/projects/current',
      headers: ctx.headers('admin'),
      body: { description: 'changed' },
    });
    await ctx.raw('project: PATCH /projects/current (2.7 path)', {
      method: 'PATCH',
      path: '/projects/current',
      headers: ctx.headers('admin'),
      body: { description: 'changed' },
    });
    await ctx.raw('project: DELETE /projects/current (2.7 path), client', {
      method: 'DELETE',
      path: '/projects/current',
      headers: ctx.headers('client'),
    });
    await ctx.raw('project: update with an unknown config field', {
      method: 'PATCH',
      path: '/internal/projects/current',
      headers: ctx.headers('admin'),
      body: { config: { no_such_field: true } },
    });

    const admin = ctx.admin();
    await ctx.step('api keys: list', () => api.listApiKeys(admin));
    const id = ctx.vars.apiKeyId;
    if (id) {
      await ctx.step('api keys: get', () => api.getApiKey(admin, id));
      await ctx.step('api keys: update description', () => api.updateApiKey(admin, id, { description: 'renamed' }));
    }
    const spare = await ctx.step('api keys: create a second set', () =>
      api.createApiKey(admin, {
        description: 'spare',
        expires_at_millis: Date.now() + 3600_000,
        has_publishable_client_key: true,
        has_secret_server_key: false,
        has_super_secret_admin_key: false,
      }),
    );
    if (spare) await ctx.step('api keys: revoke', () => api.revokeApiKey(admin, spare.id));
    if (spare?.publishable_client_key) {
      const revokedKey = spare.publishable_client_key;
      await ctx.step('revoked publishable key', () =>
        api.getCurrentProject(ctx.transport('client', { keys: { publishableClientKey: revokedKey } })),
      );
    }
    await ctx.raw('delete the project (client)', {
      method: 'DELETE',
      path: '/internal/projects/current',
      headers: ctx.headers('client'),
    });
    await ctx.step('delete the project (admin)', () => api.deleteCurrentProject(ctx.admin()));
    await ctx.step('the project after its deletion', () => api.getCurrentProject(ctx.client()));
  },
};

/** The request-authentication matrix: every way headers can be wrong. */
export const authHeadersFlow: Flow = {
  name: 'auth-headers',
  covers: 'the access-type, project-id and key checks and their known errors',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const p = ctx.project.projectId;
    const cases: Array<[string, Record<string, string>]> = [
      ['no headers at all', {}],
      ['access type without project id', { 'x-stack-access-type': 'client' }],
      ['invalid access type', { 'x-stack-access-type': 'nobody', 'x-stack-project-id': p }],
      [
        'key without access type',
        { 'x-stack-project-id': p, 'x-stack-publishable-client-key': ctx.project.publishableClientKey },
      ],
      ['client without publishable key', { 'x-stack-access-type': 'client', 'x-stack-project-id': p }],
      [
        'client with a wrong publishable key',
        { 'x-stack-access-type': 'client', 'x-stack-project-id': p, 'x-stack-publishable-client-key': 'pck_wrong' },
      ],
      ['server without secret key', { 'x-stack-access-type': 'server', 'x-stack-project-id': p }],
      [
        'server with a wrong secret key',
        { 'x-stack-access-type': 'server', 'x-stack-project-id': p, 'x-stack-secret-server-key': 'ssk_wrong' },
      ],
      ['admin without admin key', { 'x-stack-access-type': 'admin', 'x-stack-project-id': p }],
      [
        'admin with a wrong admin key',
        { 'x-stack-access-type': 'admin', 'x-stack-project-id': p, 'x-stack-super-secret-admin-key': 'sak_wrong' },
      ],
      [
        'unknown project id, client',
        {
          'x-stack-access-type': 'client',
          'x-stack-project-id': '00000000-0000-4000-8000-000000000000',
          'x-stack-publishable-client-key': 'pck_x',
        },
      ],
      [
        'malformed project id, client',
        {
          'x-stack-access-type': 'client',
          'x-stack-project-id': 'not a project',
          'x-stack-publishable-client-key': 'pck_x',
        },
      ],
      ['garbage access token', { ...ctx.headers('client'), 'x-stack-access-token': 'not-a-jwt' }],
      [
        'garbage admin access token',
        { 'x-stack-access-type': 'admin', 'x-stack-project-id': p, 'x-stack-admin-access-token': 'not-a-jwt' },
      ],
      [
        'server key sent as client',
        {
          'x-stack-access-type': 'client',
          'x-stack-project-id': p,
          'x-stack-publishable-client-key': ctx.project.secretServerKey,
        },
      ],
    ];
    for (const [label, headers] of cases) {
      await ctx.raw(`users/me: ${label}`, { method: 'GET', path: '/users/me', headers });
      await ctx.raw(`projects/current: ${label}`, { method: 'GET', path: '/projects/current', headers });
    }
    await ctx.raw('unknown route', { method: 'GET', path: '/no-such-route', headers: ctx.headers('client') });
    await ctx.raw('method not allowed', { method: 'PUT', path: '/users/me', headers: ctx.headers('client'), body: {} });
    await ctx.raw('body not JSON', {
      method: 'PATCH',
      path: '/users/me',
      headers: { ...ctx.headers('server'), 'content-type': 'application/json' },
      body: '{not json',
    });
    await ctx.raw('override error status', {
      method: 'GET',
      path: '/users/me',
      headers: { ...ctx.headers('client'), 'x-stack-override-error-status': 'true' },
    });
    await ctx.raw('CORS preflight', {
      method: 'OPTIONS',
      path: '/users/me',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'x-stack-project-id, x-stack-access-type, content-type',
      },
    });
    await ctx.raw('API root', { method: 'GET', path: '/' });
  },
};

export type { AdminProject };
