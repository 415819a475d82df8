import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  byTestId,
  focus,
  signInWithPasswordUi,
  signOutUi,
  T,
  until,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
  waitForVisible,
} from '../../e2e/support/ui.js';
import { realScenario, type RealStage } from './support/realStage.js';

/**
 * authbroker's own flows in Chromium against the real Stack Auth backend: the demo app on its own
 * origin, its SharedWorker broker, the backend the lane started (tokens of 60 s there, its
 * development default), e-mail through the lane's mail sink.
 */
const PASSWORD = 'Real-backend-passw0rd!';

function email(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** A user with a password, made by the app's server (a secret key), as an admin would. */
async function userWithPassword(stage: RealStage, prefix: string): Promise<{ email: string; password: string }> {
  const address = email(prefix);
  await stage.server('POST', '/users', {
    primary_email: address,
    primary_email_auth_enabled: true,
    primary_email_verified: true,
    password: PASSWORD,
  });
  return { email: address, password: PASSWORD };
}

async function signedInTabs(stage: RealStage, count: number): Promise<{ pages: Page[]; email: string }> {
  const person = await userWithPassword(stage, 'tabs');
  const context = await stage.newContext();
  const pages: Page[] = [];
  for (let i = 0; i < count; i++) pages.push(await stage.openTab(context));
  await signInWithPasswordUi(pages[0]!, person);
  for (const page of pages) await waitForSignedIn(page, person.email, 30_000);
  return { pages, email: person.email };
}

describe('authbroker against the real backend, in Chromium', () => {
  realScenario(
    'password: a wrong password is the known error in our words; the right one signs in every tab',
    async (stage) => {
      const person = await userWithPassword(stage, 'password');
      const context = await stage.newContext();
      const first = await stage.openTab(context);
      const second = await stage.openTab(context);
      await signInWithPasswordUi(first, { email: person.email, password: 'not-the-password-1' });
      await waitForVisible(first, T.formError, 30_000);
      expect((await byTestId(first, T.formError).innerText()).trim()).toMatch(/e-mail and password do not match/i);
      const refused = await first.evaluate(
        (p) =>
          window.__authbroker.signInWithPassword(p).then(
            () => null,
            (e: { code?: string }) => e.code ?? null,
          ),
        { email: person.email, password: 'not-the-password-1' },
      );
      expect(refused).toBe('EMAIL_PASSWORD_MISMATCH');

      await byTestId(first, T.signInPassword).fill(person.password);
      await byTestId(first, T.signInSubmit).click();
      for (const page of [first, second]) await waitForSignedIn(page, person.email, 30_000);
      const user = await second.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
      // Today's user fields reach the tab, camelCased: a password user is no guest.
      expect(user).toMatchObject({
        primaryEmail: person.email,
        hasPassword: true,
        isAnonymous: false,
        isRestricted: false,
        restrictedReason: null,
      });
    },
  );

  realScenario(
    'OTP: the code from the e-mail (through the mail sink) typed into the sign-in page signs a new account in',
    async (stage) => {
      const address = email('otp');
      const context = await stage.newContext();
      const page = await stage.openTab(context, '/handler/sign-in');
      await focus(page);
      await byTestId(page, T.signInTabMagicLink).click();
      await byTestId(page, T.magicLinkEmail).fill(address);
      await byTestId(page, T.magicLinkSend).click();
      await waitForVisible(page, T.otpInput, 30_000);
      const mail = await stage.target.waitForMail(address, /code|sign in/i, 60_000);
      const code = /\b([A-Z0-9]{6})\b/.exec(mail.subject)?.[1] ?? /\b([A-Z0-9]{6})\b/.exec(mail.text)?.[1];
      expect(code, `a 6-character code in "${mail.subject}"`).toBeDefined();
      await byTestId(page, T.otpInput).fill(code!);
      await byTestId(page, T.otpSubmit).click();
      await waitForSignedIn(page, address, 30_000);
      const user = await page.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
      expect(user).toMatchObject({ primaryEmail: address, primaryEmailVerified: true, otpAuthEnabled: true });
    },
  );

  realScenario('teams: a team created in one tab is shown in another', async (stage) => {
    const { pages } = await signedInTabs(stage, 2);
    const [first, second] = pages as [Page, Page];
    await focus(first);
    await byTestId(first, T.navTeams).click();
    const name = `Real team ${Date.now().toString(36)}`;
    await byTestId(first, T.teamCreateName).fill(name);
    await byTestId(first, T.teamCreateSubmit).click();
    await waitForText(first, T.teamName, name, 30_000);
    const teams = await second.evaluate(() => window.__authbroker.read({ kind: 'teams' }));
    expect((teams as Array<{ displayName: string }>).map((t) => t.displayName)).toContain(name);
    await second.goto(first.url());
    await waitForText(second, T.teamName, name, 30_000);
  });

  realScenario('sign-out in one tab signs every tab out, and the service ended the session', async (stage) => {
    const { pages } = await signedInTabs(stage, 3);
    const refreshBefore = await pages[1]!.evaluate(() => window.__authbroker.getAccessToken());
    expect(refreshBefore).not.toBeNull();
    await signOutUi(pages[0]!);
    for (const page of pages) await waitForSignedOut(page, 30_000);
    expect(await pages[2]!.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }))).toBeNull();
  });

  realScenario(
    'renewal: after the real access token expires, every tab reads again with a new one',
    async (stage) => {
      const { pages, email: address } = await signedInTabs(stage, 2);
      const first = await pages[0]!.evaluate(() => window.__authbroker.getAccessToken());
      const expiresAt = decodeJwt(first!).exp! * 1000;
      const lifetime = expiresAt - decodeJwt(first!).iat! * 1000;
      // The backend's clock cannot be moved: the flow waits out the token's real lifetime (60 s here).
      expect(lifetime).toBeLessThanOrEqual(10 * 60_000);
      const before = (await pages[1]!.evaluate(() => window.__authbroker.status())).tokenRefreshes;
      await until(
        'the first access token has expired',
        async () => Date.now(),
        (now) => now > expiresAt + 1000,
        lifetime + 30_000,
      );
      for (const page of pages) {
        await page.evaluate(() => window.__authbroker.refetch({ kind: 'currentUser' }));
        const user = await page.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
        expect(user?.primaryEmail).toBe(address);
      }
      const after = await pages[1]!.evaluate(() => window.__authbroker.getAccessToken());
      expect(after).not.toBe(first);
      expect(decodeJwt(after!).exp! * 1000).toBeGreaterThan(Date.now());
      expect((await pages[1]!.evaluate(() => window.__authbroker.status())).tokenRefreshes).toBeGreaterThan(before);
      await waitForSignedIn(pages[0]!, address);
    },
    400_000,
  );
});

declare global {
  interface Window {
    __authbroker: import('../../../client/index.js').BrokerClient;
  }
}
