import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { everythingStored } from '../support/indexedDbDump.js';
import { scenario, type Stage } from './support/scenario.js';
import { DEMO, statusOf, until, userEmailOf } from './support/ui.js';

/**
 * `tokenStore: 'memory'` (the demo's `?tokens=memory`) in each host: the refresh token is never
 * written to IndexedDB (nor is anything kept in localStorage), every open tab shares the session,
 * and it is gone when its broker is: the last tab closed (a service worker: once the browser stops it).
 */
const MEMORY = '/?tokens=memory';

async function sharedAndNeverStored(stage: Stage, context: BrowserContext, mode: string): Promise<Page[]> {
  const tabs = [await stage.openTab(context, MEMORY), await stage.openTab(context, MEMORY)];
  expect(
    await Promise.all(tabs.map((page) => page.evaluate(async () => (await window.__authbroker.connect()).mode))),
  ).toEqual([mode, mode]);
  await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
  await until(
    'the second tab to read the user',
    () => userEmailOf(tabs[1]!),
    (email) => email === DEMO.email,
  );
  // A tab opened now joins the session too.
  const third = await stage.openTab(context, MEMORY);
  await until(
    'a tab opened later to read the user',
    () => userEmailOf(third),
    (email) => email === DEMO.email,
  );
  tabs.push(third);
  expect((await tabs[1]!.evaluate(() => window.__authbroker.status())).storage).toBe('memory');

  const stored = await tabs[0]!.evaluate(everythingStored);
  expect(stored).not.toContain('refreshToken');
  expect(stored).not.toContain('refresh_token');
  // The kept copy is off by default with memory tokens (it would show a user whose session is gone).
  expect(
    await tabs[0]!.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('authbroker:snapshot:'))),
  ).toEqual([]);
  return tabs;
}

async function signedOutInANewTab(stage: Stage, context: BrowserContext): Promise<void> {
  const again = await stage.openTab(context, MEMORY);
  const session = await again.evaluate(async () => {
    await window.__authbroker.connect();
    return (await window.__authbroker.status()).session.status;
  });
  expect(session).toBe('signed-out');
  expect(await again.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }))).toBeNull();
}

describe('tokenStore: memory in every host', () => {
  scenario('27a. SharedWorker: shared by the tabs, never stored, gone when the last tab closes', async (stage) => {
    const context = await stage.newContext();
    const tabs = await sharedAndNeverStored(stage, context, 'shared-worker');
    for (const page of tabs) await page.close();
    await until(
      'the broker to stop with its last tab',
      () => stage.sharedWorkerCount(),
      (n) => n === 0,
    );
    await signedOutInANewTab(stage, context);
  });

  scenario(
    '27b. service worker: shared by the tabs, never stored, gone when the browser stops the worker',
    async (stage) => {
      const context = await stage.newContext();
      await context.addInitScript(() => {
        delete (window as { SharedWorker?: unknown }).SharedWorker;
      });
      const tabs = await sharedAndNeverStored(stage, context, 'service-worker');
      for (const page of tabs) await page.close();
      // A service worker outlives its last tab until the browser stops it (idle, ~30 s in Chromium).
      const blank = await context.newPage();
      const session = await context.newCDPSession(blank);
      await session.send('ServiceWorker.enable');
      await session.send('ServiceWorker.stopAllWorkers');
      await signedOutInANewTab(stage, context);
    },
  );

  scenario(
    '27c. in-page brokers (no SharedWorker, no service worker): shared by the tabs, never stored, gone with the last tab',
    async (stage) => {
      const context = await stage.newContext();
      await context.addInitScript(() => {
        delete (window as { SharedWorker?: unknown }).SharedWorker;
        Object.defineProperty(navigator, 'serviceWorker', { value: undefined, configurable: true });
      });
      const tabs = await sharedAndNeverStored(stage, context, 'in-process');
      // A sign-out in one tab reaches the others.
      await tabs[2]!.evaluate(() => window.__authbroker.signOut());
      await until(
        'the first tab signed out',
        () => statusOf(tabs[0]!),
        (status) => status.session.status === 'signed-out',
      );
      await tabs[1]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await until(
        'the first tab signed in again',
        () => statusOf(tabs[0]!),
        (status) => status.session.status === 'signed-in',
      );
      for (const page of tabs) await page.close();
      await signedOutInANewTab(stage, context);
    },
  );
});
