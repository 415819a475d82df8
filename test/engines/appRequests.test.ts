import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { createAppApi, type AppApi } from '../support/appApi.js';
import { setServiceReachable } from '../support/emulator.js';
import type { EngineStage } from './support/stage.js';
import { inEveryEngine, waitInTab } from './support/stage.js';
import { signIn, waitForConnected } from './support/probes.js';

/**
 * The broker carries the app's own requests (issue 43), in Chromium, Firefox and WebKit, on the demo's production build
 * with an API of its own on the demo's origin (test/support/appApi.ts): `client.fetch` from three tabs after the token
 * expired (one token request); writes made in three tabs during an outage, applied once each, in order, soon after it
 * ends; and, with the service worker attaching tokens, the page's own fetch carrying one while the page is given none.
 */
let current: AppApi | null = null;
const api = (request: IncomingMessage, response: ServerResponse) => current?.handle(request, response) ?? false;
const ELEVEN_MINUTES = 11 * 60 * 1000;

function startApi(stage: EngineStage, now?: () => number): AppApi {
  current = createAppApi({
    baseUrl: stage.emulator.url,
    projectId: stage.emulator.projects.demo.id,
    ...(now === undefined ? {} : { now }),
  });
  return current;
}

inEveryEngine((scenario) => {
  scenario(
    '3 tabs × 10 client.fetch calls right after the token expired: one token request, every call answered once',
    async (stage) => {
      const app = startApi(stage, () => stage.emulator.env.clock.now());
      const profile = await stage.newProfile();
      const tabs = [await stage.openApp(profile), await stage.openApp(profile), await stage.openApp(profile)];
      await signIn(tabs[0]!);
      for (const tab of tabs)
        expect(await tab.evaluate(async () => (await window.__authbroker.fetch('/api/whoami')).status, null)).toBe(200);
      stage.emulator.env.stats.reset();
      app.arrivals.length = 0;
      stage.emulator.env.clock.advance(ELEVEN_MINUTES);
      const statuses = await Promise.all(
        tabs.map((tab, t) =>
          tab.evaluate(
            (t) =>
              Promise.all(
                Array.from(
                  { length: 10 },
                  async (_, i) =>
                    (await window.__authbroker.fetch('/api/whoami', { headers: { 'x-call': `${t}-${i}` } })).status,
                ),
              ),
            t,
          ),
        ),
      );
      expect(statuses.flat()).toEqual(Array(30).fill(200));
      expect(stage.emulator.env.stats.snapshot().token_refreshes).toBe(1);
      const answered = app.arrivals.filter((a) => a.status === 200).map((a) => a.call);
      expect(new Set(answered).size).toBe(30);
      expect(answered).toHaveLength(30);
    },
    { api },
  );

  scenario(
    '10 writes made in 3 tabs during an outage: applied once each, in order, when it ends (time in bench 14)',
    async (stage) => {
      const app = startApi(stage);
      const profile = await stage.newProfile();
      const tabs = [];
      for (let i = 0; i < 3; i++) tabs.push(await stage.openApp(profile, '/notes?offlineWrites=1'));
      await signIn(tabs[0]!);
      await setServiceReachable(stage.emulator, false);
      app.reachable = false;
      // Each write is handed to the broker from its tab; the tabs wait for its answer in the page.
      for (let i = 1; i <= 10; i++) {
        await tabs[i % 3]!.evaluate((i) => {
          const w = window as unknown as { writes?: Array<Promise<number>> };
          (w.writes ??= []).push(
            window.__authbroker
              .fetch('/api/notes/today', { method: 'PUT', body: `v${i}` }, { queue: { idempotencyKey: `w-${i}` } })
              .then((response) => response.status),
          );
        }, i);
        await waitInTab(
          tabs[0]!,
          `write ${i} kept`,
          async (i) => (await window.__authbroker.read({ kind: 'pendingChanges' })).length === i,
          i,
        );
      }
      app.reachable = true;
      await setServiceReachable(stage.emulator, true);
      const back = Date.now();
      for (const tab of tabs) {
        const statuses = await tab.evaluate(
          () => Promise.all((window as unknown as { writes?: Array<Promise<number>> }).writes ?? []),
          null,
        );
        expect(statuses.every((status) => status === 200)).toBe(true);
      }
      const tookMillis = Date.now() - back;
      expect(app.applied.map((w) => w.key)).toEqual(Array.from({ length: 10 }, (_, i) => `w-${i + 1}`));
      console.log(`${stage.engine.name}: 10 kept writes applied within ${tookMillis} ms of the service's return`);
    },
    { api },
  );

  scenario(
    "with the service worker attaching tokens, the page's fetch carries one and the page is given none",
    async (stage) => {
      const app = startApi(stage);
      const profile = await stage.newProfile();
      const tab = await stage.openApp(profile, '/?attach=worker&connectTimeout=20000');
      await tab.evaluate(() => window.__authbroker.connect().then(() => undefined), null);
      expect(await waitForConnected(tab)).toMatchObject({ mode: 'service-worker' });
      await signIn(tab);
      const plain = await tab.evaluate(async () => (await fetch('/api/whoami')).status, null);
      expect(plain).toBe(200);
      expect(app.arrivals.at(-1)).toMatchObject({ path: '/api/whoami', tokenHeader: 'authorization' });
      const given = await tab.evaluate(async () => {
        const asked = await Promise.all(
          [() => window.__authbroker.getAccessToken(), () => window.__authbroker.getAuthHeaders()].map((ask) =>
            ask().then(
              (value) => JSON.stringify(value),
              (error: { code?: string }) => error.code,
            ),
          ),
        );
        const stored = JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie]);
        return { asked, jwtStored: /eyJ[\w-]+\.[\w-]+\.[\w-]+/.test(stored) };
      }, null);
      expect(given).toEqual({ asked: ['TOKEN_WITHHELD', 'TOKEN_WITHHELD'], jwtStored: false });
    },
    { api },
  );
});
