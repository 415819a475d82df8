import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario, type Stage } from './support/scenario.js';
import {
  byTestId,
  D,
  DEMO,
  focus,
  latestMail,
  personContext,
  T,
  uniqueEmail,
  until,
  waitForAttribute,
  waitForSignedIn,
  waitForText,
  waitForVisible,
} from './support/ui.js';

/** The sign-in page's "E-mail code" method: type the address, send; the code form appears. */
async function sendCode(stage: Stage, page: Page, email: string) {
  await focus(page);
  await byTestId(page, T.signInTabMagicLink).click();
  await byTestId(page, T.magicLinkEmail).fill(email);
  const before = stage.emulator.env.mailbox.list(email).length;
  await byTestId(page, T.magicLinkSend).click();
  await waitForVisible(page, T.magicLinkSent);
  expect(await byTestId(page, T.magicLinkSent).innerText()).toContain(email);
  await waitForVisible(page, T.otpInput);
  const mail = await latestMail(stage, email, 'magic_link');
  expect(stage.emulator.env.mailbox.list(email).length).toBe(before + 1);
  return mail;
}

describe('e-mail sign-in: the magic link and the typed code', () => {
  scenario("7a. magic link: the e-mail's link opened in the tab → signed in", async (stage) => {
    const context = await personContext(stage);
    const page = await stage.openTab(context, '/handler/sign-in');
    const mail = await sendCode(stage, page, DEMO.email);
    expect(mail.link).not.toBeNull();
    const link = new URL(mail.link!);
    // The link leads to the demo's own handler page, with a code.
    expect(link.origin).toBe(stage.demo.url);
    expect(link.pathname).toBe('/handler/magic-link-callback');
    expect(link.searchParams.get('code')).toMatch(/^[0-9a-z]{10,}$/i);

    // The person opens the link from the mailbox in the same tab.
    await page.goto(link.href);
    await waitForSignedIn(page, DEMO.email);
    // The handler page moved on to the home page; the code is not left in the address bar.
    await until(
      'the home page',
      async () => new URL(page.url()).pathname,
      (path) => path === '/',
    );
    expect(page.url()).not.toContain(link.searchParams.get('code')!);
    await waitForText(page, D.session, 'signed-in');

    // The link is single-use: opening it again says so in a sentence, and keeps the session.
    const again = await context.newPage();
    await again.goto(link.href);
    await waitForAttribute(again, T.magicLinkCallbackStatus, 'data-state', 'error');
    const problem = (await byTestId(again, T.formError).innerText()).trim();
    expect(problem).toMatch(/^[A-Z].*[.!?]$/);
    expect(problem).not.toMatch(/[{}]/);
    await waitForSignedIn(again, DEMO.email);
  });

  scenario(
    '7b. the 6-character code from the e-mail typed into the sign-in page → signed in (a new account)',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context, '/handler/sign-in');
      const email = uniqueEmail('otp');
      const mail = await sendCode(stage, page, email);
      // "Sign in to …: Your code is ABC123", and the same code in the text.
      const code = /Your code is ([0-9A-Z]{6})\b/i.exec(mail.subject)?.[1];
      expect(code, mail.subject).toBeDefined();
      expect(mail.text).toContain(code!);

      // A wrong code first: a sentence on the page, still signed out.
      const wrong = code!.toUpperCase() === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
      await byTestId(page, T.otpInput).fill(wrong);
      await byTestId(page, T.otpSubmit).click();
      await waitForVisible(page, T.formError);
      expect((await byTestId(page, T.formError).innerText()).trim()).toMatch(/^[A-Z].*[.!?]$/);
      expect(await byTestId(page, T.currentUserEmail).count()).toBe(0);

      // Typed by hand, in lower case: the field shows it in capitals, as printed in the e-mail.
      await byTestId(page, T.otpInput).fill('');
      await byTestId(page, T.otpInput).pressSequentially(code!.toLowerCase());
      expect(await byTestId(page, T.otpInput).inputValue()).toBe(code!.toUpperCase());
      await byTestId(page, T.otpSubmit).click();
      await waitForSignedIn(page, email);
      await until(
        'the home page',
        async () => new URL(page.url()).pathname,
        (path) => path === '/',
      );
      await waitForText(page, D.session, 'signed-in');
    },
  );
});
