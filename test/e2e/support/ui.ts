import type { BrowserContext, Locator, Page } from 'playwright-core';
import { devtoolsIds as D } from '../../../client/devtools/testIds.js';
import { accountNav, accountSection, T } from './ids.js';
import type { MailboxItem } from '../../../emulator/mailbox.js';
import type { Stage } from './scenario.js';

/**
 * Driving the demo like a person: find things by their stable test ids (support/ids.ts, checked against the demo),
 * type, click, and wait for what the page shows. Waits poll the page (50 ms) up to a timeout and
 * fail with the last thing they saw; nothing here sleeps for a fixed time.
 */

/** T: the demo's own test ids; D: those of authbroker/devtools, which the demo shows at the bottom of every page. */
export { D, T };
export const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' } as const;
export const UI_TIMEOUT = 10_000;
export const ELEVEN_MINUTES = 11 * 60 * 1000;

let counter = 0;
/** A fresh address per call (each scenario has its own emulator, but several people per scenario). */
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** The element(s) with a test id (a plain CSS selector, so `.first()`/`.nth()` work as usual). */
export function byTestId(page: Page, id: string): Locator {
  return page.locator(`[data-testid="${id}"]`);
}

/** Polls `probe` until `ok` holds; a timeout names what was awaited and what was last seen. */
export async function until<V>(
  what: string,
  probe: () => Promise<V>,
  ok: (value: V) => boolean,
  timeout = UI_TIMEOUT,
): Promise<V> {
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (ok(value)) return value;
      last = value;
    } catch (error) {
      last = error instanceof Error ? `error: ${error.message}` : error;
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeout} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What the tab's broker says of itself. To wait on it, poll it with `until`: Playwright's
 * `waitForFunction` does not await a predicate's promise, which is truthy, so an async predicate
 * returns at once, having waited for nothing.
 */
export function statusOf(page: Page) {
  return page.evaluate(() => window.__authbroker.status());
}

/**
 * Waits until the tab is on a broker other than `oldBrokerId`, signed in (calls failing meanwhile, the old one gone,
 * are asked again).
 */
export function waitForNewBroker(page: Page, oldBrokerId: string, timeout = 15_000) {
  return until(
    `a broker other than ${oldBrokerId}, signed in`,
    () => statusOf(page),
    (status) => status.brokerId !== oldBrokerId && status.session.status === 'signed-in',
    timeout,
  );
}

/** The signed-in user's e-mail as the tab's broker reads it. */
export function userEmailOf(page: Page) {
  return page.evaluate(async () => (await window.__authbroker.read({ kind: 'currentUser' }))?.primaryEmail ?? null);
}

/** The text of the first element with this test id once it matches (exact string or pattern). */
export function waitForText(page: Page, id: string, expected: string | RegExp, timeout = UI_TIMEOUT): Promise<string> {
  return until(
    `[data-testid=${id}] to show ${String(expected)}`,
    async () => (await byTestId(page, id).allTextContents())[0]?.trim() ?? '<absent>',
    (text) => (typeof expected === 'string' ? text === expected : expected.test(text)),
    timeout,
  );
}

/** An attribute of the first element with this test id once it has the expected value. */
export function waitForAttribute(
  page: Page,
  id: string,
  name: string,
  expected: string,
  timeout = UI_TIMEOUT,
): Promise<string | null> {
  return until(
    `[data-testid=${id}] ${name}=${expected}`,
    () => byTestId(page, id).first().getAttribute(name, { timeout: 200 }),
    (value) => value === expected,
    timeout,
  );
}

export async function waitForVisible(page: Page, id: string, timeout = UI_TIMEOUT): Promise<void> {
  await byTestId(page, id).first().waitFor({ state: 'visible', timeout });
}

export async function waitForGone(page: Page, id: string, timeout = UI_TIMEOUT): Promise<void> {
  await until(
    `[data-testid=${id}] to disappear`,
    () => byTestId(page, id).count(),
    (n) => n === 0,
    timeout,
  );
}

/** Waits until the nav shows this person as signed in (the current user's e-mail in the top bar). */
export function waitForSignedIn(page: Page, email: string, timeout = UI_TIMEOUT): Promise<string> {
  return waitForText(page, T.currentUserEmail, email, timeout);
}

