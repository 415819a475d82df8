/**
 * The background (Chromium's service worker, Firefox's event page): the broker every context of
 * the extension shares. `startExtensionBroker` runs at the top level, synchronously, in every start
 * of the background; it reads the session back from storage each time.
 */
import { oauthRedirectUrl, startExtensionBroker, type SessionInfo } from '../../client/extension/index.js';
import { startDriver } from './testDriver.js';
import { contentScripts, options } from './config.js';

const auth = startExtensionBroker({ ...options, contentScripts });

// The background's own use of the session, in place: the toolbar badge says who is signed in.
auth.subscribe({ kind: 'session' }, () => {
  const session = auth.getSnapshot({ kind: 'session' })?.data as SessionInfo | undefined;
  const badge = (globalThis as { chrome?: { action?: { setBadgeText?(details: { text: string }): unknown } } }).chrome
    ?.action;
  void Promise.resolve(badge?.setBadgeText?.({ text: session?.status === 'signed-in' ? 'on' : '' })).catch(
    () => undefined,
  );
});

// For a look from the browser's devtools (and the demo's tests): the background's client.
(globalThis as { authbrokerDemo?: unknown }).authbrokerDemo = { auth };

declare const __AUTHBROKER_TEST_DRIVER__: string | null;
if (__AUTHBROKER_TEST_DRIVER__ !== null)
  startDriver(__AUTHBROKER_TEST_DRIVER__, 'background', auth, {
    // What the broker stored, read back the way anything of the extension could: for the tests' look at what a web page
    // can see.
    storedRefreshToken: async () => {
      const api = (
        globalThis as { chrome?: { storage?: { session?: { get(key: null): Promise<Record<string, unknown>> } } } }
      ).chrome;
      const inSession = Object.values((await api?.storage?.session?.get(null)) ?? {})
        .map((record) => (record as { refreshToken?: string }).refreshToken)
        .find(Boolean);
      if (inSession) return inSession;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('authbroker');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const records = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction('sessions').objectStore('sessions').getAll();
        request.onsuccess = () => resolve(request.result as unknown[]);
        request.onerror = () => reject(request.error);
      });
      db.close();
      return records.map((record) => (record as { refreshToken?: string }).refreshToken).find(Boolean) ?? null;
    },
    // Where social sign-in comes back to: the tests trust it in the emulator's project, as an app's developer would in
    // theirs.
    oauthRedirectUrl: async () => oauthRedirectUrl(),
    // The side panel the manifest declares, as the browser reports it (Chromium's side panel, Firefox's sidebar).
    sidePanel: async () => {
      const api = globalThis as {
        browser?: { sidebarAction?: { getPanel(details: object): Promise<string> } };
        chrome?: { sidePanel?: { getOptions(details: object): Promise<{ path?: string; enabled?: boolean }> } };
      };
      if (api.chrome?.sidePanel !== undefined) return (await api.chrome.sidePanel.getOptions({})).path ?? null;
      if (api.browser?.sidebarAction !== undefined) return api.browser.sidebarAction.getPanel({});
      return null;
    },
    openPage: async ({ path }) => {
      const api = globalThis as {
        browser?: { tabs: { create(details: { url: string }): Promise<unknown> } };
        chrome?: { tabs: { create(details: { url: string }): Promise<unknown> } };
      };
      await (api.browser ?? api.chrome)!.tabs.create({ url: new URL(String(path), location.href).href });
      return null;
    },
  });
