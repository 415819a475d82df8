/**
 * Tokens the page never holds (issue 43, item 2), in Chromium: with `appRequests.attachInServiceWorker` the service
 * worker attaches the user's token to the page's own `fetch` calls, and a script in the page that calls every public
 * method of the client and reads every storage of the origin finds no access token, while the app's calls carry one.
 * Navigations and requests before the worker controls the page go without.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { createAppApi, type AppApi } from '../support/appApi.js';
import { scenario } from './support/scenario.js';
import { DEMO } from './support/ui.js';

let current: AppApi | null = null;
const withApi = {
  demo: { api: (request: IncomingMessage, response: ServerResponse) => current?.handle(request, response) ?? false },
};

/** What a script injected into the page can reach: every method of the client called, every storage read. */
async function everythingAPageCanRead(page: import('playwright-core').Page): Promise<string> {
  return page.evaluate(async () => {
    const found: unknown[] = [];
    const client = window.__authbroker as unknown as Record<string, unknown>;
    // Nothing that ends the session or changes the account: the rest, with no arguments or the harmless ones.
    const skip = new Set(['signOut', 'deleteUser', 'adminSignOut', 'adminDeleteProject', 'close', 'navigate']);
    const names = new Set<string>();
    for (let o: object | null = client; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o))
      for (const name of Object.getOwnPropertyNames(o)) names.add(name);
    for (const name of names) {
      if (skip.has(name) || typeof client[name] !== 'function') continue;
      const query = { kind: 'currentUser' };
      const call = () =>
        (client[name] as (...args: unknown[]) => unknown)(...(name === 'subscribe' ? [query, () => 0] : [query]));
      try {
        found.push(name, await Promise.race([call(), new Promise((resolve) => setTimeout(resolve, 2000, 'pending'))]));
      } catch (error) {
        found.push(name, (error as { code?: string }).code ?? String(error));
      }
    }
    for (const kind of ['session', 'currentUser', 'partialUser', 'status', 'pendingChanges'] as const)
      found.push(kind, await window.__authbroker.read({ kind } as never).catch(String));
    found.push({ ...localStorage }, { ...sessionStorage }, document.cookie);
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of db.objectStoreNames) {
        const all = await new Promise((resolve) => {
          const request = db.transaction(store).objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result);
        });
        found.push(name, store, all);
      }
      db.close();
    }
    for (const key of await caches.keys()) found.push(key);
    return JSON.stringify(found, (_key, value: unknown) => (value instanceof Uint8Array ? [...value] : value));
  });
}

describe('tokens the page never holds', () => {
  scenario(
    "with the service worker attaching tokens, the page's own requests carry one and no script in the page finds one",
    async (stage) => {
      const api = (current = createAppApi({
        baseUrl: stage.emulator.url,
        projectId: stage.emulator.projects.demo.id,
      }));
      const page = await stage.openTab(await stage.newContext(), '/?attach=worker&connectTimeout=20000');
      await page.evaluate(() => window.__authbroker.connect());
      // The worker took the page as it connected: its requests reach the worker from now on.
      expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
      expect(await page.evaluate(() => window.__authbroker.mode)).toBe('service-worker');
      await page.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);

      // The app's plain fetch, and client.fetch, carry the user's token: the worker attached it.
      const plain = await page.evaluate(async () => (await fetch('/api/whoami')).json());
      expect(plain).toMatchObject({ userId: expect.any(String), tokenHeader: 'authorization' });
      expect(await page.evaluate(async () => (await window.__authbroker.fetch('/api/whoami')).status)).toBe(200);
      const token = api.arrivals.at(-1)!;
      expect(token.userId).toBe((plain as { userId: string }).userId);

      // Every way of asking for a token is refused.
      for (const method of ['getAccessToken', 'getAuthHeaders'] as const)
        expect(
          await page.evaluate(
            (m) =>
              (window.__authbroker[m] as () => Promise<unknown>)().then(
                () => 'given',
                (error: { code?: string }) => error.code,
              ),
            method,
          ),
        ).toBe('TOKEN_WITHHELD');
      const seen = await everythingAPageCanRead(page);
      // An access token is a JWT: three base64url parts, the first `eyJ`.
      expect(seen.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g) ?? []).toEqual([]);
      expect(seen).toContain('TOKEN_WITHHELD');

      // A navigation is never given one (another site could start it): the API sees none.
      api.arrivals.length = 0;
      await page.goto(`${stage.demo.url}/api/whoami`);
      expect(api.arrivals).toMatchObject([{ path: '/api/whoami', tokenHeader: null, status: 401 }]);
    },
    { ...withApi, timeout: 120_000 },
  );
});