/** Waits until the nav offers "Sign in" again and shows nobody. */
export async function waitForSignedOut(page: Page, timeout = UI_TIMEOUT): Promise<void> {
  await waitForVisible(page, T.navSignIn, timeout);
  await waitForGone(page, T.currentUserEmail, timeout);
}

/**
 * Switches to a tab, as a person would before clicking in it. Needed for speed too: Chromium only
 * paints the front tab, and Playwright's "is it stable?" check waits for paints (about 2 s per
 * click in a background tab).
 */
export async function focus(page: Page): Promise<Page> {
  await page.bringToFront();
  return page;
}

/** From any page: the nav's "Sign in", then the password form (the caller waits for the result). */
export async function signInWithPasswordUi(
  page: Page,
  credentials: { email: string; password: string },
): Promise<void> {
  await focus(page);
  await byTestId(page, T.navSignIn).click();
  await byTestId(page, T.signInEmail).fill(credentials.email);
  await byTestId(page, T.signInPassword).fill(credentials.password);
  await byTestId(page, T.signInSubmit).click();
}

/** From any page: the nav's "Sign up", the password form; waits until the nav shows the new person. */
export async function signUpUi(page: Page, credentials: { email: string; password: string }): Promise<void> {
  await focus(page);
  await byTestId(page, T.navSignUp).click();
  await byTestId(page, T.signUpEmail).fill(credentials.email);
  await byTestId(page, T.signUpPassword).fill(credentials.password);
  await byTestId(page, T.signUpPasswordConfirm).fill(credentials.password);
  await byTestId(page, T.signUpSubmit).click();
  await waitForSignedIn(page, credentials.email);
}

/** The nav's "Sign out" (the sign-out page signs out every tab); waits for the page to confirm. */
export async function signOutUi(page: Page): Promise<void> {
  await focus(page);
  await byTestId(page, T.navSignOut).click();
  await waitForAttribute(page, T.signOutStatus, 'data-state', 'done');
}

/**
 * Opens the devtools panel (the demo mounts `<AuthbrokerDevtools />`, closed by default), runs
 * `look`, and closes it again (open, it covers the bottom half of the page, as it would for a person).
 */
export async function withDevtools<R>(page: Page, look: () => Promise<R>): Promise<R> {
  await focus(page);
  if ((await byTestId(page, D.panel).count()) === 0) await byTestId(page, D.toggle).click();
  await waitForVisible(page, D.endReason);
  try {
    return await look();
  } finally {
    await byTestId(page, D.close).click();
    await waitForVisible(page, D.toggle);
  }
}

/** A browser context for one person, whose actions give up after UI_TIMEOUT rather than 30 s. */
export async function personContext(stage: Stage): Promise<BrowserContext> {
  const context = await stage.newContext();
  context.setDefaultTimeout(UI_TIMEOUT);
  return context;
}

/** The newest e-mail to `to` from a template, once it has arrived. */
export function latestMail(stage: Stage, to: string, template: MailboxItem['template']): Promise<MailboxItem> {
  return until(
    `a ${template} e-mail to ${to}`,
    async () =>
      stage.emulator.env.mailbox
        .list(to)
        .filter((m) => m.template === template)
        .at(-1),
    (m) => m !== undefined,
  ).then((m) => m!);
}

/** A server-side call with the demo project's secret server key, as the app's own backend would make. */
export async function serverApi<T = unknown>(stage: Stage, method: string, path: string, body?: unknown): Promise<T> {
  const keys = stage.emulator.projects.demo;
  const response = await fetch(`${stage.emulator.url}/api/v1${path}`, {
    method,
    headers: {
      'x-stack-project-id': keys.id,
      'x-stack-access-type': 'server',
      'x-stack-secret-server-key': keys.secretServerKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** A user's id, looked up server-side by primary e-mail. */
export async function userIdByEmail(stage: Stage, email: string): Promise<string> {
  const { items } = await serverApi<{ items: Array<{ id: string; primary_email: string | null }> }>(
    stage,
    'GET',
    '/users?limit=100',
  );
  const user = items.find((u) => u.primary_email?.toLowerCase() === email.toLowerCase());
  if (!user) throw new Error(`No user with e-mail ${email}`);
  return user.id;
}

/** Account settings → a section, from the nav. */
export async function openAccountSection(page: Page, section: Parameters<typeof accountNav>[0]): Promise<void> {
  await focus(page);
  await byTestId(page, T.navAccount).click();
  await byTestId(page, accountNav(section)).click();
  await waitForVisible(page, accountSection(section));
}
