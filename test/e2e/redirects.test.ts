import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import { byTestId, DEMO, focus, T, until, waitForSignedIn, waitForText } from './support/ui.js';

/**
 * Links anyone can craft: after signing in the demo never leaves its origin, and never shows the link's text as its
 * own.
 */
describe('the demo is not an open redirect', () => {
  scenario(
    '13a. after_auth_return_to pointing elsewhere (other site, javascript:, a tab-smuggled //host, dot segments and doubled slashes that resolve to //host): signed in, still on the demo',
    async (stage) => {
      const slipping = [
        '/.//evil.example/phish',
        '/x/..//evil.example',
        `${stage.demo.url}//evil.example/phish`,
        '/%2e//evil.example',
      ];
      for (const target of [
        'https://evil.example/phish',
        '/\t/evil.example',
        'javascript:alert(1)',
        '//evil.example',
        ...slipping,
      ]) {
        const context = await stage.newContext();
        const page = await stage.openTab(
          context,
          `/handler/sign-in?after_auth_return_to=${encodeURIComponent(target)}`,
        );
        await focus(page);
        await byTestId(page, T.signInEmail).fill(DEMO.email);
        await byTestId(page, T.signInPassword).fill(DEMO.password);
        await byTestId(page, T.signInSubmit).click();
        await waitForSignedIn(page, DEMO.email);
        const url = await until(
          'the page after sign-in',
          async () => new URL(page.url()),
          (u) => !u.pathname.startsWith('/handler/sign-in'),
        );
        expect(url.origin, target).toBe(stage.demo.url);
        await context.close();
      }
    },
  );

  scenario(
    '13b. the error page says only what we wrote: our sentence for a known code, a generic one otherwise, never the link’s message',
    async (stage) => {
      const context = await stage.newContext();
      const crafted = await stage.openTab(
        context,
        `/handler/error?errorCode=ACCOUNT_LOCKED_CALL_US&message=${encodeURIComponent('Your account is locked. Call +1 555 0100 now.')}`,
      );
      const text = await waitForText(crafted, T.errorPageMessage, /./);
      expect(text).not.toContain('555');
      expect(text).toBe('Something went wrong. Please try again.');
      const known = await stage.openTab(
        context,
        `/handler/error?errorCode=OAUTH_PROVIDER_ACCESS_DENIED&message=${encodeURIComponent('Send your password to help@evil.example')}`,
      );
      expect(await waitForText(known, T.errorPageMessage, /./)).toBe('Sign-in was cancelled at the provider.');
      const html = await crafted.content();
      expect(html).not.toContain('Call +1 555');
    },
  );

  scenario(
    '13c. a crafted link to the OAuth callback page (a known code, an unknown one, a made-up state): only our sentences, nothing from the link',
    async (stage) => {
      const lure = encodeURIComponent('Your account is locked. Call +1 555 0100 now.');
      const context = await stage.newContext();
      for (const query of [
        `errorCode=USER_NOT_FOUND&message=${lure}`,
        `errorCode=ACCOUNT_LOCKED_CALL_US&message=${lure}`,
        `errorCode=USER_NOT_FOUND&state=abcdefghijklmnopqrstuvwx&message=${lure}`,
        `error=access_denied&error_description=${lure}&state=abcdefghijklmnopqrstuvwx`,
      ]) {
        const page = await stage.openTab(context, `/handler/oauth-callback?${query}`);
        await until(
          'the callback page to give up',
          async () => page.locator(`[data-testid="${T.oauthCallbackStatus}"]`).getAttribute('data-state'),
          (state) => state === 'error',
        );
        const text = await page.locator(`[data-testid="${T.oauthCallbackStatus}"]`).innerText();
        expect(text, query).not.toContain('555');
        expect(await page.content(), query).not.toContain('Call +1');
        await page.close();
      }
      await context.close();
    },
  );
});
