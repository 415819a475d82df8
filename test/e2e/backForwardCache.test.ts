import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium.js';
import { scenario, type Stage } from './support/scenario.js';
import { DEMO, waitForSignedIn, waitForSignedOut } from './support/ui.js';

/**
 * The back/forward cache (issue 32, item 7). Playwright launches Chromium with it off; this file's
 * browser has it on. With the in-page host, a page kept in the cache used to be evicted as soon as
 * another tab's broker posted on the brokers' channel (`broadcastchannel-message`), so Back reloaded
 * it; the SharedWorker host always kept it.
 */
let browser: Browser | undefined;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
  });
});
afterAll(async () => {
  await browser?.close();
});

/** A tab of the demo, its client ready; `why` collects why Chromium did not restore it from the cache. */
async function openTab(
  stage: Stage,
  context: Awaited<ReturnType<Browser['newContext']>>,
  path: string,
): Promise<{ page: Page; notRestored: string[] }> {
  const page = await context.newPage();
  const notRestored: string[] = [];
  const cdp = await context.newCDPSession(page);
  await cdp.send('Page.enable');
  cdp.on('Page.backForwardCacheNotUsed', (event) =>
    notRestored.push(...event.notRestoredExplanations.map((e) => e.reason)),
  );
  await page.goto(`${stage.demo.url}${path}`);
  await page.waitForFunction(() => (window as unknown as { __authbroker?: unknown }).__authbroker !== undefined, null, {
    timeout: 15_000,
  });
  return { page, notRestored };
}

describe('the back/forward cache with the in-page host', () => {
  for (const store of ['', '&tokens=memory']) {
    scenario(
      `a page kept in the cache stays there while another tab's broker speaks on the channel, and catches up when it comes back${store === '' ? '' : ' (tokens in memory)'}`,
      async (stage) => {
        const context = await browser!.newContext();
        try {
          const path = `/?mode=in-process${store}`;
          const a = await openTab(stage, context, path);
          await a.page.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
          await waitForSignedIn(a.page, DEMO.email);
          // Another tab stays open (with tokens in memory, the session lives only in open tabs).
          const c = await openTab(stage, context, path);
          await waitForSignedIn(c.page, DEMO.email);
          await a.page.evaluate(() => ((window as unknown as { __kept: boolean }).__kept = true));
          // Away to another page of the site: the demo's page goes into the cache.
          await a.page.goto(`${stage.demo.url}/demo-config.json`);
          const b = await openTab(stage, context, path);
          await waitForSignedIn(b.page, DEMO.email);
          // Another tab's broker ends the session and says so on the channel (and asks nothing of the cached one).
          await b.page.evaluate(() => window.__authbroker.signOut());
          await waitForSignedOut(b.page);
          await b.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));

          // Restored from the cache, a page fires no load event.
          await a.page.goBack({ waitUntil: 'commit' });
          // Restored, not loaded again: the page's own state is still there (Chromium's reasons otherwise).
          const kept = await a.page.evaluate(() => (window as unknown as { __kept?: boolean }).__kept);
          expect(kept, `not restored: ${a.notRestored.join(', ')}`).toBe(true);
          // Back, the broker hears what it missed: the sign-out reaches the page.
          await waitForSignedOut(a.page);
        } finally {
          await context.close();
        }
      },
      { demo: { cacheable: true } },
    );
  }
});
