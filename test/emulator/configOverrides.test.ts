/**
 * The service's config overrides (`/api/latest/internal/config/override/{level}`): written as JSON with dotted keys,
 * merged (PATCH) or replaced (PUT), carried into what the project does, and shown by `GET /internal/config`.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { freshProject, keyHeaders, raw } from './httpSupport.js';

const emulator = useEmulator();

async function adminProject() {
  const em = emulator();
  const { project, adminToken } = await freshProject(em);
  const headers = {
    'x-stack-project-id': project.id,
    'x-stack-access-type': 'admin',
    'x-stack-admin-access-token': adminToken,
  };
  const call = (method: string, path: string, json?: unknown) =>
    raw(em, method, `/api/latest${path}`, { headers, ...(json === undefined ? {} : { json }) });
  return { em, project, headers, call };
}

const override = (config: unknown) => ({ config_override_string: JSON.stringify(config) });

describe('config overrides', () => {
  it('a PATCH of dotted keys answers { success: true } and changes what the project does', async () => {
    const { call } = await adminProject();
    const patched = await call(
      'PATCH',
      '/internal/config/override/environment',
      override({ 'auth.allowSignUp': false }),
    );
    expect({ status: patched.status, body: patched.json() }).toEqual({ status: 200, body: { success: true } });
    const current = await call('GET', '/internal/projects/current');
    expect(current.json<{ config: { sign_up_enabled: boolean } }>().config.sign_up_enabled).toBe(false);
  });

  it('switches a shared OAuth provider on with the new model’s provider object', async () => {
    const { call } = await adminProject();
    await call(
      'PATCH',
      '/internal/config/override/environment',
      override({ 'auth.oauth.providers.spotify': { type: 'spotify', isShared: true, allowSignIn: true } }),
    );
    const current = await call('GET', '/internal/projects/current');
    expect(
      current.json<{ config: { oauth_providers: Array<{ id: string; type: string }> } }>().config.oauth_providers,
    ).toEqual([expect.objectContaining({ id: 'spotify', type: 'shared' })]);
  });

  it('requires publishable keys from the project level', async () => {
    const { em, project, call } = await adminProject();
    await call('PATCH', '/internal/config/override/project', override({ 'project.requirePublishableClientKey': true }));
    const keyless = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: { 'x-stack-project-id': project.id, 'x-stack-access-type': 'client' },
    });
    expect(keyless.headers.get('x-stack-known-error')).toBe('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT');
  });

  it('keeps keys it does not model for GET /internal/config, and merges later writes over earlier ones', async () => {
    const { call } = await adminProject();
    await call('PATCH', '/internal/config/override/branch', override({ 'apps.installed.api-keys': { enabled: true } }));
    await call('PATCH', '/internal/config/override/branch', override({ 'apps.installed.teams.enabled': true }));
    const config = JSON.parse((await call('GET', '/internal/config')).json<{ config_string: string }>().config_string);
    expect(config.apps.installed).toEqual({ 'api-keys': { enabled: true }, teams: { enabled: true } });
  });

  it('refuses what is not JSON, server access to other levels, and a branch PUT without its source', async () => {
    const { em, call } = await adminProject();
    const bad = await call('PATCH', '/internal/config/override/environment', { config_override_string: '{' });
    expect({ status: bad.status, text: bad.text }).toEqual({ status: 400, text: 'Invalid config JSON' });
    const put = await call('PUT', '/internal/config/override/branch', { config_string: '{}' });
    expect({ status: put.status, text: put.text }).toEqual({
      status: 400,
      text: 'source is required for branch level config',
    });
    const server = await raw(em, 'PATCH', '/api/latest/internal/config/override/environment', {
      headers: keyHeaders(em, 'server'),
      json: override({}),
    });
    expect({ status: server.status, text: server.text }).toEqual({
      status: 403,
      text: 'Server access can only manage branch config overrides.',
    });
  });
});
