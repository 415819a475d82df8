/**
 * Connectivity as tabs see it, in Chromium with the broker in its SharedWorker (issues 26 and 27).
 * A reloaded tab used to say "online" long after the service had gone (the broker learned it only
 * from its next request), and one page's report of "offline" held every tab offline, with the
 * service up, until that report was withdrawn.
 */
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { brokerScriptUrl, installHostileKit } from './support/hostile.js';
import { scenario } from './support/scenario.js';
import { DEMO, until } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

const RELOADED_TABS = 4;

const connectivityOf = async (page: Page) => (await page.evaluate(() => window.__authbroker.status())).connectivity;

/** Waits until the page's broker says `wanted`, polling every 50 ms; returns when it was seen. */
async function seenAt(page: Page, wanted: (state: string) => boolean, timeout: number): Promise<number> {
  await until(
    'the connectivity state',
    () => connectivityOf(page),
    (c) => wanted(c.state),
    timeout,
  );
  return Date.now();
}

describe('connectivity, as tabs see it', () => {
  scenario(
    `${RELOADED_TABS} tabs reloaded while the service is gone leave "online" within 3 s, with one check; back within about 2 s`,
    async (stage) => {
      const context = await stage.newContext();
      const first = await stage.openTab(context);
      await first.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      const others = await Promise.all(Array.from({ length: RELOADED_TABS }, () => stage.openTab(context)));
      for (const page of [first, ...others]) expect((await connectivityOf(page)).state).toBe('online');

      // Every check of the broker (a check asks /api/v1 and /health), as its worker sends it.
      const worker = await WorkerTarget.attach(await stage.cdp(), stage.demo.url);
      const checks: number[] = [];
      worker.onEvent((method, params) => {
        const request = params.request as { url?: string } | undefined;
        // wallTime: when the worker sent it, on the clock the broker dates its states with.
        if (method === 'Network.requestWillBeSent' && request?.url?.endsWith('/health'))
          checks.push((params.wallTime as number) * 1000);
      });
      await worker.send('Network.enable');

      // The service goes away: its listener closed, so every connection is refused.
      const { port } = stage.emulator;
      await stage.emulator.stop();
      const goneAt = Date.now();
      await Promise.all(others.map((page) => page.reload()));
      const offlineAt = await Promise.all(others.map((page) => seenAt(page, (state) => state !== 'online', 6000)));
      expect(Math.max(...offlineAt) - goneAt).toBeLessThan(3000);
      // However many tabs came: one check found it, before the broker said so.
      const since = (await connectivityOf(others[0]!)).sinceMillis;
      expect(checks.filter((at) => at <= since)).toHaveLength(1);

      // The service comes back on the same port; the tabs that reload find it within about 2 s.
      let back: RunningEmulator | undefined;
      try {
        back = await startEmulator({ port, host: '127.0.0.1' });
        const backAt = Date.now();
        await Promise.all(others.map((page) => page.reload()));
        const onlineAt = await Promise.all(others.map((page) => seenAt(page, (state) => state === 'online', 6000)));
        expect(Math.max(...onlineAt) - backAt).toBeLessThan(3000);
      } finally {
        await back?.stop();
      }
    },
  );

  scenario(
    'a page reporting "offline" does not hold the app offline: writes and reads go while the service answers, and nothing stays after the page leaves',
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      // Another page of the origin opens its own port to the broker and says, again and again, that the browser is
      // offline.
      const hostile = await stage.openTab(context, '/');
      await installHostileKit(hostile, await brokerScriptUrl(stage));
      const answers = await hostile.evaluate(async () => {
        const own = await window.__hostile.connect({ tabId: 'says-offline' });
        const replies: string[] = [];
        for (let i = 0; i < 20; i++) {
          const reply = await window.__hostile.call(own, 'reportBrowserState', { args: [{ online: false }] });
          replies.push(reply === 'no answer' ? reply : (reply.type ?? ''));
        }
        return replies;
      });
      expect(new Set(answers)).toEqual(new Set(['RAW']));

      // The app's own calls: a write goes through, an uncached read is answered, and the state is online.
      const renamed = await app.evaluate(() =>
        window.__authbroker.updateUser({ displayName: 'Renamed while a page said offline' }),
      );
      expect(renamed.displayName).toBe('Renamed while a page said offline');
      const channels = await app.evaluate(() => window.__authbroker.read({ kind: 'contactChannels' }));
      expect(channels.map((c) => c.value)).toContain(DEMO.email);
      expect((await connectivityOf(app)).state).toBe('online');

      // The page says it once more and leaves: the app stays online and writes still go.
      await hostile.close();
      await until(
        'the connectivity state',
        () => connectivityOf(app),
        (c) => c.state === 'online',
        3000,
      );
      const again = await app.evaluate(() => window.__authbroker.updateUser({ displayName: 'After the page left' }));
      expect(again.displayName).toBe('After the page left');
    },
  );
});
