import { expect } from 'vitest';
import type { EngineTab } from './support/engine.js';
import { signIn, signOut, status, waitForConnected, waitForSignedIn, waitForSignedOut } from './support/probes.js';
import { inEveryEngine } from './support/stage.js';

/**
 * The lesser hosts, in every engine, with the APIs they stand in for removed before the app loads
 * (a page script from the origin, since WebDriver classic has no init scripts): the service-worker
 * host where there is no SharedWorker, the in-page host where there is no worker at all. Two tabs
 * share sign-in and sign-out in each.
 */
const WITHOUT_SHARED_WORKER = 'delete window.SharedWorker;';
const WITHOUT_ANY_WORKER = `${WITHOUT_SHARED_WORKER}\nObject.defineProperty(navigator, 'serviceWorker', { value: undefined, configurable: true });`;

async function sharesSignInAndOut(tabs: readonly [EngineTab, EngineTab]): Promise<void> {
  await signIn(tabs[0]);
  await waitForSignedIn(tabs[1]);
  await signOut(tabs[1]);
  await waitForSignedOut(tabs[0]);
}

inEveryEngine((scenario) => {
  scenario(
    'no SharedWorker: two tabs share one broker in the service worker, and sign-in and sign-out',
    async (stage) => {
      const profile = await stage.newProfile();
      // The first service worker of a fresh profile once took WebKit over the 8 s default to install
      // and activate in CI (the tab then fell back to the in-page host, as it should): this checks the
      // host and the sharing, so it gives the worker longer to start.
      const path = '/?connectTimeout=20000';
      const tabs = [await stage.openApp(profile, path), await stage.openApp(profile, path)] as const;
      // The browser's best host, not a failed better one: no fallback, nothing to warn about.
      for (const tab of tabs) {
        const connected = await waitForConnected(tab);
        // On failure, the broker's warning says why the service worker was passed over.
        const why = connected.mode === 'service-worker' ? '' : JSON.stringify((await status(tab)).warnings);
        expect(connected, why).toMatchObject({ mode: 'service-worker', fallbacks: 0 });
      }
      const [first, second] = await Promise.all(tabs.map(status));
      expect(first).toMatchObject({ mode: 'service-worker', storage: 'indexeddb', warnings: [] });
      expect(second!.brokerId).toBe(first!.brokerId);
      await sharesSignInAndOut(tabs);
    },
    { pageScript: WITHOUT_SHARED_WORKER },
  );

  scenario(
    'no worker at all: each tab hosts its own broker, and they still share sign-in and sign-out',
    async (stage) => {
      const profile = await stage.newProfile();
      const tabs = [await stage.openApp(profile), await stage.openApp(profile)] as const;
      for (const tab of tabs) expect(await waitForConnected(tab)).toMatchObject({ mode: 'in-process', fallbacks: 0 });
      const [first, second] = await Promise.all(tabs.map(status));
      expect(first).toMatchObject({ mode: 'in-process', storage: 'indexeddb' });
      expect(second!.brokerId).not.toBe(first!.brokerId);
      await sharesSignInAndOut(tabs);
    },
    { pageScript: WITHOUT_ANY_WORKER },
  );
});
