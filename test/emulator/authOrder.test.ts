import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { deleteUser } from '../../emulator/state/users.js';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw, type RawResponse } from './httpSupport.js';

const emulator = useEmulator({ accessTokenTtlMillis: 60_000 });
const CURRENT = '/api/v1/projects/current';
/** The admin view of the project, where the service serves it now. */
const ADMIN_CURRENT = '/api/v1/internal/projects/current';

function expectKnown(response: RawResponse, status: number, code: string, details?: Record<string, unknown>): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('x-stack-known-error')).toBe(code);
  const body = response.json<{ code: string; details?: unknown }>();
  expect(body.code).toBe(code);
  if (details === undefined) expect(body).not.toHaveProperty('details');
  else expect(body.details).toEqual(details);
}

async function signUp(em: ReturnType<typeof emulator>, project: 'demo' | 'internal' = 'demo') {
  return endpoints.signUpWithPassword(transportFor(em, 'client', { project }), {
    email: uniqueEmail('order'),
    password: 'correct horse',
    verification_callback_url: 'http://localhost:3000/v',
  });
}

describe('§1.4 step 1: the access token, checked first whenever a project id is present', () => {
  it('refuses an unparsable token even without an access type or with an invalid one', async () => {
    const em = emulator();
    const project = em.projects.demo.id;
    expectKnown(
      await raw(em, 'GET', CURRENT, { headers: { 'x-stack-project-id': project, 'x-stack-access-token': 'garbage' } }),
      401,
      'UNPARSABLE_ACCESS_TOKEN',
    );
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: { 'x-stack-project-id': project, 'x-stack-access-token': 'a.b.c', 'x-stack-access-type': 'superuser' },
      }),
      401,
      'UNPARSABLE_ACCESS_TOKEN',
    );
    // Without a project id the token is not looked at.
    expectKnown(
      await raw(em, 'GET', CURRENT, { headers: { 'x-stack-access-token': 'garbage' } }),
      400,
      'ACCESS_TYPE_REQUIRED',
    );
  });

  it('refuses a token of another project with INVALID_PROJECT_FOR_ACCESS_TOKEN', async () => {
    const em = emulator();
    const internalUser = await signUp(em, 'internal');
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: { ...keyHeaders(em, 'client'), 'x-stack-access-token': internalUser.access_token },
      }),
      401,
      'INVALID_PROJECT_FOR_ACCESS_TOKEN',
    );
  });

  it('lets a valid token of a deleted user through with no user', async () => {
    const em = emulator();
    const user = await signUp(em);
    deleteUser(em.env.store.project(em.projects.demo.id)!, user.user_id);
    const headers = { ...keyHeaders(em, 'client'), 'x-stack-access-token': user.access_token };
    expect((await raw(em, 'GET', '/api/v1', { headers })).text.endsWith('  User: None')).toBe(true);
    expectKnown(
      await raw(em, 'GET', '/api/v1/auth/sessions?user_id=me', { headers }),
      400,
      'CANNOT_GET_OWN_USER_WITHOUT_USER',
    );
  });

  it('keeps access tokens valid after sign-out until they expire', async () => {
    const em = emulator();
    const user = await signUp(em);
    const headers = { ...keyHeaders(em, 'client'), 'x-stack-access-token': user.access_token };
    expect((await raw(em, 'DELETE', '/api/v1/auth/sessions/current', { headers, json: {} })).status).toBe(200);
    const after = await raw(em, 'GET', '/api/v1', { headers });
    expect(after.status).toBe(200);
    expect(after.text).toMatch(/ {2}User: order-.*@example\.com$/);
    const refresh = await raw(em, 'POST', '/api/v1/auth/sessions/current/refresh', {
      headers: { ...headers, 'x-stack-refresh-token': user.refresh_token },
      json: {},
    });
    expectKnown(refresh, 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  });
});

