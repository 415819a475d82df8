import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  D,
  DEMO,
  ELEVEN_MINUTES,
  focus,
  personContext,
  serverApi,
  signInWithPasswordUi,
  T,
  userIdByEmail,
  waitForAttribute,
  waitForGone,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
  waitForVisible,
  withDevtools,
} from './support/ui.js';

const SIGNED_OUT_MESSAGE = 'You signed out.';
const REVOKED_MESSAGE = 'Your session was revoked or has expired. Please sign in again.';

/** What every tab must show once the session ended for `reason`: signed out, and why, in the devtools. */
async function expectEndedEverywhere(tabs: Page[], reason: string, message: string): Promise<void> {
  for (const page of tabs) {
    await waitForSignedOut(page);
    await waitForText(page, D.session, 'signed-out');
    await withDevtools(page, async () => {
      await waitForText(page, D.endReason, reason);
      await waitForText(page, D.endMessage, message);
    });
  }
}

describe('sign-out reaches every tab, with its reason', () => {
  scenario(
    '4. sign out in tab 2 → every tab signed out ("signed-out"); a session revoked elsewhere → every tab says "session-revoked"',
    async (stage) => {
      const context = await personContext(stage);
      const tabs = [await stage.openTab(context), await stage.openTab(context), await stage.openTab(context)];
      const [tab1, tab2, tab3] = tabs as [Page, Page, Page];

      // Signed in through the sign-in page of tab 1; the others follow.
      await signInWithPasswordUi(tab1, DEMO);
      for (const page of tabs) await waitForSignedIn(page, DEMO.email);

      // Tab 2: the nav's "Sign out" goes to the sign-out page, which signs out every tab.
      await (await focus(tab2)).getByTestId(T.navSignOut).click();
      await waitForAttribute(tab2, T.signOutStatus, 'data-state', 'done');
      expect(new URL(tab2.url()).pathname).toBe('/handler/sign-out');
      await expectEndedEverywhere(tabs, 'signed-out', SIGNED_OUT_MESSAGE);
      // Signing out on purpose is not news: no "you were signed out" notice in any tab.
      for (const page of tabs) expect(await byTestId(page, T.sessionEndNotice).count()).toBe(0);
      // Nothing was reloaded: one navigation per tab (tab 2 moved within the app).
      for (const page of tabs)
        expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1);

      // Signed in again, from tab 3 this time.
      await signInWithPasswordUi(tab3, DEMO);
      for (const page of tabs) await waitForSignedIn(page, DEMO.email);
      for (const page of tabs) await withDevtools(page, () => waitForText(page, D.endReason, '–'));

      // Elsewhere, the app's backend sets a new password: the service revokes every session of the user.
      const userId = await userIdByEmail(stage, DEMO.email);
      await serverApi(stage, 'PATCH', `/users/${userId}`, { password: 'a-brand-new-password' });
      // The tabs' access token still works until it expires (nothing tells them yet)…
      await (await focus(tab3)).getByTestId(T.navAccount).click();
      await waitForVisible(tab3, T.profileForm);
      for (const page of tabs) await waitForSignedIn(page, DEMO.email);
      // …and once it has expired, renewing it fails.
      stage.emulator.env.clock.advance(ELEVEN_MINUTES);
      // The person does something that needs the service: opening the teams page in tab 1.
      await (await focus(tab1)).getByTestId(T.navTeams).click();

      await expectEndedEverywhere(tabs, 'session-revoked', REVOKED_MESSAGE);
      for (const page of tabs) {
        await waitForVisible(page, T.sessionEndNotice);
        expect(await byTestId(page, T.sessionEndNotice).innerText()).toContain(REVOKED_MESSAGE);
      }
      // The notice can be dismissed; the panel keeps the reason.
      await (await focus(tab2)).getByTestId(T.sessionEndNoticeDismiss).click();
      await waitForGone(tab2, T.sessionEndNotice);
      await withDevtools(tab2, () => waitForText(tab2, D.endReason, 'session-revoked'));
      // The teams page in tab 1 now asks the person to sign in rather than showing an error.
      await tab1.getByRole('heading', { name: 'Please sign in' }).waitFor();
      expect(await byTestId(tab1, T.formError).count()).toBe(0);
    },
  );
});
