/**
 * The demo extension in Chromium (puppeteer-core, `enableExtensions`) and Firefox ESR (WebDriver
 * BiDi's `webExtension.install`, for good: an .xpi with `moz:permanent`): one session for the
 * popup, the options page, the background and a content script, against the emulator on loopback,
 * through a stopped background, a browser restart on the same profile and social sign-in in both.
 * The extension's own contexts run the steps (demo-extension/src/testDriver.ts), since BiDi cannot
 * open moz-extension:// pages. How each browser stops the background: support/browsers.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { demoProject } from '../support/authFlows.js';
import { startCollector, type Collector, type DriverContext } from './support/collector.js';
import {
  CHROMIUM_EXTENSION_ID,
  launchWithExtension,
  skipExtensionEngine,
  startWebSite,
  type ExtensionBrowser,
  type ExtensionEngine,
} from './support/browsers.js';
import { pageDomReading } from './support/pageDom.js';
import { pageStorageDump } from './support/pageStorage.js';

const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
/** The seeded demo user's display name, which the content script's badge shows. */
const DEMO_NAME = 'Demo User';
const ELEVEN_MINUTES = 11 * 60 * 1000;
const at = (value: unknown) => (value as { at: number }).at;

/**
 * What `identity.getRedirectURL` gives each browser: Chromium names the extension's id, Firefox a hash of its add-on
 * id.
 */
const REDIRECT_URL: Record<ExtensionEngine, RegExp> = {
  chromium: new RegExp(`^https://${CHROMIUM_EXTENSION_ID}\\.chromiumapp\\.org/authbroker-oauth$`),
  firefox: /^https:\/\/[0-9a-f]{40}\.extensions\.allizom\.org\/authbroker-oauth$/,
};

/** The URL the demo extension's social sign-in comes back to, as it tells it. */
async function extensionRedirect(collector: Collector, extension: ExtensionBrowser): Promise<string> {
  return collector.run<string>(await extension.background(), 'oauthRedirectUrl');
}

