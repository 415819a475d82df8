import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import { statusOf, T, until, waitForGone, waitForText } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };

describe('one session for every tab', () => {
  scenario(
    '3. short-lived access tokens, five tabs busy: exactly one token request per expiry',
    async (stage) => {
      const context = await stage.newContext();
      const tabs = await Promise.all(Array.from({ length: 5 }, () => stage.openTab(context)));
      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      // A 26 s token is renewed 20 s before expiry, so a fresh one is good for about 5 s (exp is whole
      // seconds): nothing is due while the counters are read, and a 13 s run sees two or three renewals.
      stage.emulator.env.stats.reset();
      const brokerBefore = (await tabs[4]!.evaluate(() => window.__authbroker.status())).tokenRefreshes;
      const first = await tabs[0]!.evaluate(() => window.__authbroker.getAccessToken());
      const seen = await Promise.all(
        tabs.map((page) =>
          page.evaluate(async () => {
            const tokens: string[] = [];
            const until = performance.now() + 13_000;
            while (performance.now() < until) {
              const token = await window.__authbroker.getAccessToken();
              if (token !== null && tokens.at(-1) !== token) tokens.push(token);
              await window.__authbroker.refetch({ kind: 'currentUser' });
            }
            return tokens;
          }),
        ),
      );
      const refreshes = stage.emulator.env.stats.snapshot().token_refreshes;
      const brokerAfter = (await tabs[4]!.evaluate(() => window.__authbroker.status())).tokenRefreshes;
      const distinct = new Set([first, ...seen.flat()]);
      expect(refreshes).toBeGreaterThanOrEqual(2);
      // Every token after the sign-in's came from exactly one token request, shared by the five tabs.
      expect(refreshes).toBe(distinct.size - 1);
      // And the tabs saw the same tokens in the same order.
      const order = [...distinct].filter((t): t is string => t !== null);
      for (const tokens of seen) expect(tokens).toEqual(order.filter((t) => tokens.includes(t)));
      // The broker counts what the service counts.
      expect(brokerAfter - brokerBefore).toBe(refreshes);
    },
    { emulator: { accessTokenTtlMillis: 26_000 } },
  );

  scenario(
    '9. offline: the worker taken offline through CDP → diagnostics, session kept; back online → recovers by itself',
    async (stage) => {
      const context = await stage.newContext();
      const page = await stage.openTab(context);
      await page.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await page.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
      const { brokerId } = await page.evaluate(() => window.__authbroker.status());
      const workers = await WorkerTarget.attachAll(await stage.cdp(), stage.demo.url);
      for (const worker of workers) await worker.setOffline(true);
      // A read while offline waits rather than failing; the broker notices and probes.
      const pendingRead = page.evaluate(async () => {
        await window.__authbroker.refetch({ kind: 'currentUser' });
        return (await window.__authbroker.read({ kind: 'currentUser' }))?.primaryEmail;
      });
      // Awaited below; if a check fails first, the page closes under it, which is not a second failure.
      pendingRead.catch(() => undefined);
      // The status that showed "offline" is the one checked (a second read could see a later state).
      const offline = await until(
        'the broker to find the service offline',
        () => statusOf(page),
        (status) => status.connectivity.state === 'offline',
        20_000,
      );
      // The same broker all along: the tab was not moved to another (which would start online, knowing nothing).
      expect(offline.brokerId, JSON.stringify(offline.connectivity)).toBe(brokerId);
      expect(offline.session.status).toBe('signed-in');
      expect(offline.connectivity.diagnostics?.health.reachable, JSON.stringify(offline.connectivity)).toBe(false);
      // Offline is known either from a failed request or from the browser itself (Chromium tells the tab).
      expect(offline.connectivity.lastError !== null || offline.connectivity.browserOnline === false).toBe(true);
      // The page says so in words, with what the broker found when it probed.
      await waitForText(page, T.offlineDiagnostics, /Health check .*no answer/);
      await waitForText(page, T.offlineBanner, /offline|does not answer/);
      for (const worker of workers) await worker.setOffline(false);
      await until(
        'the broker back online',
        () => statusOf(page),
        (status) => status.connectivity.state === 'online',
        30_000,
      );
      expect(await pendingRead).toBe(DEMO.email);
      expect((await page.evaluate(() => window.__authbroker.status())).session.status).toBe('signed-in');
      await waitForGone(page, T.offlineBanner);
    },
  );

  scenario('10. close every tab, open a new one: the session is restored from IndexedDB', async (stage) => {
    const context = await stage.newContext();
    const first = await stage.openTab(context);
    await first.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
    const before = await first.evaluate(() => window.__authbroker.status());
    await first.close();
    // Closing the last tab ends the SharedWorker; wait until it is really gone.
    for (let i = 0; i < 50 && (await stage.sharedWorkerCount()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await stage.sharedWorkerCount()).toBe(0);
    const again = await stage.openTab(context);
    const user = await again.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
    expect(user?.primaryEmail).toBe(DEMO.email);
    const after = await again.evaluate(() => window.__authbroker.status());
    expect(after.brokerId).not.toBe(before.brokerId);
    expect(after.session.status).toBe('signed-in');
  });
});
