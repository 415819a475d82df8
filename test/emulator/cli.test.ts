import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { endpoints, refreshAccessToken } from '../../protocol/index.js';
import {
  advanceClock,
  api,
  emulatorNow,
  expectKnownError,
  expectPlainError,
  signUp,
  userTransport,
} from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { tokenOptions } from '../support/oauth.js';

const emulator = useEmulator();

const poll = (polling_code: string) => api(emulator(), 'POST', '/auth/cli/poll', { body: { polling_code } });

describe('CLI login', () => {
  it('start → waiting → complete in the browser → success once → used', async () => {
    const em = emulator();
    const before = await emulatorNow(em);
    const started = await endpoints.startCliLogin(transportFor(em, 'client'));
    expect(started.polling_code).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
    expect(started.login_code).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
    expect(started.login_code).not.toBe(started.polling_code);
    const expiresIn = Date.parse(started.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(2 * 3600 * 1000 - 5000);
    expect(expiresIn).toBeLessThanOrEqual(2 * 3600 * 1000 + 5000);
    expect(started.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const waiting = await poll(started.polling_code);
    expect({ status: waiting.status, body: waiting.body }).toEqual({ status: 200, body: { status: 'waiting' } });

    const user = await signUp(em);
    expect(
      await endpoints.completeCliLogin(userTransport(em, user), {
        login_code: started.login_code,
        refresh_token: user.refresh_token,
      }),
    ).toEqual({ success: true });

    const done = await poll(started.polling_code);
    expect({ status: done.status, body: done.body }).toEqual({
      status: 201,
      body: { status: 'success', refresh_token: user.refresh_token },
    });
    const again = await poll(started.polling_code);
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { status: 'used' } });
    expect((await refreshAccessToken(tokenOptions(em), user.refresh_token)).access_token).toMatch(/^ey/);
  });

  it('the polling binding reads the 201 success', async () => {
    const em = emulator();
    const client = transportFor(em, 'client');
    const user = await signUp(em);
    const started = await endpoints.startCliLogin(client, { expires_in_millis: 60_000 });
    await endpoints.completeCliLogin(client, { login_code: started.login_code, refresh_token: user.refresh_token });
    expect(await endpoints.pollCliLogin(client, started.polling_code)).toEqual({
      status: 'success',
      refresh_token: user.refresh_token,
    });
    expect(await endpoints.pollCliLogin(client, started.polling_code)).toEqual({ status: 'used' });
  });

  it("a CLI's anonymous user: check says so, the browser claims it once, upgrades it and completes", async () => {
    const em = emulator();
    const client = transportFor(em, 'client');
    const guest = await endpoints.signUpAnonymously(client);
    const started = await endpoints.startCliLogin(client, { anon_refresh_token: guest.refresh_token });
    expect(await endpoints.checkCliLogin(client, started.login_code)).toEqual({ cli_session_state: 'anonymous' });

    const claimed = await endpoints.claimCliAnonymousSession(client, started.login_code);
    expect(claimed.refresh_token).toBe(guest.refresh_token);
    expect(decodeJwt(claimed.access_token)).toMatchObject({ sub: guest.user_id, is_anonymous: true });
    // Once: the attempt no longer holds the guest's session.
    expectPlainError(
      await api(em, 'POST', '/auth/cli/complete', {
        body: { login_code: started.login_code, mode: 'claim-anon-session' },
      }),
      400,
      'No anonymous session associated with this code',
    );
    expect(await endpoints.checkCliLogin(client, started.login_code)).toEqual({ cli_session_state: 'none' });

    // Signing up with the guest's token upgrades it: the same user, whose new session the CLI gets.
    const upgraded = await endpoints.signUpWithPassword(
      userTransport(em, { access_token: claimed.access_token }),
      {
        email: `cli-${Date.now()}@example.com`,
        password: 'correct horse battery',
        verification_callback_url: 'http://localhost:5173/handler/email-verification',
      },
      { user: 'optional' },
    );
    expect(upgraded.user_id).toBe(guest.user_id);
    await endpoints.completeCliLogin(client, { login_code: started.login_code, refresh_token: upgraded.refresh_token });
    expect(await endpoints.pollCliLogin(client, started.polling_code)).toEqual({
      status: 'success',
      refresh_token: upgraded.refresh_token,
    });
  });

  it('an anonymous user upgraded since the CLI started is no longer offered', async () => {
    const em = emulator();
    const client = transportFor(em, 'client');
    const guest = await endpoints.signUpAnonymously(client);
    const started = await endpoints.startCliLogin(client, { anon_refresh_token: guest.refresh_token });
    await endpoints.signUpWithPassword(
      userTransport(em, { access_token: guest.access_token }),
      {
        email: `cli-up-${Date.now()}@example.com`,
        password: 'correct horse battery',
        verification_callback_url: 'http://localhost:5173/handler/email-verification',
      },
      { user: 'optional' },
    );
    expect(await endpoints.checkCliLogin(client, started.login_code)).toEqual({ cli_session_state: 'none' });
  });

  it('expires: polling says so and completing is refused', async () => {
    const em = emulator();
    const started = await endpoints.startCliLogin(transportFor(em, 'client'), { expires_in_millis: 60_000 });
    await advanceClock(em, 61_000);
    expect((await poll(started.polling_code)).body).toEqual({ status: 'expired' });
    const late = await api(em, 'POST', '/auth/cli/complete', {
      body: { login_code: started.login_code, refresh_token: 'x' },
    });
    expectPlainError(late, 400, 'Invalid login code or the code has expired');
  });

  it('answers its documented errors', async () => {
    const em = emulator();
    const unknown = await poll('nope');
    expectKnownError(unknown, 'INVALID_POLLING_CODE', 400);
    expect((unknown.body as { error: string }).error).toBe('The polling code is invalid or does not exist.');
    expectPlainError(
      await api(em, 'POST', '/auth/cli/complete', { body: { login_code: 'nope', refresh_token: 'x' } }),
      400,
      'Invalid login code or the code has expired',
    );
    const started = await endpoints.startCliLogin(transportFor(em, 'client'));
    const [first, second] = [await signUp(em), await signUp(em)];
    const complete = (body: Record<string, unknown>) =>
      api(em, 'POST', '/auth/cli/complete', { body: { login_code: started.login_code, ...body } });
    expectPlainError(await complete({}), 400, "refresh_token is required when mode is 'complete'");
    expectPlainError(await complete({ refresh_token: 'not-a-session' }), 400, 'Invalid refresh token');
    expectPlainError(
      await complete({ mode: 'claim-anon-session' }),
      400,
      'No anonymous session associated with this code',
    );
    expectKnownError(await complete({ mode: 'take-it-all' }), 'SCHEMA_ERROR', 400);
    expect((await complete({ refresh_token: first.refresh_token })).status).toBe(200);
    // A login code completes once.
    expectPlainError(
      await complete({ refresh_token: second.refresh_token }),
      400,
      'Invalid login code or the code has expired',
    );
    expectPlainError(await complete({ mode: 'check' }), 400, 'Invalid login code or the code has expired');
    // The anonymous refresh token must be a live anonymous user's of this project.
    const start = (anon_refresh_token: string, project?: 'internal') =>
      api(em, 'POST', '/auth/cli', { project, body: { anon_refresh_token } });
    expectPlainError(await start('nope'), 400, 'Invalid anon refresh token');
    expectPlainError(
      await start(first.refresh_token),
      400,
      'The provided refresh token does not belong to an anonymous user',
    );
    const guest = await endpoints.signUpAnonymously(transportFor(em, 'client'));
    expectPlainError(
      await start(guest.refresh_token, 'internal'),
      400,
      'Anon refresh token does not belong to this project',
    );
    expect((await start(guest.refresh_token)).status).toBe(200);
    expectKnownError(
      await api(em, 'POST', '/auth/cli', { body: { expires_in_millis: 86_400_001 } }),
      'SCHEMA_ERROR',
      400,
    );
    expect((await api(em, 'POST', '/auth/cli')).status).toBe(200);
    expectKnownError(await api(em, 'POST', '/auth/cli', { access: null, body: {} }), 'ACCESS_TYPE_REQUIRED', 400);
    expectKnownError(await api(em, 'POST', '/auth/cli/poll', { body: {} }), 'SCHEMA_ERROR', 400);
    // Codes belong to their project.
    expectKnownError(
      await api(em, 'POST', '/auth/cli/poll', { project: 'internal', body: { polling_code: started.polling_code } }),
      'INVALID_POLLING_CODE',
      400,
    );
  });
});
