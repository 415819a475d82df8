/**
 * The bot-challenge fields the service takes on sign-up, OTP and OAuth authorize (Cloudflare Turnstile). The emulator
 * has bot challenges off, as the service in development does: the fields are accepted and change nothing.
 */
import { describe, expect, it } from 'vitest';
import { api, APP, expectKnownError, PASSWORD } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { authorizeUrl } from '../support/oauth.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });

const challenge = {
  bot_challenge_token: 'mock-turnstile-ok:sign_up_with_credential',
  bot_challenge_phase: 'invisible',
};

describe('bot challenges (off, as in development)', () => {
  it('password sign-up takes a token and a phase', async () => {
    const response = await api(emulator(), 'POST', '/auth/password/sign-up', {
      body: {
        email: uniqueEmail('bot'),
        password: PASSWORD,
        verification_callback_url: `${APP}/handler/email-verification`,
        ...challenge,
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toHaveProperty('user_id');
  });

  it('OTP takes a token, and a challenge the browser could not show', async () => {
    for (const fields of [challenge, { bot_challenge_unavailable: 'true' }]) {
      const response = await api(emulator(), 'POST', '/auth/otp/send-sign-in-code', {
        body: { email: uniqueEmail('bot'), callback_url: `${APP}/handler/magic-link-callback`, ...fields },
      });
      expect(response.status).toBe(200);
    }
  });

  it('OAuth authorize takes a token in its query', async () => {
    const { url } = await authorizeUrl(emulator());
    const withToken = new URL(url);
    withToken.searchParams.set('bot_challenge_token', 'mock-turnstile-ok:oauth_authenticate');
    withToken.searchParams.set('bot_challenge_phase', 'visible');
    const response = await fetch(withToken, { redirect: 'manual' });
    expect(response.status).toBe(307);
  });

  it('still checks the fields it takes: a phase other than invisible or visible is a schema error', async () => {
    const response = await api(emulator(), 'POST', '/auth/otp/send-sign-in-code', {
      body: { email: uniqueEmail('bot'), callback_url: `${APP}/handler/magic-link-callback`, bot_challenge_phase: 'x' },
    });
    expectKnownError(response, 'SCHEMA_ERROR', 400);
  });
});
