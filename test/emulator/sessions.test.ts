import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError, refreshAccessToken } from '../../protocol/index.js';
import {
  advanceClock,
  api,
  expectKnownError,
  expectPlainError,
  PASSWORD,
  signUp,
  userTransport,
} from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { tokenOptions } from '../support/oauth.js';

const emulator = useEmulator();

const sessionIdOf = (accessToken: string) => decodeJwt(accessToken).refresh_token_id as string;
const refresh = (refreshToken: string) => refreshAccessToken(tokenOptions(emulator()), refreshToken);
const refreshFails = (refreshToken: string) =>
  expect(refresh(refreshToken)).rejects.toSatisfy((e) => isKnownError(e, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'));

async function twoSessions() {
  const em = emulator();
  const first = await signUp(em);
  const second = await endpoints.signInWithPassword(transportFor(em, 'client'), {
    email: first.email,
    password: PASSWORD,
  });
  return { first, second };
}

describe('listing and deleting sessions', () => {
  it('lists the user’s sessions newest first, marking the current one', async () => {
    const em = emulator();
    const { first, second } = await twoSessions();
    const sessions = await endpoints.listSessions(userTransport(em, first), 'me');
    expect(sessions.map((s) => s.id)).toEqual([sessionIdOf(second.access_token), sessionIdOf(first.access_token)]);
    expect(sessions.map((s) => s.is_current_session)).toEqual([false, true]);
    expect(sessions[0]).toMatchObject({
      user_id: first.user_id,
      is_impersonation: false,
      created_at: expect.any(Number),
      last_used_at: expect.any(Number),
    });
    expect(await endpoints.listSessions(userTransport(em, first), first.user_id)).toHaveLength(2);
  });

  it('deletes another session (its refresh token stops working) but not the current one', async () => {
    const em = emulator();
    const { first, second } = await twoSessions();
    const asFirst = userTransport(em, first);
    expect(await endpoints.deleteSession(asFirst, sessionIdOf(second.access_token), 'me')).toEqual({ success: true });
    await refreshFails(second.refresh_token);
    const current = await api(em, 'DELETE', `/auth/sessions/${sessionIdOf(first.access_token)}?user_id=me`, {
      accessToken: first.access_token,
    });
    expectKnownError(current, 'CANNOT_DELETE_CURRENT_SESSION', 400);
    expectPlainError(
      await api(em, 'DELETE', `/auth/sessions/${sessionIdOf(second.access_token)}?user_id=me`, {
        accessToken: first.access_token,
      }),
      404,
      'Session not found.',
    );
    expectKnownError(
      await api(em, 'DELETE', `/auth/sessions/${sessionIdOf(first.access_token)}`, { accessToken: first.access_token }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'DELETE', '/auth/sessions/not-a-uuid?user_id=me', { accessToken: first.access_token }),
      'SCHEMA_ERROR',
      400,
    );
  });

  it('clients see and delete only their own sessions', async () => {
    const em = emulator();
    const { first } = await twoSessions();
    const stranger = await signUp(em);
    const listOther = await api(em, 'GET', `/auth/sessions?user_id=${first.user_id}`, {
      accessToken: stranger.access_token,
    });
    expectPlainError(listOther, 403, 'Client can only list sessions for their own user.');
    expectPlainError(
      await api(em, 'DELETE', `/auth/sessions/${sessionIdOf(first.access_token)}?user_id=me`, {
        accessToken: stranger.access_token,
      }),
      404,
      'Session not found.',
    );
    const missing = await api(em, 'GET', '/auth/sessions', { accessToken: first.access_token });
    expectKnownError(missing, 'SCHEMA_ERROR', 400);
    expect((missing.body as { error: string }).error).toContain('query.user_id must be defined');
    expectKnownError(await api(em, 'GET', '/auth/sessions?user_id=me'), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    // Servers may list and delete anyone's.
    const server = transportFor(em, 'server');
    expect(await endpoints.listSessions(server, first.user_id)).toHaveLength(2);
    expect(
      (
        await api(em, 'DELETE', `/auth/sessions/${sessionIdOf(first.access_token)}?user_id=${first.user_id}`, {
          access: 'server',
        })
      ).status,
    ).toBe(200);
  });
});

describe('the current session', () => {
  it('sign-out ends the session; its access token lives on until it expires', async () => {
    const em = emulator();
    const user = await signUp(em);
    const asUser = userTransport(em, user);
    expect(await endpoints.signOutCurrentSession(asUser)).toEqual({ success: true });
    await refreshFails(user.refresh_token);
    expect((await endpoints.getCurrentUser(asUser))?.id).toBe(user.user_id);
    expectKnownError(
      await api(em, 'DELETE', '/auth/sessions/current', { accessToken: user.access_token, body: {} }),
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
      401,
    );
    const anonymous = await api(em, 'DELETE', '/auth/sessions/current', { body: {} });
    expectKnownError(anonymous, 'ACCESS_TOKEN_EXPIRED', 401);
    expect((anonymous.body as { details: { expired_at_millis: number } }).details.expired_at_millis).toEqual(
      expect.any(Number),
    );
  });

  it('refreshes through /auth/sessions/current/refresh with the refresh-token header', async () => {
    const em = emulator();
    const user = await signUp(em);
    const { access_token } = await endpoints.refreshViaSessionEndpoint(userTransport(em, user));
    expect(decodeJwt(access_token)).toMatchObject({
      sub: user.user_id,
      refresh_token_id: sessionIdOf(user.access_token),
    });
    const missing = await api(em, 'POST', '/auth/sessions/current/refresh', { body: {} });
    expectKnownError(missing, 'SCHEMA_ERROR', 400);
    expectKnownError(
      await api(em, 'POST', '/auth/sessions/current/refresh', { refreshToken: 'x'.repeat(45), body: {} }),
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
      401,
    );
    // Another project's refresh token is unknown here.
    const admin = await endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: 'admin@authbroker.dev',
      password: 'admin-password',
    });
    expectKnownError(
      await api(em, 'POST', '/auth/sessions/current/refresh', { refreshToken: admin.refresh_token, body: {} }),
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
      401,
    );
  });
});

describe('creating sessions (server)', () => {
  it('creates a session for a user, with its own lifetime', async () => {
    const em = emulator();
    const user = await signUp(em);
    const server = transportFor(em, 'server');
    const created = await endpoints.createSession(server, { user_id: user.user_id, expires_in_millis: 60_000 });
    expect(Object.keys(created).sort()).toEqual(['access_token', 'refresh_token']);
    expect(decodeJwt(created.access_token).sub).toBe(user.user_id);
    expect((await refresh(created.refresh_token)).access_token).toMatch(/^ey/);
    await advanceClock(em, 61_000);
    await refreshFails(created.refresh_token);
  });

  it('answers its documented errors', async () => {
    const em = emulator();
    const user = await signUp(em);
    const denied = await api(em, 'POST', '/auth/sessions', { body: { user_id: user.user_id } });
    expectKnownError(denied, 'INSUFFICIENT_ACCESS_TYPE', 401);
    expect((denied.body as { details: unknown }).details).toEqual({
      actual_access_type: 'client',
      allowed_access_types: ['server', 'admin'],
    });
    const unknown = await api(em, 'POST', '/auth/sessions', {
      access: 'server',
      body: { user_id: '00000000-0000-4000-8000-000000000000' },
    });
    expectKnownError(unknown, 'USER_ID_DOES_NOT_EXIST', 400);
    expectKnownError(
      await api(em, 'POST', '/auth/sessions', {
        access: 'server',
        body: { user_id: user.user_id, expires_in_millis: 31_708_800_001 },
      }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/sessions', { access: 'server', body: { user_id: 'me' } }),
      'CANNOT_GET_OWN_USER_WITHOUT_USER',
      400,
    );
  });

  it('impersonation sessions are listed only for admin', async () => {
    const em = emulator();
    const user = await signUp(em);
    const impersonation = await endpoints.createSession(transportFor(em, 'server'), {
      user_id: user.user_id,
      is_impersonation: true,
    });
    const id = sessionIdOf(impersonation.access_token);
    const ids = async (access: 'client' | 'server' | 'admin') =>
      (
        await endpoints.listSessions(
          access === 'client' ? userTransport(em, user) : transportFor(em, access),
          user.user_id,
        )
      ).map((s) => s.id);
    expect(await ids('client')).not.toContain(id);
    expect(await ids('server')).not.toContain(id);
    expect(await ids('admin')).toContain(id);
    const listed = (await endpoints.listSessions(transportFor(em, 'admin'), user.user_id)).find((s) => s.id === id);
    expect(listed?.is_impersonation).toBe(true);
  });
});
