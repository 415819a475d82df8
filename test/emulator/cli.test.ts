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
    const started = await endpoints.startCliLogin(client, { expires_in_millis: 60_000 });
    await endpoints.completeCliLogin(client, { login_code: started.login_code, refresh_token: 'handed-over-token' });
    expect(await endpoints.pollCliLogin(client, started.polling_code)).toEqual({
      status: 'success',
      refresh_token: 'handed-over-token',
    });
    expect(await endpoints.pollCliLogin(client, started.polling_code)).toEqual({ status: 'used' });
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
    await api(em, 'POST', '/auth/cli/complete', { body: { login_code: started.login_code, refresh_token: 'first' } });
    // A login code completes once.
    expectPlainError(
      await api(em, 'POST', '/auth/cli/complete', {
        body: { login_code: started.login_code, refresh_token: 'second' },
      }),
      400,
      'Invalid login code or the code has expired',
    );
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