describe('§1.4 steps 2–5: access type and project id', () => {
  it('refuses keys or an admin token without an access type', async () => {
    const em = emulator();
    const project = em.projects.demo.id;
    for (const header of [
      'x-stack-publishable-client-key',
      'x-stack-secret-server-key',
      'x-stack-super-secret-admin-key',
      'x-stack-admin-access-token',
    ]) {
      expectKnown(
        await raw(em, 'GET', CURRENT, { headers: { 'x-stack-project-id': project, [header]: 'anything' } }),
        400,
        'PROJECT_KEY_WITHOUT_ACCESS_TYPE',
      );
    }
  });

  it('treats no access type as unauthenticated: ACCESS_TYPE_REQUIRED where auth is needed', async () => {
    const em = emulator();
    expectKnown(
      await raw(em, 'GET', CURRENT, { headers: { 'x-stack-project-id': em.projects.demo.id } }),
      400,
      'ACCESS_TYPE_REQUIRED',
    );
    expect((await raw(em, 'GET', '/api/v1', { headers: { 'x-stack-project-id': em.projects.demo.id } })).status).toBe(
      200,
    );
  });

  it('refuses an unknown access type, then a missing project id', async () => {
    const em = emulator();
    const invalid = await raw(em, 'GET', CURRENT, { headers: { 'x-stack-access-type': 'superuser' } });
    expectKnown(invalid, 400, 'INVALID_ACCESS_TYPE');
    expect(invalid.json<{ error: string }>().error).toBe(
      "The x-stack-access-type header must be 'client', 'server', or 'admin', but was 'superuser'.",
    );
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: { 'x-stack-access-type': 'server', 'x-stack-secret-server-key': em.projects.demo.secretServerKey },
      }),
      400,
      'ACCESS_TYPE_WITHOUT_PROJECT_ID',
      {
        request_type: 'server',
      },
    );
  });
});

describe('§1.4 steps 6–9: credentials', () => {
  it('accepts the development override key for any project and access type', async () => {
    const em = emulator();
    const headers = {
      'x-stack-project-id': em.projects.demo.id,
      'x-stack-access-type': 'admin',
      'x-stack-development-override-key': em.projects.internal.superSecretAdminKey,
    };
    const ok = await raw(em, 'GET', ADMIN_CURRENT, { headers });
    expect(ok.status).toBe(200);
    expect(ok.json()).toHaveProperty('config.oauth_providers');
    const wrong = await raw(em, 'GET', ADMIN_CURRENT, {
      headers: { ...headers, 'x-stack-development-override-key': em.projects.demo.superSecretAdminKey },
    });
    expect([wrong.status, wrong.text, wrong.headers.get('x-stack-known-error')]).toEqual([
      401,
      'Invalid development key override',
      null,
    ]);
  });

  it('requires the key of the access type (client access only where the project says so); an empty one counts as none; others are ignored', async () => {
    const em = emulator();
    const demo = em.projects.demo;
    const base = { 'x-stack-project-id': demo.id };
    // Client access without a publishable key is allowed unless the project requires one (the service since v2.7).
    const keyless = { ...base, 'x-stack-access-type': 'client', 'x-stack-secret-server-key': demo.secretServerKey };
    expect((await raw(em, 'GET', CURRENT, { headers: keyless })).status).toBe(200);
    const config = em.env.store.project(demo.id)!.config;
    config.require_publishable_client_key = true;
    try {
      expectKnown(
        await raw(em, 'GET', CURRENT, { headers: keyless }),
        401,
        'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT',
        { project_id: demo.id },
      );
      expectKnown(
        await raw(em, 'GET', CURRENT, { headers: { ...keyless, 'x-stack-publishable-client-key': '' } }),
        401,
        'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT',
        { project_id: demo.id },
      );
    } finally {
      config.require_publishable_client_key = false;
    }
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: { ...base, 'x-stack-access-type': 'server', 'x-stack-secret-server-key': '' },
      }),
      401,
      'SERVER_AUTHENTICATION_REQUIRED',
    );
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: {
          ...base,
          'x-stack-access-type': 'server',
          'x-stack-publishable-client-key': demo.publishableClientKey,
        },
      }),
      401,
      'SERVER_AUTHENTICATION_REQUIRED',
    );
    expectKnown(
      await raw(em, 'GET', CURRENT, {
        headers: { ...base, 'x-stack-access-type': 'admin', 'x-stack-secret-server-key': demo.secretServerKey },
      }),
      401,
      'ADMIN_AUTHENTICATION_REQUIRED',
    );
  });

  it('refuses wrong keys with details.project_id; an unknown project is CURRENT_PROJECT_NOT_FOUND whatever the key', async () => {
    const em = emulator();
    const demo = em.projects.demo;
    const cases = [
      ['client', 'x-stack-publishable-client-key', demo.secretServerKey, 'INVALID_PUBLISHABLE_CLIENT_KEY'],
      ['server', 'x-stack-secret-server-key', demo.publishableClientKey, 'INVALID_SECRET_SERVER_KEY'],
      [
        'admin',
        'x-stack-super-secret-admin-key',
        em.projects.internal.superSecretAdminKey,
        'INVALID_SUPER_SECRET_ADMIN_KEY',
      ],
    ] as const;
    for (const [type, header, key, code] of cases) {
      expectKnown(
        await raw(em, 'GET', CURRENT, {
          headers: { 'x-stack-project-id': demo.id, 'x-stack-access-type': type, [header]: key },
        }),
        401,
        code,
        { project_id: demo.id },
      );
    }
    const ghost = crypto.randomUUID();
    for (const [type, header, key] of cases) {
      expectKnown(
        await raw(em, 'GET', CURRENT, {
          headers: { 'x-stack-project-id': ghost, 'x-stack-access-type': type, [header]: key },
        }),
        400,
        'CURRENT_PROJECT_NOT_FOUND',
        { project_id: ghost },
      );
    }
  });
});

