import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';

/** A platform authenticator for this page (it belongs to the page's CDP session only). */
async function addAuthenticator(page: Page): Promise<{ setUserVerified(verified: boolean): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    setUserVerified: async (isUserVerified) =>
      void (await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified })),
  };
}

describe('passkeys', () => {
  scenario('5. passkey registration, then passkey sign-in in a fresh session', async (stage) => {
    const context = await stage.newContext();
    const page = await stage.openTab(context);
    const authenticator = await addAuthenticator(page);
    const email = `passkey-${Date.now()}@example.com`;
    await page.evaluate(
      (e) =>
        window.__authbroker.signUpWithPassword({
          email: e,
          password: 'passkey-password',
          verificationCallbackUrl: `${location.origin}/handler/email-verification`,
        }),
      email,
    );
    await page.evaluate(() => window.__authbroker.registerPasskey());
    const registered = await page.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
    expect(registered?.passkeyAuthEnabled).toBe(true);

    await page.evaluate(() => window.__authbroker.signOut());
    expect((await page.evaluate(() => window.__authbroker.status())).session.status).toBe('signed-out');
    const result = await page.evaluate(() => window.__authbroker.signInWithPasskey());
    expect(result).toMatchObject({ status: 'signed-in', isNewUser: false });
    expect((await page.evaluate(() => window.__authbroker.read({ kind: 'currentUser' })))?.primaryEmail).toBe(email);

    // A ceremony the browser refuses is a typed error, not a crash, and signs nobody in.
    await page.evaluate(() => window.__authbroker.signOut());
    await authenticator.setUserVerified(false);
    const refused = await page.evaluate(() =>
      window.__authbroker.signInWithPasskey().then(
        () => null,
        (error: { code?: string; name?: string }) => ({ code: error.code, name: error.name }),
      ),
    );
    expect(refused).toMatchObject({ code: 'PASSKEY_WEBAUTHN_ERROR', name: 'KnownError' });
    expect((await page.evaluate(() => window.__authbroker.status())).session.status).toBe('signed-out');
  });
});
