import type { BrokerStatus } from '../../../contract/state.js';
import type { EngineTab } from './engine.js';
import { waitInTab } from './stage.js';

/**
 * What scenarios ask a tab, run in the page (each function is sent as source text, so it uses only
 * its argument and the page's globals: the demo exposes its client as `window.__authbroker`).
 */
export const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' } as const;

/** The tab's `authbroker:connected` mark: the host it reached, after how many attempts, how long after navigation. */
export interface Connected {
  mode: string;
  attempts: number;
  fallbacks: number;
  /** Milliseconds from the page's navigation start to a connected broker. */
  millis: number;
}

export function waitForConnected(tab: EngineTab): Promise<Connected> {
  return waitInTab(
    tab,
    'the tab to reach its broker (the authbroker:connected mark)',
    () => {
      const mark = performance.getEntriesByName('authbroker:connected')[0] as PerformanceMark | undefined;
      if (mark === undefined) return null;
      const detail = mark.detail as { mode: string; attempts: number; fallbacks: number };
      return {
        mode: detail.mode,
        attempts: detail.attempts,
        fallbacks: detail.fallbacks,
        millis: Math.round(mark.startTime),
      };
    },
    null,
  );
}

export function status(tab: EngineTab): Promise<BrokerStatus> {
  return tab.evaluate(() => window.__authbroker.status(), null);
}

export async function signIn(tab: EngineTab): Promise<void> {
  const result = await tab.evaluate((account) => window.__authbroker.signInWithPassword(account), DEMO);
  if (result.status !== 'signed-in') throw new Error(`The password sign-in answered ${JSON.stringify(result)}`);
}

export async function signOut(tab: EngineTab): Promise<void> {
  await tab.evaluate(() => window.__authbroker.signOut(), null);
}

/** Waits until the tab's broker has this person signed in and the page's top bar shows them. */
export async function waitForSignedIn(tab: EngineTab, email: string = DEMO.email): Promise<void> {
  await waitInTab(
    tab,
    `${email} signed in and shown`,
    async (expected) => {
      const session = (await window.__authbroker.status()).session;
      const shown = document.querySelector('[data-testid="current-user-email"]')?.textContent?.trim();
      return session.status === 'signed-in' && shown === expected;
    },
    email,
  );
}

/** Waits until the tab's broker is signed out for `reason` and the page offers "Sign in" again. */
export async function waitForSignedOut(tab: EngineTab, reason = 'signed-out'): Promise<void> {
  await waitInTab(
    tab,
    `signed out (${reason}) and shown`,
    async (expected) => {
      const session = (await window.__authbroker.status()).session;
      const offered =
        document.querySelector('[data-testid="nav-sign-in"]') !== null &&
        document.querySelector('[data-testid="current-user-email"]') === null;
      return session.status === 'signed-out' && session.lastEnd?.reason === expected && offered;
    },
    reason,
  );
}
