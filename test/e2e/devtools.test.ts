import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  D,
  DEMO,
  ELEVEN_MINUTES,
  personContext,
  until,
  waitForSignedIn,
  waitForText,
  waitForVisible,
} from './support/ui.js';

/** What a devtools row says about itself (its data-* attributes). */
type Row = Record<string, string>;

const rows = (page: Page, id: string): Promise<Row[]> =>
  byTestId(page, id).evaluateAll((elements) =>
    elements.map((element) => ({ ...(element as HTMLElement).dataset }) as Record<string, string>),
  );
const requests = (page: Page) => rows(page, D.requestRow);
const cache = (page: Page) => rows(page, D.cacheRow);
const to = (method: string, path: string) => (row: Row) => row.method === method && row.path === path;

/** Opens the panel with a DOM click (a background tab's Playwright click waits for a paint). */
async function openDevtools(page: Page): Promise<void> {
  if ((await byTestId(page, D.panel).count()) === 0)
    await byTestId(page, D.toggle).evaluate((element) => (element as HTMLElement).click());
  await waitForVisible(page, D.panel);
}

/** Waits until the panel's request log holds exactly `count` settled requests matching `which`. */
function waitForRequests(page: Page, which: (row: Row) => boolean, count: number): Promise<Row[]> {
  return until(
    `${count} settled request(s) in the devtools log`,
    async () => (await requests(page)).filter(which),
    (found) => found.length === count && found.every((row) => row.outcome !== 'pending'),
  );
}

/** The current session's currentUser entry, once `tabs` tabs watch it. */
function waitForUserEntry(page: Page, tabs: number): Promise<Row[]> {
  return until(
    `the currentUser entry watched by ${tabs} tab(s)`,
    () => cache(page),
    (entries) => entries.some((e) => e.kind === 'currentUser' && e.current === 'true' && e.tabs === String(tabs)),
  );
}

/** The part of the log both tabs must agree on (a row's data attributes), settled. */
async function settledLog(page: Page): Promise<Row[]> {
  return until(
    'a settled request log',
    () => requests(page),
    (found) => found.length > 0 && found.every((row) => row.outcome !== 'pending'),
  );
}

describe('authbroker/devtools', () => {
  scenario(
    'two tabs with the devtools open, a sign-in in one: both panels show one sign-in, one token request, the same cache with 2 tabs per entry, the same log',
    async (stage) => {
      const context = await personContext(stage);
      const tabs = [await stage.openTab(context), await stage.openTab(context)];
      for (const page of tabs) {
        await openDevtools(page);
        await waitForText(page, D.mode, 'shared-worker');
      }
      await waitForText(tabs[0]!, D.thisTab, 'tab 1');
      await waitForText(tabs[1]!, D.thisTab, 'tab 2');

      await tabs[0]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
      for (const page of tabs) await waitForSignedIn(page, DEMO.email);
      for (const page of tabs) {
        const [signIn] = await waitForRequests(page, to('POST', '/auth/password/sign-in'), 1);
        expect(signIn).toMatchObject({ status: '200', outcome: 'success', tab: '1', via: 'action', callers: '1' });
        await waitForUserEntry(page, 2);
        await waitForText(page, D.session, 'signed-in');
      }
      // One fetch of the user served both tabs: the fan-in, visible.
      const [user] = (await requests(tabs[1]!)).filter(to('GET', '/users/me'));
      expect(user).toMatchObject({ outcome: 'success', callers: '2' });

      // The access token expires; both tabs need one: one token request, in both panels.
      stage.emulator.env.stats.reset();
      stage.emulator.env.clock.advance(ELEVEN_MINUTES);
      await Promise.all([
        tabs[0]!.evaluate(() => window.__authbroker.refetch({ kind: 'currentUser' })),
        tabs[1]!.evaluate(() => window.__authbroker.getAccessToken()),
      ]);
      expect(stage.emulator.env.stats.snapshot().token_refreshes).toBe(1);
      for (const page of tabs) {
        const [token] = await waitForRequests(page, to('POST', '/auth/oauth/token'), 1);
        expect(token).toMatchObject({ status: '200', outcome: 'success' });
        await waitForText(page, D.renewals, '1');
      }

      // The same picture from both tabs: the same log, the same entries watched by the same tabs.
      const [logOne, logTwo] = [await settledLog(tabs[0]!), await settledLog(tabs[1]!)];
      const facts = ({ id, method, path, status, callers, tab, via }: Row) => ({
        id,
        method,
        path,
        status,
        callers,
        tab,
        via,
      });
      expect(logTwo.map(facts)).toEqual(logOne.map(facts));
      const entries = async (page: Page) =>
        (await cache(page))
          .map(({ key, kind, current, tabs: watching }) => ({ key, kind, current, watching }))
          .sort((a, b) => (a.key! < b.key! ? -1 : 1));
      await until(
        'the same cache in both panels',
        async () => [await entries(tabs[0]!), await entries(tabs[1]!)],
        ([one, two]) => JSON.stringify(one) === JSON.stringify(two),
      );
      expect(
        (await entries(tabs[0]!))
          .filter((e) => e.current === 'true' && ['currentUser', 'project'].includes(e.kind!))
          .map((e) => e.watching),
      ).toEqual(['2', '2']);

      // What the panel shows carries no token and no password.
      const accessToken = await tabs[0]!.evaluate(() => window.__authbroker.getAccessToken());
      for (const page of tabs) {
        const html = await byTestId(page, D.panel).evaluate((element) => element.outerHTML);
        expect(html).toContain('/auth/oauth/token');
        expect(html).not.toContain(accessToken!);
        expect(html).not.toContain(DEMO.password);
      }
    },
  );

  scenario('the service-worker host: the mode, why, and one picture from two tabs', async (stage) => {
    const context = await personContext(stage);
    const tabs = [
      await stage.openTab(context, '/?mode=service-worker'),
      await stage.openTab(context, '/?mode=service-worker'),
    ];
    for (const page of tabs) {
      await openDevtools(page);
      await waitForText(page, D.mode, 'service-worker');
      await waitForText(page, D.modeReason, /service worker/i);
    }
    await tabs[1]!.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
    for (const page of tabs) {
      const [signIn] = await waitForRequests(page, to('POST', '/auth/password/sign-in'), 1);
      expect(signIn).toMatchObject({ outcome: 'success', tab: '2' });
      await waitForUserEntry(page, 2);
    }
  });

  scenario('the in-page host: each tab its own broker, its own picture', async (stage) => {
    const context = await personContext(stage);
    const page = await stage.openTab(context, '/?mode=in-process');
    await openDevtools(page);
    await waitForText(page, D.mode, 'in-process');
    await waitForText(page, D.modeReason, /In this page/);
    await page.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
    const [signIn] = await waitForRequests(page, to('POST', '/auth/password/sign-in'), 1);
    expect(signIn).toMatchObject({ outcome: 'success', tab: '1', via: 'action' });
    await waitForUserEntry(page, 1);
    await waitForText(page, D.thisTab, 'tab 1');
  });
});
