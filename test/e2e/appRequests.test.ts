/**
 * The broker carries the app's own requests (issue 43), in Chromium, on the demo's production build with an API of the
 * app's own on the demo's origin (test/support/appApi.ts, which checks tokens with authbroker/server): `client.fetch`
 * from 20 tabs right after the token expired, streaming and aborting, origins refused; writes made during an outage in
 * three tabs, applied once each, in order, soon after the service returns; sign-out with writes waiting.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import type { PendingChange } from '../../contract/appRequests.js';
import { createAppApi, type AppApi } from '../support/appApi.js';
import { setServiceReachable } from '../support/emulator.js';
import { scenario, type Stage } from './support/scenario.js';
import { DEMO, ELEVEN_MINUTES, until } from './support/ui.js';

/** The API of the scenario running now (the demo's server is made before the emulator's keys are known). */
let current: AppApi | null = null;
const api = () => current!;
const withApi = {
  demo: { api: (request: IncomingMessage, response: ServerResponse) => current?.handle(request, response) ?? false },
};

function startApi(stage: Stage): AppApi {
  current = createAppApi({
    baseUrl: stage.emulator.url,
    projectId: stage.emulator.projects.demo.id,
    now: () => stage.emulator.env.clock.now(),
  });
  return current;
}

const pendingIn = (page: import('playwright-core').Page) =>
  page.evaluate(() => window.__authbroker.read({ kind: 'pendingChanges' }) as Promise<PendingChange[]>);

