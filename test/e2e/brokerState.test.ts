import { describe, expect } from 'vitest';
import { BROKER_IDLE_MILLIS, MAX_BROKERS_PER_WORKER } from '../../worker/hosts/brokerRegistry.js';
import { LOCKLESS_CHECK_MILLIS, TAB_PING_TIMEOUT_MILLIS } from '../../worker/tabs/liveness.js';
import { scenario, type Stage } from './support/scenario.js';
import { installHostileKit, type Reply } from './support/hostile.js';
import { BLANK_PAGE_PATH } from './support/server.js';
import { DEMO, until, waitForSignedIn } from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

/**
 * What a page of the origin can make the broker's worker build and keep (issue 32, items 2 and 3; issue 39, item 1):
 * the app's worker, named for its config, serves no other; brokers a page made in a worker of its own go when it does,
 * at most MAX_BROKERS_PER_WORKER at once; and a broker it started with options of its own refuses the app's tabs,
 * naming the option, rather than serving them with its options or sending them to a weaker host.
 */

/** The SharedWorker script's URL, as any page of the origin can learn it: from a throwaway context's tab. */
async function workerScriptUrl(stage: Stage): Promise<string> {
  const scratch = await stage.newContext();
  await stage.openTab(scratch);
  const { targetInfos } = await (await stage.cdp()).send('Target.getTargets');
  const url = targetInfos.find((t) => t.type === 'shared_worker' && t.url.startsWith(stage.demo.url))!.url;
  await scratch.close();
  return url;
}

/** The locks of the origin, held and waited for, by name (what `navigator.locks.query()` tells any page). */
function lockNames(page: import('playwright-core').Page): Promise<{ held: string[]; pending: string[] }> {
  return page.evaluate(async () => {
    const { held = [], pending = [] } = await navigator.locks.query();
    return { held: held.map((lock) => lock.name!).sort(), pending: pending.map((lock) => lock.name!).sort() };
  });
}

/**
 * From now on, the target id and URL of every SharedWorker of the demo's origin the browser has run (those running now
 * included).
 */
async function sharedWorkersStarted(stage: Stage): Promise<Set<string>> {
  const cdp = await stage.cdp();
  const started = new Set<string>();
  cdp.on('Target.targetCreated', ({ targetInfo }) => {
    if (targetInfo.type === 'shared_worker' && targetInfo.url.startsWith(stage.demo.url))
      started.add(`${targetInfo.targetId} ${targetInfo.url}`);
  });
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  return started;
}

