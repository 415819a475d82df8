import { describe, expect } from 'vitest';
import { scenario, type Stage } from './support/scenario.js';
import { byTestId, T, until, waitForNewBroker, waitForSignedIn } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

/** Kills the demo's SharedWorker, as the browser's task manager does. */
async function killSharedWorker(stage: Stage): Promise<void> {
  const cdp = await stage.cdp();
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'shared_worker' && t.url.startsWith(stage.demo.url))!;
  await cdp.send('Target.closeTarget', { targetId: worker.targetId });
}

describe('tabs share one broker', () => {
  scenario('1. three tabs share one broker (exactly one shared_worker target)', async (stage) => {
    const context = await stage.newContext();
    const tabs = [await stage.openTab(context), await stage.openTab(context), await stage.openTab(context)];
    const modes = await Promise.all(
      tabs.map((page) => page.evaluate(async () => (await window.__authbroker.connect()).mode)),
    );
    expect(modes).toEqual(['shared-worker', 'shared-worker', 'shared-worker']);
    expect(await stage.sharedWorkerCount()).toBe(1);
    const status = await tabs[2]!.evaluate(() => window.__authbroker.status());
    expect(status.tabsConnected).toBe(3);
    expect(status.mode).toBe('shared-worker');

    // The worker runs under its own CSP (script-src 'self'): no string becomes code inside the broker.
    const worker = await WorkerTarget.attach(await stage.cdp(), stage.demo.url);
    const probe = (expression: string) =>
      worker.send<{ result: { value: unknown } }>('Runtime.evaluate', {
        expression,
        returnByValue: true,
        allowUnsafeEvalBlockedByCSP: false,
      });
    const evaluated = await probe(
      "(() => { const out = []; for (const attempt of [() => eval('1 + 1'), () => new Function('return 2')()]) { try { out.push(String(attempt())); } catch (e) { out.push(e.name); } } return out; })()",
    );
    expect(evaluated.result.value).toEqual(['EvalError', 'EvalError']);
    // …and the broker still works under it (the tabs above connected through it).
    expect(await tabs[0]!.evaluate(async () => (await window.__authbroker.status()).tabsConnected)).toBe(3);
  });

  scenario('2. sign in in tab 1: tabs 2 and 3 show the user without reload', async (stage) => {
    const context = await stage.newContext();
    const tabs = [await stage.openTab(context), await stage.openTab(context), await stage.openTab(context)];
    const result = await tabs[0]!.evaluate(() =>
      window.__authbroker.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' }),
    );
    expect(result.status).toBe('signed-in');
    for (const page of tabs.slice(1)) {
      await page.waitForFunction(() => document.body.textContent?.includes('demo@authbroker.dev'), null, {
        timeout: 10_000,
      });
      // …and it is the nav's current-user element that shows it, not some other text on the page.
      expect(await waitForSignedIn(page, 'demo@authbroker.dev')).toBe('demo@authbroker.dev');
      expect(await byTestId(page, T.currentUserEmail).count()).toBe(1);
    }
    const navigations = await Promise.all(
      tabs.map((page) => page.evaluate(() => performance.getEntriesByType('navigation').length)),
    );
    expect(navigations).toEqual([1, 1, 1]);
  });

  scenario(
    '2b. the SharedWorker killed under open tabs: they start a new one and carry on, signed in, nothing hangs',
    async (stage) => {
      const context = await stage.newContext();
      const tabs = [await stage.openTab(context), await stage.openTab(context)];
      await tabs[0]!.evaluate(() =>
        window.__authbroker.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' }),
      );
      await tabs[1]!.waitForFunction(() => document.body.textContent?.includes('demo@authbroker.dev'), null, {
        timeout: 10_000,
      });
      const before = await tabs[0]!.evaluate(async () => (await window.__authbroker.status()).brokerId);

      await killSharedWorker(stage);

      for (const page of tabs) await waitForNewBroker(page, before);
      expect(await stage.sharedWorkerCount()).toBe(1);
      expect((await tabs[0]!.evaluate(() => window.__authbroker.status())).tabsConnected).toBe(2);
      await tabs[0]!.evaluate(() => window.__authbroker.updateUser({ displayName: 'After the restart' }));
      await tabs[1]!.waitForFunction(() => document.body.textContent?.includes('After the restart'), null, {
        timeout: 10_000,
      });
    },
  );

  scenario(
    '2c. a SharedWorker that lingers after its last tab closed (DevTools attached): a new tab starts a fresh one within about a second, signed in, never the 8 s wait and the service worker',
    async (stage) => {
      const context = await stage.newContext();
      const first = await stage.openTab(context);
      await first.evaluate(() =>
        window.__authbroker.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' }),
      );
      // DevTools attached to the worker, as a developer inspecting it would be.
      const cdp = await stage.cdp();
      const { targetInfos } = await cdp.send('Target.getTargets');
      const worker = targetInfos.find((t) => t.type === 'shared_worker' && t.url.startsWith(stage.demo.url))!;
      await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
      await first.close();

      const again = await stage.openTab(context);
      const connected = await again.evaluate(async () => {
        await window.__authbroker.connect();
        const mark = performance.getEntriesByName('authbroker:connected')[0] as PerformanceMark;
        return { ...(mark.detail as { mode: string; attempts: number; fallbacks: number }), millis: mark.startTime };
      });
      expect(connected).toMatchObject({ mode: 'shared-worker', attempts: 2, fallbacks: 0 });
      expect(connected.millis).toBeLessThan(4000);
      const status = await again.evaluate(() => window.__authbroker.status());
      expect(status).toMatchObject({ mode: 'shared-worker', warnings: [], session: { status: 'signed-in' } });
    },
  );

  scenario(
    '2d. a refetch the killed SharedWorker never answered is asked again of the next one, and answered: the page never sees the loss',
    async (stage) => {
      const context = await stage.newContext();
      const tab = await stage.openTab(context);
      await tab.evaluate(() =>
        window.__authbroker.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' }),
      );
      const before = await tab.evaluate(async () => (await window.__authbroker.status()).brokerId);

      // The broker is still serving the refetch when it is killed: its request to the service is held a while.
      const [held] = stage.emulator.env.faults.add([
        { path: '/api/v1/users/me', method: 'GET', count: 1, effect: { type: 'latency', ms: 4000 } },
      ]);
      const refetch = tab.evaluate(() =>
        window.__authbroker.refetch({ kind: 'currentUser' }).then(
          () => 'answered',
          (error: { code?: string; message?: string }) => `failed: ${error.code} ${error.message}`,
        ),
      );
      await until(
        'the held refetch to reach the service',
        async () => stage.emulator.env.faults.list().find((rule) => rule.id === held!.id)?.injected,
        (injected) => injected === 1,
      );
      await killSharedWorker(stage);

      await waitForNewBroker(tab, before);
      expect(await refetch).toBe('answered');
    },
  );
});
