import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

describe('emulator slice', () => {
  it('signs up, reads the user, refreshes and signs out', async () => {
    const em = emulator();
    const client = transportFor(em, 'client');
    const email = uniqueEmail();
    const signedUp = await endpoints.signUpWithPassword(client, {
      email,
      password: 'correct horse',
      verification_callback_url: 'http://localhost:5173/handler/email-verification',
    });
    expect(signedUp.refresh_token).toHaveLength(45);
    const asUser = transportFor(em, 'client', { accessToken: signedUp.access_token });
    const me = await endpoints.getCurrentUser(asUser);
    expect(me?.primary_email).toBe(email);
    expect(me?.primary_email_verified).toBe(false);
    expect(em.env.mailbox.list(email)).toHaveLength(1);
    const refreshed = await refreshAccessToken(
      { baseUrl: em.url, projectId: em.projects.demo.id, publishableClientKey: em.projects.demo.publishableClientKey },
      signedUp.refresh_token,
    );
    expect(refreshed.access_token).toMatch(/^ey/);
    await endpoints.signOutCurrentSession(asUser);
    await expect(
      refreshAccessToken(
        {
          baseUrl: em.url,
          projectId: em.projects.demo.id,
          publishableClientKey: em.projects.demo.publishableClientKey,
        },
        signedUp.refresh_token,
      ),
    ).rejects.toSatisfy((e) => isKnownError(e, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'));
    expect(await endpoints.getCurrentUser(client)).toBeNull();
  });

  it('refuses a wrong password with the known error', async () => {
    const em = emulator();
    await expect(
      endpoints.signInWithPassword(transportFor(em, 'client'), { email: 'demo@authbroker.dev', password: 'nope nope' }),
    ).rejects.toSatisfy((e) => isKnownError(e, 'EMAIL_PASSWORD_MISMATCH'));
  });
});
