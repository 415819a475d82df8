/**
 * Known errors carry the service's own sentences (and the details it added), whatever authbroker's catalogue says, so
 * that tests written against the service read the same answers; and the password routes' inputs as the service takes
 * them.
 */
import { describe, expect, it } from 'vitest';
import { api, APP, PASSWORD, signUp } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });

const errorOf = (response: { body: unknown }) => response.body as { code: string; error: string; details?: unknown };

describe('the service’s sentences', () => {
  it('an unknown project', async () => {
    const response = await api(emulator(), 'GET', '/users/me', {
      headers: { 'x-stack-project-id': 'no-such-project' },
    });
    expect(errorOf(response)).toMatchObject({
      code: 'CURRENT_PROJECT_NOT_FOUND',
      error:
        'The current project with ID no-such-project was not found. Please check the value of the x-stack-project-id header.',
    });
  });

  it('an e-mail taken at sign-up, and one taken but not verified at OTP', async () => {
    const em = emulator();
    const user = await signUp(em);
    const again = await api(em, 'POST', '/auth/password/sign-up', {
      body: { email: user.email, password: PASSWORD, verification_callback_url: `${APP}/verify` },
    });
    expect(errorOf(again).error).toBe(`A user with email ${JSON.stringify(user.email)} already exists.`);
    const otp = await api(em, 'POST', '/auth/otp/send-sign-in-code', {
      body: { email: user.email, callback_url: `${APP}/handler/magic-link-callback` },
    });
    expect(errorOf(otp).error).toBe(
      `A user with email ${JSON.stringify(user.email)} already exists but the email is not verified. Please login to your existing account with the method you used to sign up, and then verify your email to sign in with this login method.`,
    );
  });

  it('an anonymous user’s token without the header that allows it', async () => {
    const em = emulator();
    const guest = (await api(em, 'POST', '/auth/anonymous/sign-up', { body: {} })).body as { access_token: string };
    const response = await api(em, 'GET', '/users/me', { accessToken: guest.access_token });
    expect(errorOf(response)).toMatchObject({
      code: 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED',
      error:
        "X-Stack-Access-Token is for an anonymous user, but anonymous users are not enabled. Set the X-Stack-Allow-Anonymous-User header of this request to 'true' to allow anonymous users.",
    });
  });
});

describe('password routes’ inputs', () => {
  it('sign-in refuses an empty e-mail by its schema', async () => {
    const response = await api(emulator(), 'POST', '/auth/password/sign-in', {
      body: { email: '', password: 'some-password' },
    });
    expect(errorOf(response).code).toBe('SCHEMA_ERROR');
    expect(errorOf(response).error).toContain('body.email must not be empty');
  });

  it('sign-up without a verification URL makes the user and sends no e-mail', async () => {
    const response = await api(emulator(), 'POST', '/auth/password/sign-up', {
      body: { email: uniqueEmail('no-mail'), password: PASSWORD },
    });
    expect(response.status).toBe(200);
  });
});
