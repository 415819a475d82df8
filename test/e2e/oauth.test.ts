import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { oauthButton } from './support/ids.js';
import { scenario, type Stage } from './support/scenario.js';
import {
  byTestId,
  D,
  focus,
  personContext,
  T,
  uniqueEmail,
  until,
  waitForAttribute,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
  waitForVisible,
} from './support/ui.js';

/** Every URL the tab's main frame showed, in order (same-document changes such as replaceState included). */
function recordNavigations(page: Page): string[] {
  const urls: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) urls.push(frame.url());
  });
  return urls;
}

/** The sign-in page's GitHub button, then the emulator's consent page (the provider's, locally). */
async function toConsentPage(stage: Stage, page: Page): Promise<void> {
  await focus(page);
  await byTestId(page, oauthButton('github')).click();
  await page.waitForURL((url) => url.href.startsWith(`${stage.emulator.url}/emulator/oauth/github/authorize?`), {
    timeout: 10_000,
  });
  await page.locator('input#email').waitFor({ state: 'visible' });
  expect(await page.locator('h1').innerText()).toContain('Sign in with GitHub');
}

const hasOAuthParams = (href: string) => {
  const { searchParams } = new URL(href);
  return searchParams.has('code') || searchParams.has('state');
};

describe('OAuth through the provider consent page', () => {
  scenario(
    '6a. GitHub sign-in: consent page → approve → back on the callback page → signed in, and the code and state are gone',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context, '/handler/sign-in');
      const navigations = recordNavigations(page);
      const email = uniqueEmail('octocat');
      const historyBefore = await page.evaluate(() => history.length);

      await toConsentPage(stage, page);
      await page.locator('input#email').fill(email);
      await page.locator('input#display_name').fill('Octo Cat');
      await page.locator('button[name="action"][value="approve"]').click();

      // Back on the demo: the callback page completes the sign-in and moves on to the home page.
      await waitForSignedIn(page, email);
      await until(
        'the home page',
        async () => new URL(page.url()).pathname,
        (path) => path === '/',
      );
      await waitForText(page, D.session, 'signed-in');
      // The name typed on the consent page came through the provider.
      await page.getByRole('heading', { name: 'Welcome, Octo Cat' }).waitFor();
      const finalUrl = page.url();
      expect(finalUrl.startsWith(stage.demo.url)).toBe(true);
      expect(hasOAuthParams(finalUrl)).toBe(false);
      expect(await page.evaluate(() => location.search)).toBe('');

      // The browser did land on /handler/oauth-callback with a code and a state (that is the protocol)…
      const callback = navigations.find(
        (href) => href.startsWith(`${stage.demo.url}/handler/oauth-callback`) && hasOAuthParams(href),
      );
      expect(callback, `navigations: ${navigations.join(' | ')}`).toBeDefined();
      const { searchParams } = new URL(callback!);
      const code = searchParams.get('code')!;
      const state = searchParams.get('state')!;
      expect(code.length).toBeGreaterThan(10);
      expect(state.length).toBeGreaterThan(10);
      // …and every later URL of the tab is without them: first the cleaned callback page, then home.
      const after = navigations.slice(navigations.indexOf(callback!) + 1);
      expect(after.length).toBeGreaterThan(0);
      for (const href of after) {
        expect(href).not.toContain(code);
        expect(href).not.toContain(state);
      }
      expect(after).toContain(`${stage.demo.url}/handler/oauth-callback`);

      // The history keeps no entry with them: the callback entry was replaced, not pushed. The
      // browser's own list of the tab's entries (what Back and Forward would show):
      const cdp = await context.newCDPSession(page);
      const { entries, currentIndex } = await cdp.send('Page.getNavigationHistory');
      await cdp.detach();
      const urls = entries.map((entry) => entry.url);
      expect(currentIndex).toBe(urls.length - 1);
      // (The tab's first entry is the about:blank it was created with.)
      expect(urls.filter((href) => !href.startsWith('about:')).map((href) => new URL(href).pathname)).toEqual([
        '/handler/sign-in',
        '/emulator/oauth/github/authorize',
        '/',
      ]);
      expect(await page.evaluate(() => history.length)).toBe(historyBefore + 2);
      for (const href of urls) {
        expect(href).not.toContain(code);
        expect(href).not.toContain(state);
      }
      // Going back leaves for the consent page; coming forward again does not replay the callback.
      await page.goBack();
      expect(new URL(page.url()).pathname).toBe('/emulator/oauth/github/authorize');
      await page.goForward();
      expect(page.url()).toBe(`${stage.demo.url}/`);
      await waitForSignedIn(page, email);
    },
  );

  scenario(
    '6b. consent denied at the provider → the error page, with a sentence (not JSON), still signed out',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context, '/handler/sign-in');
      await toConsentPage(stage, page);
      await page.locator('input#email').fill(uniqueEmail('declined'));
      await page.locator('button[name="action"][value="deny"]').click();

      await until(
        'the error page',
        async () => new URL(page.url()).pathname,
        (path) => path === '/handler/error',
      );
      await waitForAttribute(page, T.errorPage, 'data-state', 'OAUTH_PROVIDER_ACCESS_DENIED');
      await waitForVisible(page, T.errorPageMessage);
      const sentence = (await byTestId(page, T.errorPageMessage).innerText()).trim();
      expect(sentence).toBe('Sign-in was cancelled at the provider.');
      // A sentence for a person: no JSON, no braces, no raw error code in it.
      expect(sentence).toMatch(/^[A-Z][^{}[\]<>]*[.!?]$/);
      expect(sentence).not.toContain('OAUTH_PROVIDER_ACCESS_DENIED');
      expect(() => JSON.parse(sentence)).toThrow();
      expect(await byTestId(page, T.errorPageCode).innerText()).toBe('OAUTH_PROVIDER_ACCESS_DENIED');
      // The page's body shows no JSON either (the redirect's `details={}` stays in the address bar).
      expect(await page.locator('main').innerText()).not.toMatch(/[{}]/);
      await waitForSignedOut(page);
      await waitForText(page, D.session, 'signed-out');
      // And the way back works: the sign-in page again.
      await page.getByRole('link', { name: 'Back to sign-in' }).click();
      await waitForVisible(page, oauthButton('github'));
    },
  );

  scenario(
    '6c. the consent page refuses to be framed: a page that puts it in an iframe shows nothing of it',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context, '/handler/sign-in');
      await toConsentPage(stage, page);
      const consentUrl = page.url();
      // A page of no origin of ours (the demo's own policy would refuse the frame on its side).
      const framer = await context.newPage();
      await framer.evaluate(
        (url) =>
          new Promise<void>((resolve) => {
            const frame = document.createElement('iframe');
            frame.src = url;
            frame.onload = () => resolve();
            setTimeout(resolve, 5000);
            document.body.append(frame);
          }),
        consentUrl,
      );
      const frame = framer.frames().find((f) => f !== framer.mainFrame());
      expect(frame).toBeDefined();
      expect(await frame!.locator('input#email').count()).toBe(0);
      expect(frame!.url()).not.toBe(consentUrl);
    },
  );
});