for (const engine of ['chromium', 'firefox'] as ExtensionEngine[]) {
  describe.skipIf(skipExtensionEngine(engine))(`${engine}: one session for the whole extension`, () => {
    let emulator: RunningEmulator;
    let collector: Collector;
    let site: Awaited<ReturnType<typeof startWebSite>>;
    let extension: ExtensionBrowser;
    let popup: DriverContext;
    let options: DriverContext;
    let content: DriverContext;
    let userId: string;

    beforeAll(async () => {
      emulator = await startEmulator({ port: 0 });
      collector = await startCollector();
      site = await startWebSite();
      extension = await launchWithExtension(engine, emulator, collector);
      popup = await extension.openExtensionPage('popup.html');
      options = await extension.openExtensionPage('options.html');
      content = (await extension.openWebPage(site.url)).content;
    });
    afterAll(async () => {
      await extension?.close();
      await site?.close();
      await collector?.close();
      await emulator?.stop();
    });

    it('a sign-in in the popup reaches the options page, the background and a content script', async () => {
      const background = await extension.background();
      for (const context of [popup, options, background, content])
        expect(await collector.run(context, 'user')).toBeNull();
      const sentAt = Date.now();
      const signedIn = at(await collector.run(popup, 'signIn', DEMO));
      userId = (await collector.run<{ userId: string }>(popup, 'session')).userId;
      const seen = await Promise.all(
        [options, background, content].map(async (context) =>
          at(await collector.run(context, 'waitForSession', { userId })),
        ),
      );
      const users = await Promise.all(
        [options, background, content].map((context) => collector.run(context, 'waitForUser', { userId })),
      );
      expect(users).toHaveLength(3);
      const lags = seen.map((time) => Math.round(time - signedIn));
      console.log(
        `[extension ${engine}] the session reached options, background, content script ${lags.join(', ')} ms after the popup's sign-in resolved`,
      );
      // Each context shows the session once the sign-in was asked for, never before (a stale or made-up one).
      for (const time of seen) expect(time).toBeGreaterThanOrEqual(sentAt);
    });

    it("the content script shows the user on the page, yet the page's own scripts cannot read who it is", async () => {
      const { page, content } = await extension.openWebPage(site.url);
      await collector.run(content, 'waitForUser', { userId });
      const badge = await collector.run<{ text: string | null; inPage: boolean }>(content, 'badge');
      expect(badge).toEqual({ text: `authbroker demo: ${DEMO_NAME}`, inPage: true });
      const reading = await pageDomReading(page, [DEMO_NAME, DEMO.email, userId]);
      for (const secret of [DEMO_NAME, DEMO.email, userId]) expect(reading.text).not.toContain(secret);
      // Not even as an answer to a guess.
      expect(reading.found).toEqual([]);
      await page.close();
    });

    it('the side panel (Chromium) or sidebar (Firefox) is the same page on the same session', async () => {
      expect(await collector.run<string | null>(await extension.background(), 'sidePanel')).toMatch(/sidepanel\.html$/);
      const panel = await extension.openExtensionPage('sidepanel.html');
      expect(at(await collector.run(panel, 'waitForSession', { userId }))).toBeGreaterThan(0);
      expect(await collector.run(panel, 'refetchUser')).toBe(userId);
    });

    it("the web page's scripts see no token in any storage they can read", async () => {
      const background = await extension.background();
      const tokens = [
        await collector.run<string>(background, 'accessToken'),
        await collector.run<string>(background, 'storedRefreshToken'),
      ];
      expect(tokens.every((token) => typeof token === 'string' && token.length > 20)).toBe(true);
      const { page } = await extension.openWebPage(site.url);
      const dump = await pageStorageDump(page);
      for (const token of tokens) expect(dump.text).not.toContain(token);
      expect(dump.databases).not.toContain('authbroker');
      expect(dump.text).not.toMatch(/authbroker:snapshot/);
      await page.close();
    });

    it('one token request for every context after the access token expired', async () => {
      const background = await extension.background();
      emulator.env.stats.reset();
      emulator.env.clock.advance(ELEVEN_MINUTES);
      const users = await Promise.all(
        [popup, options, background].map((context) => collector.run(context, 'refetchUser')),
      );
      expect(users).toEqual([userId, userId, userId]);
      expect(emulator.env.stats.snapshot().token_refreshes).toBe(1);
    });

    it('after the background is stopped, it answers from storage: no sign-in, at most one token request', async () => {
      emulator.env.stats.reset();
      const stoppedAt = Date.now();
      await extension.stopBackground();
      // The popup's first call after the stop waits for its port to reconnect, which starts the background again.
      const first = await collector.run<{ millis: number; value: unknown }>(popup, 'timedSession');
      expect(first.value).toEqual({ status: 'signed-in', userId });
      const background = await extension.background(stoppedAt);
      expect(await collector.run(background, 'session')).toEqual({ status: 'signed-in', userId });
      expect(await collector.run(options, 'refetchUser')).toBe(userId);
      const stats = emulator.env.stats.snapshot();
      expect(stats.token_refreshes).toBeLessThanOrEqual(1);
      expect(
        Object.keys(stats.requests).filter(
          (route) => /sign-in|password|otp|oauth\/token/.test(route) && !/oauth\/token/.test(route),
        ),
      ).toEqual([]);
      console.log(
        `[extension ${engine}] background stopped → the popup's first answer took ${Math.round(first.millis)} ms`,
      );
    });

    it('sign-out in the options page reaches every context', async () => {
      const background = await extension.background();
      await collector.run(options, 'signOut');
      for (const context of [popup, background, content])
        expect(at(await collector.run(context, 'waitForSession', { userId: null }))).toBeGreaterThan(0);
      for (const context of [popup, options, background, content])
        expect(await collector.run(context, 'user')).toBeNull();
    });

    it('the popup names the cause at once when the project does not trust the extension’s redirect', async () => {
      const origin = new URL(await extensionRedirect(collector, extension)).origin;
      const config = demoProject(emulator).config;
      const trusted = config.domains;
      config.domains = [];
      emulator.env.stats.reset();
      try {
        const shown = await collector.run<string | null>(popup, 'githubButton', {}, 20_000);
        expect(shown).toContain(`this project does not trust ${origin}`);
        expect(shown).toContain('trusted domains');
        // No sign-in window was opened for a flow the service would refuse.
        expect(
          Object.keys(emulator.env.stats.snapshot().requests).filter((route) => route.includes('authorize')),
        ).toEqual([]);
      } finally {
        config.domains = trusted;
      }
    });

    it('social sign-in through the mock provider in the browser’s web-auth window, as the emulator starts', async () => {
      const redirect = await extensionRedirect(collector, extension);
      expect(redirect).toMatch(REDIRECT_URL[engine]);
      // The demo project trusts the demo extension's redirect hosts from the start: no setup.
      expect(demoProject(emulator).config.domains.map(({ domain }) => domain)).toContain(new URL(redirect).origin);
      const browser = extension.browser();
      const flow = collector.run<string | null>(popup, 'githubButton', {}, 60_000);
      const target = await browser.waitForTarget((t) => t.url().includes('/emulator/oauth/github/authorize'), {
        timeout: 20_000,
      });
      const consent = await target.asPage();
      await consent.waitForSelector('#email');
      await consent.type('#email', 'ext-social@example.com');
      await consent.evaluate(() => (document.querySelector('button.approve') as HTMLButtonElement).click());
      expect(await flow).toBeNull();
      const background = await extension.background();
      const session = await collector.run<{ status: string; userId: string }>(background, 'session');
      expect(session.status).toBe('signed-in');
      expect(at(await collector.run(options, 'waitForSession', { userId: session.userId }))).toBeGreaterThan(0);
      userId = session.userId;
    });

    it('the session survives a browser restart on the same profile', async () => {
      const background = await extension.background();
      const before = await collector.run<{ status: string; userId: string }>(background, 'session');
      expect(before.status).toBe('signed-in');
      const restartedAt = Date.now();
      await extension.restart();
      const after = await extension.background(restartedAt);
      expect(await collector.run(after, 'session')).toEqual(before);
      popup = await extension.openExtensionPage('popup.html');
      expect(await collector.run(popup, 'refetchUser')).toBe(before.userId);
    });
  });
}