describe('what a page makes the broker keep', () => {
  scenario(
    `a page cannot make brokers in the app's worker; with ${MAX_BROKERS_PER_WORKER} made-up configs held in a worker it named itself, the app's tabs are served; those brokers are freed once it leaves (issue 39, item 1)`,
    async (stage) => {
      const context = await stage.newContext();
      const app = await stage.openTab(context);
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await waitForSignedIn(app, DEMO.email);
      const script = await workerScriptUrl(stage);
      // A page of the origin without the app.
      const hostile = await context.newPage();
      await hostile.goto(`${stage.demo.url}${BLANK_PAGE_PATH}`);
      await installHostileKit(hostile, script);
      const brokerLocks = async () =>
        (await lockNames(app)).held.filter((name) => name.startsWith('authbroker:broker:')).length;
      const baseline = await brokerLocks();

      // One broker per project it names, asked of the app's worker (before: it got all of the worker's slots but the
      // app's, and once no app tab was open for 10 s, every new app tab was refused).
      const refusals = await hostile.evaluate(async (count) => {
        await new Promise<void>(
          (held) => void navigator.locks.request('hostile-life', () => (held(), new Promise(() => undefined))),
        );
        const answers: Array<number | Reply> = [];
        for (let i = 0; i < count; i++)
          answers.push(
            await window.__hostile.connectAs(
              { projectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` },
              { lockName: 'hostile-life' },
              'app',
            ),
          );
        return answers;
      }, MAX_BROKERS_PER_WORKER + 2);
      for (const reply of refusals as Reply[]) {
        expect(reply).toMatchObject({ type: 'HANDLER', value: { authbroker: { code: 'BROKER_UNAVAILABLE' } } });
        expect(JSON.stringify(reply)).toMatch(/name binds it to another project or service/);
      }
      expect(await brokerLocks()).toBe(baseline);

      // A worker of a name of its own serves made-up configs, at most MAX_BROKERS_PER_WORKER. Its connections name no
      // lock: only asking them tells the broker that they are gone. A second page of the origin keeps that worker
      // running after the first leaves (a worker with no page left is ended by the browser, brokers and all).
      const keeper = await context.newPage();
      await keeper.goto(`${stage.demo.url}${BLANK_PAGE_PATH}`);
      await keeper.evaluate((url) => {
        (window as unknown as { kept: unknown }).kept = new SharedWorker(url, { type: 'module', name: 'hostile-own' });
      }, script);
      const own = await hostile.evaluate(async (count) => {
        const answers: Array<number | Reply> = [];
        for (let i = 0; i < count; i++)
          answers.push(
            await window.__hostile.connectAs(
              { projectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` },
              {},
              { name: 'hostile-own' },
            ),
          );
        return answers;
      }, MAX_BROKERS_PER_WORKER + 1);
      expect(own.slice(0, MAX_BROKERS_PER_WORKER).every((reply) => typeof reply === 'number')).toBe(true);
      expect(JSON.stringify(own.at(-1))).toMatch(/This worker already serves/);
      expect(await brokerLocks()).toBe(baseline + MAX_BROKERS_PER_WORKER);

      // The app's tabs are served meanwhile, and a new one connects to the app's worker.
      const second = await stage.openTab(context);
      await waitForSignedIn(second, DEMO.email);
      // Shown from the kept copy first: the connection comes after the first frame.
      expect(await second.evaluate(() => window.__authbroker.connect().then((client) => client.mode))).toBe(
        'shared-worker',
      );

      await hostile.close();
      const leftAt = Date.now();
      // Its connections are asked within a period of the lock-less check, found gone 5 s later, and their brokers freed
      // 10 s after that (before: asked again only when a new tab connected to that worker, so never).
      await until(
        "the page's brokers to be freed",
        brokerLocks,
        (count) => count === baseline,
        LOCKLESS_CHECK_MILLIS + TAB_PING_TIMEOUT_MILLIS + BROKER_IDLE_MILLIS + 15_000,
      );
      console.log(
        `[broker state] the page's ${MAX_BROKERS_PER_WORKER} brokers freed ${((Date.now() - leftAt) / 1000).toFixed(1)} s after it left`,
      );
      expect((await app.evaluate(() => window.__authbroker.status())).session).toMatchObject({ status: 'signed-in' });
      await keeper.close();
    },
    { timeout: 120_000 },
  );

  scenario(
    'tokens in memory: a tab that connects while the broker is busy ends on its session, not on a second instance without one (issue 32, item 5)',
    async (stage) => {
      const context = await stage.newContext();
      const first = await stage.openTab(context, '/?tokens=memory');
      await first.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await waitForSignedIn(first, DEMO.email);
      const held = await first.evaluate(() => window.__authbroker.status());
      // The broker's thread held, as a page's big messages (a million keys each, which the browser reads
      // before any of our code runs) or a slow device hold it: here the debugger pauses it at its next
      // statement, so that it is held on every machine for exactly as long as the test needs.
      const worker = await WorkerTarget.attach(await stage.cdp(), stage.demo.url);
      await worker.send('Debugger.enable');
      await worker.send('Debugger.pause');
      // A tab opening meanwhile: its first attempt goes unanswered for more than a second, and its retry
      // starts a second instance (`…#2`), which has no session (before: the tab stayed there, signed out).
      const started = await sharedWorkersStarted(stage);
      // The thread stays held until the tab has heard STANDBY from each instance its retries started
      // (its three attempts: 1 s, then at once after each STANDBY). Before the fix, the second instance
      // served the tab with no session and no third was started.
      const opening = stage.openTab(context, '/?tokens=memory');
      await until(
        'the tab to start three instances',
        async () => started.size,
        (count) => count >= 3,
        15_000,
      );
      await worker.send('Debugger.resume');
      const second = await opening;
      await waitForSignedIn(second, DEMO.email, 30_000);
      const status = await second.evaluate(() => window.__authbroker.status());
      expect(status.brokerId).toBe(held.brokerId);
      // One session: a sign-out in the new tab is one in the first.
      await second.evaluate(() => window.__authbroker.signOut());
      await until(
        'the first tab to be signed out',
        () => first.evaluate(() => window.__authbroker.status()),
        (s) => s.session.status === 'signed-out',
      );
    },
    { timeout: 120_000 },
  );

  scenario(
    'a page that started the broker with options of its own (and the service worker too): the app is refused, naming the option, never hosted in the page; once the page is gone, the app connects',
    async (stage) => {
      const context = await stage.newContext();
      const hostile = await context.newPage();
      await hostile.goto(`${stage.demo.url}${BLANK_PAGE_PATH}`);
      await installHostileKit(hostile, await workerScriptUrl(stage));
      // The app's project, service and token store, another key: the broker every tab of the app would share.
      const squat = { publishableClientKey: 'pck_not_the_apps_key_0123456789' };
      const taken = await hostile.evaluate(async (changes) => {
        await new Promise<void>(
          (held) => void navigator.locks.request('hostile-life', () => (held(), new Promise(() => undefined))),
        );
        return [
          await window.__hostile.connectAs(changes, { lockName: 'hostile-life' }),
          await window.__hostile.connectAs(changes, { lockName: 'hostile-life' }, 'service-worker'),
        ];
      }, squat);
      expect(taken).toEqual([0, 1]);

      const app = await context.newPage();
      await app.goto(stage.demo.url);
      await app.waitForFunction(() => window.__authbroker !== undefined);
      const error = await app.evaluate(() =>
        window.__authbroker.connect().then(
          () => null,
          (e: { code?: string; argument?: string; message?: string }) => ({
            code: e.code,
            argument: e.argument,
            message: e.message,
          }),
        ),
      );
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'config.publishableClientKey' });
      expect(error!.message).not.toContain('pck_not_the_apps_key_0123456789');
      // Before: refused by both workers, it hosted the broker in the page (with tokens in memory, sharing the refresh
      // token over BroadcastChannel).
      expect(
        await app.evaluate(() => ({
          mode: window.__authbroker.mode,
          connected: performance.getEntriesByName('authbroker:connected').length,
        })),
      ).toEqual({ mode: null, connected: 0 });

      await hostile.close();
      // Its connections are released and its broker freed; the app's next try gets a broker of its own options.
      const mode = await until(
        'the app to connect once the page has gone',
        () =>
          app.evaluate(() =>
            window.__authbroker.connect().then(
              (client) => client.mode,
              () => null,
            ),
          ),
        (connected) => connected !== null,
        30_000,
      );
      expect(mode).toBe('shared-worker');
      await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      expect(await app.evaluate(() => window.__authbroker.getAccessToken())).toMatch(/^ey/);
    },
    { timeout: 120_000 },
  );
});
