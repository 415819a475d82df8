import { Secret, TOTP } from 'otpauth';
import { describe, expect } from 'vitest';
import { accountNav, accountSection } from './support/ids.js';
import { scenario, type Stage } from './support/scenario.js';
import {
  byTestId,
  D,
  DEMO,
  focus,
  personContext,
  serverApi,
  signInWithPasswordUi,
  signOutUi,
  T,
  until,
  waitForAttribute,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
  waitForVisible,
} from './support/ui.js';

/**
 * What the person's authenticator app shows at `timestamp` (computed here, independently of the demo and the emulator).
 */
function authenticatorCode(base32Secret: string, timestamp: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(base32Secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp,
  });
}

/**
 * The service accepts only the current 30-second period (no drift window). Moves the emulator's
 * clock to 2 s into a fresh period and returns that time, so a code computed for it stays good for
 * the next steps (no waiting).
 */
function freshPeriod(stage: Stage): number {
  const { clock } = stage.emulator.env;
  clock.advance(30_000 - (clock.now() % 30_000) + 2_000);
  return clock.now();
}

describe('two-factor authentication', () => {
  scenario(
    '8. enrol TOTP in account settings, sign out, sign in with the password → challenge → the code → signed in',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      await signInWithPasswordUi(page, DEMO);
      await waitForSignedIn(page, DEMO.email);

      // Account settings → Two-factor.
      await focus(page);
      await byTestId(page, T.navAccount).click();
      await byTestId(page, accountNav('mfa')).click();
      await waitForVisible(page, accountSection('mfa'));
      await waitForAttribute(page, T.mfaStatus, 'data-state', 'off');
      await byTestId(page, T.mfaSetupStart).click();
      await waitForVisible(page, T.mfaQr);

      // The key as the page shows it (for people: groups of four; for machines: data-secret).
      const secretElement = byTestId(page, T.mfaSecret);
      const secret = (await secretElement.getAttribute('data-secret')) ?? '';
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect((await secretElement.innerText()).replace(/\s+/g, '')).toBe(secret);
      // The setup link carries the same key.
      expect(await byTestId(page, T.mfaUri).textContent()).toContain(`secret=${secret}`);

      // A wrong code is refused on the page, before anything is saved.
      const good = authenticatorCode(secret, Date.now());
      await byTestId(page, T.mfaSetupCode).fill(good === '000000' ? '111111' : '000000');
      await byTestId(page, T.mfaSetupEnable).click();
      await page.getByText('That code does not match.', { exact: false }).waitFor();
      await waitForAttribute(page, T.mfaStatus, 'data-state', 'off');

      // The code the authenticator app shows now (the page checks it against the browser's clock).
      await byTestId(page, T.mfaSetupCode).fill(authenticatorCode(secret, Date.now()));
      await byTestId(page, T.mfaSetupEnable).click();
      await waitForAttribute(page, T.mfaStatus, 'data-state', 'on');
      await waitForText(page, T.formSuccess, /Two-factor authentication is on/);
      // The service knows too.
      const { items } = await serverApi<{ items: Array<{ primary_email: string | null; requires_totp_mfa: boolean }> }>(
        stage,
        'GET',
        '/users?limit=100',
      );
      expect(items.find((u) => u.primary_email === DEMO.email)?.requires_totp_mfa).toBe(true);

      await signOutUi(page);
      await waitForSignedOut(page);

      // The password alone no longer signs in: the challenge appears.
      await signInWithPasswordUi(page, DEMO);
      await waitForVisible(page, T.mfaChallenge);
      expect(await byTestId(page, T.currentUserEmail).count()).toBe(0);
      await waitForText(page, D.session, 'signed-out');

      // A wrong code: a sentence, and the challenge stays.
      const now = freshPeriod(stage);
      const code = authenticatorCode(secret, now);
      await byTestId(page, T.mfaCode).fill(code === '000000' ? '111111' : '000000');
      await byTestId(page, T.mfaSubmit).click();
      await waitForVisible(page, T.formError);
      expect((await byTestId(page, T.formError).innerText()).trim()).toMatch(/^[A-Z][^{}]*[.!?]$/);
      expect(await byTestId(page, T.currentUserEmail).count()).toBe(0);

      // The code the app shows now (by the service's clock) signs in.
      await byTestId(page, T.mfaCode).fill(code);
      await byTestId(page, T.mfaSubmit).click();
      await waitForSignedIn(page, DEMO.email);
      await waitForText(page, D.session, 'signed-in');
      await until(
        'the home page',
        async () => new URL(page.url()).pathname,
        (path) => path === '/',
      );
    },
  );
});