for (const engine of ['chromium', 'firefox'] as ExtensionEngine[]) {
  describe.skipIf(skipExtensionEngine(engine))(
    `${engine}: the other configurations: tokenStore 'session', content scripts with access tokens`,
    () => {
      let emulator: RunningEmulator;
      let collector: Collector;
      let site: Awaited<ReturnType<typeof startWebSite>>;
      let extension: ExtensionBrowser;

      beforeAll(async () => {
        emulator = await startEmulator({ port: 0 });
        collector = await startCollector();
        site = await startWebSite();
        extension = await launchWithExtension(engine, emulator, collector, {
          tokenStore: 'session',
          contentScripts: { accessToken: true },
        });
      });
      afterAll(async () => {
        await extension?.close();
        await site?.close();
        await collector?.close();
        await emulator?.stop();
      });

      it("a content script holding an access token leaves none in the web page's storage; the session survives a stopped background", async () => {
        const popup = await extension.openExtensionPage('popup.html');
        await collector.run(popup, 'signIn', DEMO);
        const { page, content } = await extension.openWebPage(site.url);
        const fromContent = await collector.run<string>(content, 'accessToken');
        const background = await extension.background();
        const tokens = [
          fromContent,
          await collector.run<string>(background, 'accessToken'),
          await collector.run<string>(background, 'storedRefreshToken'),
        ];
        expect(tokens.every((token) => typeof token === 'string' && token.length > 20)).toBe(true);
        const dump = await pageStorageDump(page);
        for (const token of tokens) expect(dump.text).not.toContain(token);
        expect(dump.databases).not.toContain('authbroker');

        emulator.env.stats.reset();
        await extension.stopBackground();
        const first = await collector.run<{ millis: number; value: { status: string } }>(popup, 'timedSession');
        expect(first.value.status).toBe('signed-in');
        expect(emulator.env.stats.snapshot().token_refreshes).toBeLessThanOrEqual(1);
      });

      it("tokenStore 'session' ends with the browser: after a restart on the same profile, signed out, nothing stored", async () => {
        expect(await collector.run(await extension.background(), 'storedRefreshToken')).toEqual(expect.any(String));
        const restartedAt = Date.now();
        await extension.restart();
        const background = await extension.background(restartedAt);
        expect(await collector.run(background, 'session')).toMatchObject({ status: 'signed-out' });
        expect(await collector.run(background, 'storedRefreshToken')).toBeNull();
      });
    },
  );
}

describe.skipIf(skipExtensionEngine('firefox'))(
  'firefox: the browser’s own idle stop (extensions.background.idle.timeout)',
  () => {
    /**
     * Short, so the test sees the browser suspend the background by itself (Firefox's default is 30 s),
     * yet three times the broker's keep-awake period, so that a busy machine delaying its timer does not.
     */
    const IDLE_MILLIS = 3000;
    let emulator: RunningEmulator;
    let collector: Collector;
    let extension: ExtensionBrowser;
    let popup: DriverContext;
    let userId: string;

    beforeAll(async () => {
      emulator = await startEmulator({ port: 0 });
      collector = await startCollector();
      extension = await launchWithExtension('firefox', emulator, collector, { firefoxIdleMillis: IDLE_MILLIS });
      popup = await extension.openExtensionPage('popup.html');
    });
    afterAll(async () => {
      await extension?.close();
      await collector?.close();
      await emulator?.stop();
    });

    it('a call that takes longer than the idle timeout is answered: the background stays up while it serves one', async () => {
      // Port messages do not count as activity for Firefox's idle timer: only extension API calls and events do.
      emulator.env.faults.add([
        {
          path: '/api/v1/auth/password/sign-in',
          method: 'POST',
          count: 1,
          effect: { type: 'latency', ms: 2 * IDLE_MILLIS },
        },
      ]);
      await collector.run(popup, 'signIn', DEMO);
      const session = await collector.run<{ status: string; userId: string }>(popup, 'session');
      expect(session.status).toBe('signed-in');
      userId = session.userId;
    });

    it('after the browser suspended the idle background, the first answer comes from storage: no sign-in, at most one token request', async () => {
      emulator.env.stats.reset();
      await extension.stopBackground();
      const first = await collector.run<{ millis: number; value: unknown }>(popup, 'timedSession');
      expect(first.value).toEqual({ status: 'signed-in', userId });
      const stats = emulator.env.stats.snapshot();
      expect(stats.token_refreshes).toBeLessThanOrEqual(1);
      expect(Object.keys(stats.requests).filter((route) => /sign-in|password|otp/.test(route))).toEqual([]);
    });
  },
);
