import { expect } from 'vitest';
import {
  DEMO,
  signIn,
  signOut,
  status,
  waitForConnected,
  waitForSignedIn,
  waitForSignedOut,
  type Connected,
} from './support/probes.js';
import { BLANK_PAGE_PATH } from '../e2e/support/server.js';
import { setServiceReachable } from '../support/emulator.js';
import { inEveryEngine, waitInTab } from './support/stage.js';

/**
 * The core scenarios, as a person meets them, in Chromium, Firefox and WebKit: the broker in a
 * SharedWorker with IndexedDB, two tabs sharing sign-in and sign-out, reloads, closing every tab,
 * offline and back. The demo's production build against the emulator, served under a strict CSP.
 */
const RELOADS = 30;

inEveryEngine((scenario, engineName) => {
  scenario(
    'the broker starts in a SharedWorker with IndexedDB; two tabs share sign-in and sign-out, both ways',
    async (stage) => {
      const profile = await stage.newProfile();
      const tabs = [await stage.openApp(profile), await stage.openApp(profile)] as const;
      for (const tab of tabs)
        expect(await waitForConnected(tab)).toMatchObject({ mode: 'shared-worker', fallbacks: 0 });
      const [first, second] = await Promise.all(tabs.map(status));
      expect(first).toMatchObject({ mode: 'shared-worker', storage: 'indexeddb', tabsConnected: 2, warnings: [] });
      expect(second!.brokerId).toBe(first!.brokerId);

      // Signed in in one tab, the other shows it; signed out in the other, the first follows; and back.
      for (const [from, to] of [
        [tabs[0], tabs[1]],
        [tabs[1], tabs[0]],
      ] as const) {
        await signIn(from);
        await waitForSignedIn(to);
        await signOut(to);
        await waitForSignedOut(from);
      }
    },
  );

  scenario('a reload keeps the session, and so does closing every tab and opening a new one', async (stage) => {
    const profile = await stage.newProfile();
    const tab = await stage.openApp(profile);
    await signIn(tab);
    await waitForSignedIn(tab);
    await tab.reload();
    await waitForSignedIn(tab);
    const before = await status(tab);

    // Every tab of the app closed ends its worker (its broker's lifetime lock is freed: watched from
    // a page of the origin that runs none of the app); a new tab then starts a new broker, which
    // finds the session in IndexedDB.
    const onlooker = await profile.openTab(`${stage.demo.url}${BLANK_PAGE_PATH}`);
    await tab.close();
    await waitInTab(
      onlooker,
      'the broker to end with its last tab',
      async (lock) => !(await navigator.locks.query()).held?.some((held) => held.name === lock),
      `authbroker:broker:${before.brokerId}`,
    );
    const again = await stage.openApp(profile);
    const after = await status(again);
    expect(after.brokerId).not.toBe(before.brokerId);
    expect(after.mode).toBe('shared-worker');
    await waitForSignedIn(again);
    expect(
      await again.evaluate(async () => (await window.__authbroker.read({ kind: 'currentUser' }))?.primaryEmail, null),
    ).toBe(DEMO.email);
  });

  scenario(
    `${RELOADS} reloads of the only signed-in tab: each on the SharedWorker host, reaching its broker in under 2 s`,
    async (stage) => {
      const profile = await stage.newProfile();
      const tab = await stage.openApp(profile);
      await signIn(tab);
      const reloads: Connected[] = [];
      for (let i = 0; i < RELOADS; i++) {
        await tab.reload();
        reloads.push(await waitForConnected(tab));
      }
      await waitForSignedIn(tab);
      const millis = reloads.map((reload) => reload.millis).sort((a, b) => a - b);
      const retried = reloads.filter((reload) => reload.attempts > 1).length;
      console.log(
        `${engineName}: ${RELOADS} reloads, median ${millis[Math.floor(RELOADS / 2)]} ms, max ${millis.at(-1)} ms to a connected broker; ${retried} needed a second attempt`,
      );
      expect(reloads.filter((reload) => reload.mode !== 'shared-worker' || reload.fallbacks > 0)).toEqual([]);
      // The broker answers a reloaded tab's first attempt (the retry is a safety net, not the fix)…
      expect(retried).toBe(0);
      // …well under 2 s: the reload stall waited 8 s.
      expect(millis.at(-1)).toBeLessThan(2000);
    },
    { timeout: 180_000 },
  );

  scenario(
    'the sign-in page offers passkeys only where the browser has WebAuthn, and says so plainly where it has none; the password form signs in',
    async (stage) => {
      const profile = await stage.newProfile();
      const tab = await stage.openApp(profile, '/handler/sign-in');
      await waitInTab(
        tab,
        'the sign-in form',
        () => document.querySelector('[data-testid="sign-in-form"]') !== null,
        null,
      );
      const page = await tab.evaluate(
        () => ({
          webAuthn: typeof PublicKeyCredential === 'function',
          clientSays: window.__authbroker.passkeysAvailable,
          button: document.querySelector('[data-testid="passkey-sign-in"]') !== null,
          unavailable: document.querySelector('[data-testid="passkey-unavailable"]')?.textContent?.trim() ?? null,
        }),
        null,
      );
      // WebKitGTK has no WebAuthn; Chromium and Firefox do.
      const webAuthn = engineName !== 'webkit';
      expect(page).toEqual(
        webAuthn
          ? { webAuthn, clientSays: true, button: true, unavailable: null }
          : {
              webAuthn,
              clientSays: false,
              button: false,
              unavailable: 'Passkeys are not available in this browser. Sign in another way below.',
            },
      );
      if (!webAuthn) {
        expect(
          await tab.evaluate(
            () =>
              window.__authbroker.signInWithPasskey().then(
                () => 'signed in',
                (error: { code?: string }) => error.code,
              ),
            null,
          ),
        ).toBe('PASSKEYS_UNAVAILABLE');
      }
      // Typed into the form and submitted, as a person would.
      await tab.evaluate((account) => {
        const type = (testId: string, value: string) => {
          const input = document.querySelector<HTMLInputElement>(`[data-testid="${testId}"]`)!;
          Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
          input.dispatchEvent(new Event('input', { bubbles: true }));
        };
        type('sign-in-email', account.email);
        type('sign-in-password', account.password);
        document.querySelector<HTMLButtonElement>('[data-testid="sign-in-submit"]')!.click();
      }, DEMO);
      await waitForSignedIn(tab);
    },
  );

  scenario(
    'offline and back: reads wait, writes are refused at once, the session holds; the broker notices the service is back by itself',
    async (stage) => {
      const profile = await stage.newProfile();
      const tab = await stage.openApp(profile);
      await signIn(tab);
      await waitForSignedIn(tab);
      await setServiceReachable(stage.emulator, false);
      // A read while offline waits rather than failing (kept in the page: WebDriver runs one script at a time).
      await tab.evaluate(() => {
        const page = window as unknown as { pendingRead?: string };
        void window.__authbroker
          .refetch({ kind: 'currentUser' })
          .then(() => window.__authbroker.read({ kind: 'currentUser' }))
          .then(
            (user) => (page.pendingRead = user?.primaryEmail ?? 'nobody'),
            (error: Error) => (page.pendingRead = `failed: ${error.message}`),
          );
      }, null);
      await waitInTab(
        tab,
        'the broker to see the service offline',
        async () => (await window.__authbroker.status()).connectivity.state === 'offline',
        null,
        30_000,
      );
      expect(
        await tab.evaluate(
          () =>
            window.__authbroker.updateUser({ displayName: 'x' }).then(
              () => 'sent',
              (error: { code?: string }) => error.code,
            ),
          null,
        ),
      ).toBe('NETWORK_UNREACHABLE');
      expect((await status(tab)).session.status).toBe('signed-in');
      await waitInTab(
        tab,
        'the offline banner',
        () => document.querySelector('[data-testid="offline-banner"]') !== null,
        null,
      );
      expect(
        await tab.evaluate(() => (window as unknown as { pendingRead?: string }).pendingRead ?? 'waiting', null),
      ).toBe('waiting');

      await setServiceReachable(stage.emulator, true);
      await waitInTab(
        tab,
        'the broker to see the service back',
        async () => (await window.__authbroker.status()).connectivity.state === 'online',
        null,
        30_000,
      );
      expect(
        await waitInTab(
          tab,
          'the waiting read',
          () => (window as unknown as { pendingRead?: string }).pendingRead,
          null,
        ),
      ).toBe(DEMO.email);
      await waitInTab(
        tab,
        'the offline banner to go',
        () => document.querySelector('[data-testid="offline-banner"]') === null,
        null,
      );
      await waitForSignedIn(tab);
    },
  );
});