describe('endpoint-level access checks', () => {
  it('answers INSUFFICIENT_ACCESS_TYPE with the allowed types and message', async () => {
    const em = emulator();
    const sessions = await raw(em, 'POST', '/api/v1/auth/sessions', {
      headers: keyHeaders(em, 'client'),
      json: { user_id: crypto.randomUUID() },
    });
    expectKnown(sessions, 401, 'INSUFFICIENT_ACCESS_TYPE', {
      actual_access_type: 'client',
      allowed_access_types: ['server', 'admin'],
    });
    expect(sessions.json<{ error: string }>().error).toBe(
      "The x-stack-access-type header must be 'server' or 'admin', but was 'client'.",
    );
    expectKnown(
      await raw(em, 'PATCH', ADMIN_CURRENT, { headers: keyHeaders(em, 'server'), json: {} }),
      401,
      'INSUFFICIENT_ACCESS_TYPE',
      {
        actual_access_type: 'server',
        allowed_access_types: ['admin'],
      },
    );
  });

  it('checks authentication before the body', async () => {
    const em = emulator();
    const response = await raw(em, 'PATCH', ADMIN_CURRENT, {
      headers: { ...keyHeaders(em, 'admin'), 'x-stack-super-secret-admin-key': 'sak_wrong' },
      json: { bogus: 1 },
    });
    expectKnown(response, 401, 'INVALID_SUPER_SECRET_ADMIN_KEY', { project_id: em.projects.demo.id });
  });
});

describe('expiry (moves the clock; keep last)', () => {
  it('answers ACCESS_TOKEN_EXPIRED with the token exp, before any access-type check', async () => {
    const em = emulator();
    const user = await signUp(em);
    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: 61_000 } });
    const response = await raw(em, 'GET', CURRENT, {
      headers: {
        'x-stack-project-id': em.projects.demo.id,
        'x-stack-access-token': user.access_token,
        'x-stack-access-type': 'bogus',
      },
    });
    expectKnown(response, 401, 'ACCESS_TOKEN_EXPIRED', {
      expired_at_millis: (decodeJwt(user.access_token).exp ?? 0) * 1000,
    });
    expect(response.json<{ error: string }>().error).toContain(
      'Access token has expired. Please refresh it and try again.',
    );
  });
});