describe("the app's own requests", () => {
  scenario(
    '20 tabs × 10 client.fetch calls right after the access token expired: one token request, 200 answers, none twice',
    async (stage) => {
      startApi(stage);
      const context = await stage.newContext();
      const tabs: import('playwright-core').Page[] = [];
      for (let i = 0; i < 20; i++) tabs.push(await stage.openTab(context));
      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      // Every tab has called the API once: each keeps the token it was given.
      for (const tab of tabs)
        expect(await tab.evaluate(async () => (await window.__authbroker.fetch('/api/whoami')).status)).toBe(200);
      stage.emulator.env.stats.reset();
      api().arrivals.length = 0;
      // The token has expired (for the service and the app's API alike, which read the emulator's clock).
      stage.emulator.env.clock.advance(ELEVEN_MINUTES);
      const statuses = await Promise.all(
        tabs.map((tab, t) =>
          tab.evaluate(
            (t) =>
              Promise.all(
                Array.from({ length: 10 }, async (_, i) => {
                  const response = await window.__authbroker.fetch('/api/whoami', {
                    headers: { 'x-call': `${t}-${i}` },
                  });
                  return response.status;
                }),
              ),
            t,
          ),
        ),
      );
      expect(statuses.flat()).toEqual(Array(200).fill(200));
      expect(stage.emulator.env.stats.snapshot().token_refreshes).toBe(1);
      const answered = api()
        .arrivals.filter((a) => a.status === 200)
        .map((a) => a.call);
      expect(answered).toHaveLength(200);
      expect(new Set(answered).size).toBe(200);
      // Each call was refused once with the old token, and sent once more with the new one.
      expect(api().arrivals.filter((a) => a.status === 401)).toHaveLength(200);
      expect(api().arrivals.every((a) => a.tokenHeader === 'authorization')).toBe(true);
    },
    { ...withApi, timeout: 150_000 },
  );

  scenario(
    'client.fetch streams the answer, stops on its signal, and refuses origins the app did not allow',
    async (stage) => {
      startApi(stage);
      const page = await stage.openTab(await stage.newContext());
      await page.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      const stream = await page.evaluate(async () => {
        const response = await window.__authbroker.fetch('/api/stream');
        const reader = response.body!.getReader();
        const chunks: string[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return chunks;
          chunks.push(new TextDecoder().decode(value));
        }
      });
      // The answer came in several reads, as the server wrote it.
      expect(stream.length).toBeGreaterThan(1);
      expect(stream.join('')).toBe('chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n');
      const echoed = await page.evaluate(async () =>
        (await window.__authbroker.fetch('/api/echo', { method: 'POST', body: new Blob(['a body']) })).text(),
      );
      expect(echoed).toBe('a body');
      const aborted = await page.evaluate(async () => {
        const controller = new AbortController();
        const response = await window.__authbroker.fetch('/api/stream', { signal: controller.signal });
        const reader = response.body!.getReader();
        await reader.read();
        controller.abort();
        return reader.read().then(
          () => 'read on',
          (error: Error) => error.name,
        );
      });
      expect(aborted).toBe('AbortError');
      api().arrivals.length = 0;
      const refused = await page.evaluate(() =>
        window.__authbroker.fetch('https://api.example.com/x').then(
          () => 'sent',
          (error: { code?: string }) => error.code,
        ),
      );
      expect(refused).toBe('ORIGIN_NOT_ALLOWED');
      // Signed out: sent without a token, or refused when the call needs a user.
      await page.evaluate(() => window.__authbroker.signOut());
      expect(await page.evaluate(async () => (await window.__authbroker.fetch('/api/whoami')).status)).toBe(401);
      expect(
        await page.evaluate(() =>
          window.__authbroker.fetch('/api/whoami', undefined, { requireUser: true }).then(
            () => 'sent',
            (error: { code?: string }) => error.code,
          ),
        ),
      ).toBe('NOT_SIGNED_IN');
      expect(api().arrivals.map((a) => a.tokenHeader)).toEqual([null]);
    },
    withApi,
  );

  scenario(
    '10 writes made in 3 tabs during an outage: shown in every tab, applied once each, in order, when it ends (time in bench 14)',
    async (stage) => {
      startApi(stage);
      const context = await stage.newContext();
      const tabs: import('playwright-core').Page[] = [];
      for (let i = 0; i < 3; i++) tabs.push(await stage.openTab(context, '/notes?offlineWrites=1'));
      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await setServiceReachable(stage.emulator, false);
      api().reachable = false;
      const writes: Array<Promise<number>> = [];
      for (let i = 1; i <= 10; i++) {
        const tab = tabs[i % 3]!;
        writes.push(
          tab.evaluate(
            async (i) =>
              (
                await window.__authbroker.fetch(
                  '/api/notes/today',
                  { method: 'PUT', body: `version ${i}` },
                  { queue: { idempotencyKey: `write-${i}` } },
                )
              ).status,
            i,
          ),
        );
        await until(
          `write ${i} to be kept`,
          () => pendingIn(tabs[0]!),
          (pending) => pending.length === i,
        );
      }
      for (const tab of tabs) expect((await pendingIn(tab)).map((c) => c.state)).toEqual(Array(10).fill('waiting'));
      api().reachable = true;
      await setServiceReachable(stage.emulator, true);
      const back = Date.now();
      expect(await Promise.all(writes)).toEqual(Array(10).fill(200));
      const tookMillis = Date.now() - back;
      expect(api().applied.map((w) => w.key)).toEqual(Array.from({ length: 10 }, (_, i) => `write-${i + 1}`));
      for (const tab of tabs)
        await until(
          'the list to empty',
          () => pendingIn(tab),
          (pending) => pending.length === 0,
        );
      const puts = api().arrivals.filter((a) => a.method === 'PUT' && a.atMillis >= back);
      console.log(
        `10 kept writes applied ${tookMillis} ms after the service returned; PUTs arrived at ${puts.map((a) => a.atMillis - back).join(', ')} ms`,
      );
    },
    withApi,
  );

  scenario(
    'signing out with writes waiting drops them, and every tab is told; nothing is sent',
    async (stage) => {
      startApi(stage);
      const context = await stage.newContext();
      const tabs = [
        await stage.openTab(context, '/?offlineWrites=1'),
        await stage.openTab(context, '/?offlineWrites=1'),
      ];
      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      await setServiceReachable(stage.emulator, false);
      const kept = tabs[1]!.evaluate(() =>
        window.__authbroker.updateUser({ displayName: 'Never saved' }).then(
          () => 'saved',
          (error: { code?: string }) => error.code,
        ),
      );
      await until(
        'the write to be kept',
        () => pendingIn(tabs[0]!),
        (pending) => pending.length === 1,
      );
      await tabs[0]!.evaluate(() => window.__authbroker.signOut());
      for (const tab of tabs) {
        const [dropped] = await until(
          'the write to be dropped',
          () => pendingIn(tab),
          (pending) => pending[0]?.state === 'dropped',
        );
        expect(dropped!.error?.code).toBe('WRITE_DROPPED');
      }
      expect(await kept).toBe('WRITE_DROPPED');
      stage.emulator.env.stats.reset();
      await setServiceReachable(stage.emulator, true);
      expect(stage.emulator.env.stats.snapshot().writes.by_route['PATCH /users/me']).toBeUndefined();
    },
    withApi,
  );
});
