import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { accountNav } from './support/ids.js';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  ELEVEN_MINUTES,
  focus,
  personContext,
  signInWithPasswordUi,
  signOutUi,
  signUpUi,
  D,
  T,
  uniqueEmail,
  until,
  waitForSignedIn,
  waitForSignedOut,
  waitForText,
} from './support/ui.js';
import { WorkerTarget } from './support/workerCdp.js';

/** Everything a page exposes at one moment: its DOM (with live input values), address and web storage. */
interface Capture {
  label: string;
  signedIn: boolean;
  url: string;
  html: string;
  inputs: string[];
  storage: string;
}

async function capture(context: BrowserContext, label: string, signedIn: boolean, into: Capture[]): Promise<void> {
  for (const [index, page] of context.pages().entries()) {
    const seen = await page.evaluate(() => ({
      html: document.documentElement.outerHTML,
      inputs: [...document.querySelectorAll('input, textarea')].map((el) => (el as HTMLInputElement).value),
      storage: JSON.stringify({
        local: { ...localStorage },
        session: { ...sessionStorage },
        cookie: document.cookie,
        title: document.title,
      }),
    }));
    into.push({ label: `${label} (tab ${index + 1})`, signedIn, url: page.url(), ...seen });
  }
}

/**
 * The refresh token as the broker stored it (IndexedDB `authbroker` → `sessions`). Reading it here
 * is the test's doing, and only to know what to look for. Never creates the database.
 */
function storedRefreshTokens(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const request = indexedDB.open('authbroker');
        request.onupgradeneeded = () => request.transaction?.abort();
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const all = db.transaction('sessions', 'readonly').objectStore('sessions').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            db.close();
            resolve(
              (all.result as Array<{ status: string; refreshToken?: string }>)
                .filter((r) => r.status === 'active')
                .map((r) => r.refreshToken!),
            );
          };
        };
      }),
  );
}

async function accessToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => window.__authbroker.getAccessToken());
  expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
  return token!;
}

