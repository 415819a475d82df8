import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario, type Stage } from './support/scenario.js';
import { statusOf, until, userEmailOf, waitForNewBroker } from './support/ui.js';

const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const ELEVEN_MINUTES = 11 * 60 * 1000;

/** The same checks in every host: sign-in propagation, one refresh, sign-out propagation. */
async function sameBehaviour(stage: Stage, context: BrowserContext, expectedMode: string): Promise<Page[]> {
  const tabs = [await stage.openTab(context), await stage.openTab(context), await stage.openTab(context)];
  const modes = await Promise.all(
    tabs.map((page) => page.evaluate(async () => (await window.__authbroker.connect()).mode)),
  );
  expect(modes).toEqual([expectedMode, expectedMode, expectedMode]);

  await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
  for (const page of tabs.slice(1)) {
    await until(
      'the user read through the broker',
      () => userEmailOf(page),
      (email) => email === 'demo@authbroker.dev',
    );
    await page.waitForFunction(() => document.body.textContent?.includes('demo@authbroker.dev'), null, {
      timeout: 10_000,
    });
  }

  // Every tab needs a new access token at once: one token request in all.
  stage.emulator.env.stats.reset();
  stage.emulator.env.clock.advance(ELEVEN_MINUTES);
  const users = await Promise.all(
    tabs.map((page) =>
      page.evaluate(async () => {
        await window.__authbroker.refetch({ kind: 'currentUser' });
        return (await window.__authbroker.read({ kind: 'currentUser' }))?.primaryEmail;
      }),
    ),
  );
  expect(users).toEqual([DEMO.email, DEMO.email, DEMO.email]);
  expect(stage.emulator.env.stats.snapshot().token_refreshes).toBe(1);

  await tabs[1]!.evaluate(() => window.__authbroker.signOut());
  for (const page of tabs) {
    await until(
      'signed out, for that reason',
      () => statusOf(page),
      (status) => status.session.status === 'signed-out' && status.session.lastEnd?.reason === 'signed-out',
    );
  }
  return tabs;
}

describe('fallback hosts behave the same', () => {
  scenario('11a. SharedWorker removed before load: the service-worker host', async (stage) => {
    const context = await stage.newContext();
    await context.addInitScript(() => {
      delete (window as { SharedWorker?: unknown }).SharedWorker;
    });
    await sameBehaviour(stage, context, 'service-worker');
    expect(await stage.sharedWorkerCount()).toBe(0);
  });

  scenario('11c. a page the service worker does not control (hard reload) still joins it', async (stage) => {
    const context = await stage.newContext();
    await context.addInitScript(() => {
      delete (window as { SharedWorker?: unknown }).SharedWorker;
    });
    const page = await stage.openTab(context);
    expect(await page.evaluate(async () => (await window.__authbroker.connect()).mode)).toBe('service-worker');
    // A hard reload bypasses the service worker: the page is not controlled although the worker is active.
    const session = await context.newCDPSession(page);
    await session.send('Page.reload', { ignoreCache: true });
    await page.waitForFunction(
      () => (window as unknown as { __authbroker?: unknown }).__authbroker !== undefined,
      null,
      { timeout: 15_000 },
    );
    expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
    expect(await page.evaluate(async () => (await window.__authbroker.connect()).mode)).toBe('service-worker');
  });

  scenario(
    '11d. a new service worker deployed while tabs are open: every tab moves to it, signed in, nothing hangs',
    async (stage) => {
      const context = await stage.newContext();
      await context.addInitScript(() => {
        delete (window as { SharedWorker?: unknown }).SharedWorker;
      });
      const tabs = [await stage.openTab(context), await stage.openTab(context)];
      for (const page of tabs)
        expect(await page.evaluate(async () => (await window.__authbroker.connect()).mode)).toBe('service-worker');
      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await tabs[1]!.waitForFunction(() => document.body.textContent?.includes('demo@authbroker.dev'), null, {
        timeout: 10_000,
      });
      const before = await tabs[0]!.evaluate(async () => (await window.__authbroker.status()).brokerId);

      stage.demo.redeployServiceWorker();
      await tabs[0]!.evaluate(async () => {
        await (await navigator.serviceWorker.getRegistration())!.update();
      });
      // Both tabs reach the new broker, which has the session from IndexedDB.
      for (const page of tabs) await waitForNewBroker(page, before);
      const statuses = await Promise.all(tabs.map((page) => page.evaluate(() => window.__authbroker.status())));
      expect(statuses[0]!.brokerId).toBe(statuses[1]!.brokerId);
      expect(statuses[0]!.tabsConnected).toBe(2);

      // What the tabs watch is subscribed on the new broker: a change in one tab shows in the other.
      await tabs[0]!.evaluate(() => window.__authbroker.updateUser({ displayName: 'After the deploy' }));
      await tabs[1]!.waitForFunction(() => document.body.textContent?.includes('After the deploy'), null, {
        timeout: 10_000,
      });
    },
  );

  scenario('11b. SharedWorker and service workers unavailable: the in-page host', async (stage) => {
    const context = await stage.newContext();
    await context.addInitScript(() => {
      delete (window as { SharedWorker?: unknown }).SharedWorker;
      Object.defineProperty(navigator, 'serviceWorker', { value: undefined, configurable: true });
    });
    await sameBehaviour(stage, context, 'in-process');
  });

  scenario(
    '11e. a forced host that cannot start is an error naming the cause, never a silent fallback',
    async (stage) => {
      stage.demo.breakServiceWorker();
      const context = await stage.newContext();
      await context.addInitScript(() => {
        delete (window as { SharedWorker?: unknown }).SharedWorker;
      });
      const page = await stage.openTab(context, '/?mode=service-worker');
      const outcome = await page.evaluate(async () => {
        try {
          return { mode: (await window.__authbroker.connect()).mode };
        } catch (error) {
          return {
            name: (error as Error).name,
            code: (error as { code?: string }).code,
            message: (error as Error).message,
          };
        }
      });
      expect(outcome).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
      expect((outcome as { message: string }).message).toMatch(
        /service-worker mode you asked for.*not JavaScript \(content-type: text\/html/,
      );
    },
  );

  scenario('11f. an automatic fallback says so: a warning in the status and in the console', async (stage) => {
    stage.demo.breakServiceWorker();
    const context = await stage.newContext();
    await context.addInitScript(() => {
      delete (window as { SharedWorker?: unknown }).SharedWorker;
    });
    const page = await stage.openTab(context);
    const warned: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warned.push(message.text());
    });
    expect(await page.evaluate(async () => (await window.__authbroker.connect()).mode)).toBe('in-process');
    const warnings = await page.evaluate(async () => (await window.__authbroker.status()).warnings);
    expect(warnings.join(' ')).toMatch(
      /in-process mode because a better host did not start: service-worker: .*not JavaScript/,
    );
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __authbroker?: unknown }).__authbroker !== undefined);
    await page.evaluate(async () => (await window.__authbroker.connect()).mode);
    expect(warned.some((line) => line.includes('better host did not start'))).toBe(true);
  });
});
