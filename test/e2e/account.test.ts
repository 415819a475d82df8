import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  focus,
  latestMail,
  openAccountSection,
  personContext,
  signInWithPasswordUi,
  signUpUi,
  T,
  uniqueEmail,
  until,
  waitForAttribute,
  waitForGone,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
  waitForVisible,
} from './support/ui.js';

const PASSWORD = 'first-password-1';

/** The row of one address on the e-mails section. */
const channelRow = (page: Page, email: string) =>
  page.locator(`[data-testid="${T.contactChannelRow}"][data-email="${email}"]`);

/** A sign-in attempt through the UI that the service refuses: the sentence on the page, still signed out. */
async function expectSignInRefused(page: Page, credentials: { email: string; password: string }): Promise<string> {
  await signInWithPasswordUi(page, credentials);
  await waitForVisible(page, T.formError);
  expect(await byTestId(page, T.currentUserEmail).count()).toBe(0);
  return (await byTestId(page, T.formError).innerText()).trim();
}

describe('the account, through the demo', () => {
  scenario(
    '15a. forgotten password: the e-mailed link opens the reset page; the new password signs in, the old one and the used link do not',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const email = uniqueEmail('forgetful');
      await signUpUi(page, { email, password: PASSWORD });
      await (await focus(page)).getByTestId(T.navSignOut).click();
      await waitForSignedOut(page);

      // Sign-in page → "Forgot it?" → the address → sent.
      await byTestId(page, T.navSignIn).click();
      await page.getByRole('link', { name: 'Forgot it?' }).click();
      await byTestId(page, T.forgotPasswordEmail).fill(email);
      await byTestId(page, T.forgotPasswordSubmit).click();
      await waitForVisible(page, T.forgotPasswordSent);
      const mail = await latestMail(stage, email, 'password_reset');
      const link = new URL(mail.link!);
      // The app passed no callback URL: the link leads to this tab's own reset page.
      expect(link.origin + link.pathname).toBe(`${stage.demo.url}/handler/password-reset`);

      await page.goto(link.href);
      await waitForAttribute(page, T.passwordResetForm, 'data-state', 'ready');
      await byTestId(page, T.passwordResetPassword).fill('second-password-2');
      await byTestId(page, T.passwordResetConfirm).fill('second-password-2');
      await byTestId(page, T.passwordResetSubmit).click();
      await waitForAttribute(page, T.passwordResetDone, 'data-state', 'done');

      // The link is used up: opened again, it says so in a sentence.
      const again = await context.newPage();
      await again.goto(link.href);
      await waitForAttribute(again, T.passwordResetInvalid, 'data-state', 'invalid');
      expect((await byTestId(again, T.formError).innerText()).trim()).toMatch(/^[A-Z].*[.!?]$/);
      await again.close();

      expect(await expectSignInRefused(page, { email, password: PASSWORD })).toMatch(/^[A-Z].*[.!?]$/);
      await byTestId(page, T.signInPassword).fill('second-password-2');
      await byTestId(page, T.signInSubmit).click();
      await waitForSignedIn(page, email);
    },
  );

  scenario(
    '15b. e-mail verification: a new account’s e-mail link verifies the address, and account settings say so',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const email = uniqueEmail('verify-me');
      await signUpUi(page, { email, password: PASSWORD });
      await openAccountSection(page, 'emails');
      await until(
        'the address shown as not verified',
        () => channelRow(page, email).innerText(),
        (text) => text.includes('not verified'),
      );

      const link = new URL((await latestMail(stage, email, 'email_verification')).link!);
      expect(link.origin + link.pathname).toBe(`${stage.demo.url}/handler/email-verification`);
      const other = await context.newPage();
      await other.goto(link.href);
      await waitForAttribute(other, T.emailVerificationStatus, 'data-state', 'verified');

      // The first tab, untouched, shows the address verified.
      await until(
        'the address shown as verified in the first tab',
        () => channelRow(page, email).innerText(),
        (text) => text.includes('verified') && !text.includes('not verified'),
      );
      // A second visit to the link: already used, in a sentence.
      await other.goto(link.href);
      await waitForAttribute(other, T.emailVerificationStatus, 'data-state', 'error');
      expect((await byTestId(other, T.formError).innerText()).trim()).toMatch(/^[A-Z].*[.!?]$/);
    },
  );

  scenario(
    '15c. contact channels: add an address, verify it from its e-mail, make it primary, sign in with it, stop using it for sign-in, remove it',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const email = uniqueEmail('owner');
      const work = uniqueEmail('work');
      await signUpUi(page, { email, password: PASSWORD });
      await openAccountSection(page, 'emails');

      await byTestId(page, T.contactChannelEmail).fill(work);
      await byTestId(page, T.contactChannelUsedForAuth).check();
      await byTestId(page, T.contactChannelAdd).click();
      await channelRow(page, work).waitFor();
      expect(await channelRow(page, work).innerText()).toContain('not verified');
      expect(await channelRow(page, work).innerText()).toContain('used for sign-in');

      await channelRow(page, work).getByTestId(T.contactChannelSendVerification).click();
      await channelRow(page, work).getByTestId(T.formSuccess).waitFor();
      const link = new URL((await latestMail(stage, work, 'email_verification')).link!);
      expect(link.origin + link.pathname).toBe(`${stage.demo.url}/handler/email-verification`);
      const mailTab = await context.newPage();
      await mailTab.goto(link.href);
      await waitForAttribute(mailTab, T.emailVerificationStatus, 'data-state', 'verified');
      await mailTab.close();
      await until(
        'the work address verified',
        () => channelRow(page, work).innerText(),
        (text) => !text.includes('not verified'),
      );

      // Primary: the nav shows the new address at once.
      await (
        await focus(page)
      )
        .locator(
          `[data-testid="${T.contactChannelRow}"][data-email="${work}"] [data-testid="${T.contactChannelMakePrimary}"]`,
        )
        .click();
      await waitForSignedIn(page, work);
      await until(
        'the primary badge moved',
        () => channelRow(page, work).innerText(),
        (text) => text.includes('primary'),
      );

      // It signs in.
      await (await focus(page)).getByTestId(T.navSignOut).click();
      await waitForSignedOut(page);
      await signInWithPasswordUi(page, { email: work, password: PASSWORD });
      await waitForSignedIn(page, work);

      // No longer used for sign-in: it does not sign in any more (the first address still does).
      await openAccountSection(page, 'emails');
      await channelRow(page, email).getByTestId(T.contactChannelMakePrimary).click();
      await waitForSignedIn(page, email);
      await channelRow(page, work).getByTestId(T.contactChannelToggleAuth).click();
      await until(
        'the work address no longer used for sign-in',
        () => channelRow(page, work).innerText(),
        (text) => !text.includes('used for sign-in'),
      );
      await (await focus(page)).getByTestId(T.navSignOut).click();
      await waitForSignedOut(page);
      await expectSignInRefused(page, { email: work, password: PASSWORD });
      await byTestId(page, T.signInEmail).fill(email);
      await byTestId(page, T.signInPassword).fill(PASSWORD);
      await byTestId(page, T.signInSubmit).click();
      await waitForSignedIn(page, email);

      await openAccountSection(page, 'emails');
      await channelRow(page, work).getByTestId(T.contactChannelRemove).click();
      await until(
        'the work address gone',
        () => channelRow(page, work).count(),
        (n) => n === 0,
      );
    },
  );

  scenario(
    '15d. account deletion: confirmed by typing the address; every tab is signed out and says why; the account no longer signs in',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const email = uniqueEmail('leaving');
      await signUpUi(page, { email, password: PASSWORD });
      const other = await stage.openTab(context);
      await waitForSignedIn(other, email);

      await openAccountSection(page, 'delete');
      // A wrong confirmation is refused on the page; nothing is deleted.
      await byTestId(page, T.deleteAccountConfirm).fill('someone-else@example.com');
      await byTestId(page, T.deleteAccountSubmit).click();
      await waitForText(page, T.formError, `Type ${email} to confirm.`);
      await waitForSignedIn(other, email);

      await byTestId(page, T.deleteAccountConfirm).fill(email);
      await byTestId(page, T.deleteAccountSubmit).click();
      for (const tab of [page, other]) {
        await waitForSignedOut(tab);
        await waitForVisible(tab, T.sessionEndNotice);
        expect(await byTestId(tab, T.sessionEndNotice).innerText()).toContain('Your account was deleted.');
      }
      await until(
        'the home page',
        async () => new URL(page.url()).pathname,
        (path) => path === '/',
      );
      await (await focus(other)).getByTestId(T.sessionEndNoticeDismiss).click();
      await waitForGone(other, T.sessionEndNotice);

      expect(await expectSignInRefused(page, { email, password: PASSWORD })).toMatch(/^[A-Z].*[.!?]$/);
    },
  );
});