describe('secrets stay in the broker', () => {
  scenario(
    'the refresh token appears in no DOM, console line, URL or web storage during a full session',
    async (stage) => {
      const context = await personContext(stage);
      const consoleLines: string[] = [];
      const urls: string[] = [];
      context.on('console', (message) => consoleLines.push(`page ${message.type()}: ${message.text()}`));
      context.on('request', (request) => urls.push(request.url()));
      context.on('page', (page) => {
        page.on('framenavigated', (frame) => urls.push(frame.url()));
        page.on('pageerror', (error) => consoleLines.push(`page error: ${error.message}`));
        page.on('popup', (popup) => urls.push(popup.url()));
      });
      const captures: Capture[] = [];
      const refreshTokens = new Set<string>();
      const accessTokens = new Set<string>();

      const tab1 = await stage.openTab(context);
      // The broker's own console (a SharedWorker: only CDP sees it).
      const worker = await WorkerTarget.attach(await stage.cdp(), stage.demo.url);
      worker.onEvent((method, params) => {
        if (method === 'Runtime.consoleAPICalled') {
          const args = (params.args as Array<{ value?: unknown; description?: string }> | undefined) ?? [];
          consoleLines.push(
            `worker ${String(params.type)}: ${args.map((a) => (a.value === undefined ? (a.description ?? '') : JSON.stringify(a.value))).join(' ')}`,
          );
        } else if (method === 'Runtime.exceptionThrown') {
          consoleLines.push(`worker exception: ${JSON.stringify(params)}`);
        }
      });
      await worker.send('Runtime.enable');

      // 1. Sign up in tab 1.
      const email = uniqueEmail('secret-keeper');
      const password = 'secret-keeper-password';
      await signUpUi(tab1, { email, password });
      for (const token of await storedRefreshTokens(tab1)) refreshTokens.add(token);
      accessTokens.add(await accessToken(tab1));
      await capture(context, 'after sign-up', true, captures);
      await signOutUi(tab1);
      await waitForSignedOut(tab1);
      await capture(context, 'after the first sign-out', false, captures);

      // 2. Sign in in tab 2: both tabs show the person.
      const tab2 = await stage.openTab(context);
      await signInWithPasswordUi(tab2, { email, password });
      for (const page of [tab1, tab2]) await waitForSignedIn(page, email);
      for (const token of await storedRefreshTokens(tab2)) refreshTokens.add(token);
      accessTokens.add(await accessToken(tab2));
      await capture(context, 'signed in, two tabs', true, captures);

      // 3. Update the profile in tab 1; tab 2's home page greets the new name.
      const displayName = 'Ada Secretkeeper';
      await focus(tab1);
      await byTestId(tab1, T.navAccount).click();
      await byTestId(tab1, T.profileDisplayName).fill(displayName);
      await byTestId(tab1, T.profileSave).click();
      await waitForText(tab1, T.formSuccess, /.+/);
      await tab2.getByRole('heading', { name: `Welcome, ${displayName}` }).waitFor();
      await capture(context, 'after the profile update', true, captures);

      // 4. Create a team in tab 2.
      const teamName = `Vault ${Date.now().toString(36)}`;
      await focus(tab2);
      await byTestId(tab2, T.navTeams).click();
      await byTestId(tab2, T.teamCreateName).fill(teamName);
      await byTestId(tab2, T.teamCreateSubmit).click();
      await waitForText(tab2, T.teamName, teamName);
      await capture(context, 'after creating a team', true, captures);

      // 5. The access token expires; the next request renews it (the panel counts renewals).
      await waitForText(tab1, D.renewals, '0');
      stage.emulator.env.clock.advance(ELEVEN_MINUTES);
      await focus(tab1);
      await byTestId(tab1, accountNav('sessions')).click();
      await byTestId(tab1, T.sessionRow).first().waitFor();
      for (const page of [tab1, tab2]) await waitForText(page, D.renewals, '1');
      const renewed = await accessToken(tab1);
      expect(accessTokens.has(renewed)).toBe(false);
      accessTokens.add(renewed);
      for (const token of await storedRefreshTokens(tab1)) refreshTokens.add(token);
      await capture(context, 'after the renewal', true, captures);

      // 6. Sign out in tab 2; both tabs follow.
      await signOutUi(tab2);
      for (const page of [tab1, tab2]) await waitForSignedOut(page);
      await capture(context, 'after signing out', false, captures);
      expect(await storedRefreshTokens(tab1)).toEqual([]);

      // The capture works: it sees what the pages show, and both consoles are heard.
      await tab1.evaluate(() => console.log('page-console-canary'));
      await worker.send('Runtime.evaluate', { expression: "console.log('worker-console-canary')" });
      await until(
        'the console canaries',
        async () => consoleLines.join('\n'),
        (all) => all.includes('page-console-canary') && all.includes('worker-console-canary'),
      );
      for (const c of captures.filter((c) => c.signedIn))
        expect(c.html.includes(email), `${c.label}: the e-mail is shown`).toBe(true);
      expect(captures.some((c) => c.html.includes(displayName))).toBe(true);
      expect(captures.some((c) => c.html.includes(teamName))).toBe(true);
      expect(captures.some((c) => c.inputs.includes(teamName) || c.html.includes(teamName))).toBe(true);
      expect(urls.some((u) => u.startsWith(`${stage.demo.url}/teams/`))).toBe(true);

      // Two sign-ins: two refresh tokens (the renewal keeps the same one).
      expect(refreshTokens.size).toBe(2);
      expect(accessTokens.size).toBe(3);
      for (const token of refreshTokens) expect(token.length).toBeGreaterThanOrEqual(20);

      const needles = [
        ...[...refreshTokens].flatMap((token, i) => [
          { what: `refresh token ${i + 1}`, text: token },
          { what: `refresh token ${i + 1} (first 16 characters)`, text: token.slice(0, 16) },
          { what: `refresh token ${i + 1} (last 16 characters)`, text: token.slice(-16) },
        ]),
        ...[...accessTokens].map((token, i) => ({ what: `access token ${i + 1}`, text: token })),
      ];
      const consoleText = consoleLines.join('\n');
      const urlText = urls.join('\n');
      for (const { what, text } of needles) {
        for (const c of captures) {
          expect(c.html.includes(text), `${what} in the DOM ${c.label}`).toBe(false);
          expect(
            c.inputs.some((value) => value.includes(text)),
            `${what} in an input ${c.label}`,
          ).toBe(false);
          expect(c.url.includes(text), `${what} in the address ${c.label}`).toBe(false);
          expect(c.storage.includes(text), `${what} in web storage or cookies ${c.label}`).toBe(false);
        }
        expect(consoleText.includes(text), `${what} in the console`).toBe(false);
        expect(urlText.includes(text), `${what} in a URL`).toBe(false);
      }
    },
  );
});
