/**
 * Users' and teams' own API keys (`/user-api-keys`, `/team-api-keys`), as the service serves them: the project's
 * switches, the whole key shown once and in the service's format, the client's limits (its own user; a team where it
 * holds `$manage_api_keys`), revocation and the server's check.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { api, demoProject, expectKnownError, expectPlainError, signUp, withDemoConfig } from '../support/authFlows.js';
import { useEmulator } from '../support/emulator.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });
const both = { allow_user_api_keys: true, allow_team_api_keys: true };
const HOUR = 3600 * 1000;

type Key = Record<string, unknown> & { id: string; value: unknown };

async function createUserKey(em: RunningEmulator, accessToken: string, body: Record<string, unknown> = {}) {
  return api(em, 'POST', '/user-api-keys', {
    accessToken,
    body: { user_id: 'me', description: 'mine', expires_at_millis: null, ...body },
  });
}

async function newTeam(em: RunningEmulator, creatorId: string): Promise<string> {
  const response = await api(em, 'POST', '/teams', {
    access: 'server',
    body: { display_name: 'Keys team', creator_user_id: creatorId },
  });
  return (response.body as { id: string }).id;
}

describe('user API keys', () => {
  it('are refused with a plain 400 while the project has them off', async () => {
    const em = emulator();
    const user = await signUp(em);
    expectPlainError(
      await createUserKey(em, user.access_token),
      400,
      'User API keys are not enabled for this project.',
    );
    expectPlainError(
      await api(em, 'GET', '/user-api-keys?user_id=me', { accessToken: user.access_token }),
      400,
      'User API keys are not enabled for this project.',
    );
  });

  it('shows the whole key once, in the service format, and its last four after', () =>
    withDemoConfig(emulator(), both, async () => {
      const em = emulator();
      const user = await signUp(em);
      const created = await createUserKey(em, user.access_token, { is_public: true });
      expect(created.status).toBe(200);
      const key = created.body as Key;
      expect(key).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        description: 'mine',
        is_public: true,
        created_at_millis: expect.any(Number),
        type: 'user',
        user_id: user.user_id,
        value: expect.any(String),
      });
      const secret = key.value as string;
      const match = /^pk_[0-9a-z]{45}([0-9a-f]{32})user3574ck4u7h([0-9a-f]{8})$/.exec(secret);
      expect(match?.[1]).toBe(key.id.replace(/-/g, ''));
      expect(match?.[2]).toBe(crc32(secret.slice(0, -8)).toString(16).padStart(8, '0'));
      // Only a hash is kept.
      expect(JSON.stringify(demoProject(em))).not.toContain(secret);

      const read = await api(em, 'GET', `/user-api-keys/${key.id}`, { accessToken: user.access_token });
      expect(read.body).toEqual({ ...key, value: { last_four: secret.slice(-4) } });
    }));

  it('lists an owner’s keys newest first; the server must name the owner', () =>
    withDemoConfig(emulator(), both, async () => {
      const em = emulator();
      const user = await signUp(em);
      await createUserKey(em, user.access_token, { description: 'first' });
      await createUserKey(em, user.access_token, { description: 'second', expires_at_millis: Date.now() + HOUR });
      const list = await api(em, 'GET', `/user-api-keys?user_id=${user.user_id}`, { accessToken: user.access_token });
      const items = (list.body as { items: Key[]; is_paginated: boolean }).items;
      expect(items.map((k) => k.description)).toEqual(['second', 'first']);
      expect(items[1]).not.toHaveProperty('expires_at_millis');
      const unnamed = await api(em, 'GET', '/user-api-keys', { access: 'server' });
      expectKnownError(unnamed, 'SCHEMA_ERROR', 400);
      expect(unnamed.body).toMatchObject({ error: 'user_id is required for user API keys' });
    }));

  it('a client manages only its own keys; the server anyone’s', () =>
    withDemoConfig(emulator(), both, async () => {
      const em = emulator();
      const owner = await signUp(em);
      const other = await signUp(em);
      const created = (await createUserKey(em, owner.access_token)).body as Key;
      const refusal = 'Client can only manage their own api keys';
      expectPlainError(await createUserKey(em, other.access_token, { user_id: owner.user_id }), 403, refusal);
      expectPlainError(
        await api(em, 'GET', `/user-api-keys?user_id=${owner.user_id}`, { accessToken: other.access_token }),
        403,
        refusal,
      );
      expectPlainError(
        await api(em, 'PATCH', `/user-api-keys/${created.id}`, {
          accessToken: other.access_token,
          body: { revoked: true },
        }),
        403,
        refusal,
      );
      const byServer = await api(em, 'POST', '/user-api-keys', {
        access: 'server',
        body: { user_id: owner.user_id, description: 'from the server', expires_at_millis: null },
      });
      expect(byServer.status).toBe(200);
      const me = await api(em, 'POST', '/user-api-keys', {
        access: 'server',
        body: { user_id: 'me', description: 'x', expires_at_millis: null },
      });
      expectKnownError(me, 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    }));

  it('check: the key, or why not (revoked once, expired, of the other type, unknown)', () =>
    withDemoConfig(emulator(), both, async () => {
      const em = emulator();
      const user = await signUp(em);
      const live = (await createUserKey(em, user.access_token)).body as Key;
      const expired = (await createUserKey(em, user.access_token, { expires_at_millis: Date.now() - HOUR }))
        .body as Key;
      const check = (api_key: unknown, type = 'user') =>
        api(em, 'POST', `/${type}-api-keys/check`, { access: 'server', body: { api_key } });

      const ok = await check(live.value);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ id: live.id, value: { last_four: (live.value as string).slice(-4) } });
      expectKnownError(await check(expired.value), 'API_KEY_EXPIRED', 401);
      expectKnownError(await check('sk_this_is_a_fake_api_key_123456789'), 'API_KEY_NOT_FOUND', 404);
      const wrongType = await check(live.value, 'team');
      expectKnownError(wrongType, 'WRONG_API_KEY_TYPE', 400);
      expect(wrongType.body).toEqual({
        code: 'WRONG_API_KEY_TYPE',
        details: { expected_type: 'team', actual_type: 'user' },
        error: 'This endpoint is for team API keys, but a user API key was provided.',
      });
      expectKnownError(
        await api(em, 'POST', '/user-api-keys/check', { accessToken: user.access_token, body: { api_key: 'x' } }),
        'INSUFFICIENT_ACCESS_TYPE',
        401,
      );

      const revoke = () =>
        api(em, 'PATCH', `/user-api-keys/${live.id}?user_id=me`, {
          accessToken: user.access_token,
          body: { revoked: true },
        });
      const first = (await revoke()).body as { manually_revoked_at_millis: number };
      expect(first.manually_revoked_at_millis).toEqual(expect.any(Number));
      expect(((await revoke()).body as typeof first).manually_revoked_at_millis).toBe(first.manually_revoked_at_millis);
      expect((await check(live.value)).body).toEqual({ code: 'API_KEY_REVOKED', error: 'API key has been revoked.' });
      expectKnownError(
        await api(em, 'PATCH', `/user-api-keys/${live.id}`, {
          accessToken: user.access_token,
          body: { user_id: user.user_id },
        }),
        'SCHEMA_ERROR',
        400,
      );
    }));
});

describe('team API keys', () => {
  it('a client needs the team’s $manage_api_keys (team_admin holds it); without it the key "is not found"', () =>
    withDemoConfig(emulator(), both, async () => {
      const em = emulator();
      const creator = await signUp(em);
      const outsider = await signUp(em);
      const teamId = await newTeam(em, creator.user_id);
      const body = { team_id: teamId, description: 'team key', expires_at_millis: null };
      const created = await api(em, 'POST', '/team-api-keys', { accessToken: creator.access_token, body });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({
        type: 'team',
        team_id: teamId,
        value: expect.stringMatching(/^sk_.*team1/),
      });
      const listed = await api(em, 'GET', `/team-api-keys?team_id=${teamId}`, { accessToken: creator.access_token });
      expect((listed.body as { items: unknown[] }).items).toHaveLength(1);
      expectKnownError(
        await api(em, 'POST', '/team-api-keys', { accessToken: outsider.access_token, body }),
        'API_KEY_NOT_FOUND',
        404,
      );
    }));

  it('only the team switch counts for team keys', () =>
    withDemoConfig(emulator(), { allow_user_api_keys: false, allow_team_api_keys: true }, async () => {
      const em = emulator();
      const creator = await signUp(em);
      const teamId = await newTeam(em, creator.user_id);
      const created = await api(em, 'POST', '/team-api-keys', {
        accessToken: creator.access_token,
        body: { team_id: teamId, description: 'ok', expires_at_millis: null },
      });
      expect(created.status).toBe(200);
    }));
});
