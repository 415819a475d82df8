import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { RunningEmulator } from '../../../emulator/index.js';
import { openDemoPage } from './demoPage.js';
import type { DemoServer } from './server.js';

/** What one scenario works with: a fresh emulator, the demo on its own origin, a browser. */
export interface Stage {
  emulator: RunningEmulator;
  demo: DemoServer;
  browser: Browser;
  /** A fresh browser context (one per simulated person: contexts share nothing). */
  newContext(): Promise<BrowserContext>;
  /** Opens the demo at `path` in a context and waits until the app and its broker client are up. */
  openTab(context: BrowserContext, path?: string): Promise<Page>;
  /** The browser-level CDP session (SharedWorkers are only visible there). */
  cdp(): Promise<CDPSession>;
  sharedWorkerCount(): Promise<number>;
}

/** The browser side of a stage, shared by the emulator's scenarios and the real-service lane's. */
export type BrowserStage = Omit<Stage, 'emulator'>;

export interface StageRun {
  stage: BrowserStage;
  /**
   * Runs the scenario's work: when it fails, every open page is saved as a screenshot in
   * `artifacts` before the error is reported; afterwards every context (and the CDP session) is closed.
   */
  run(work: () => Promise<void>): Promise<void>;
}

/** Contexts opened on demand and closed after the scenario, the demo's pages, and CDP for SharedWorkers. */
export function browserStage(
  browser: Browser,
  demo: DemoServer,
  name: string,
  artifacts: URL,
  openTimeoutMillis?: number,
): StageRun {
  const contexts: BrowserContext[] = [];
  let cdp: CDPSession | undefined;
  const stage: BrowserStage = {
    demo,
    browser,
    async newContext() {
      const context = await browser.newContext();
      contexts.push(context);
      return context;
    },
    openTab: (context, path = '/') => openDemoPage(context, `${demo.url}${path}`, name, openTimeoutMillis),
    async cdp() {
      cdp ??= await browser.newBrowserCDPSession();
      return cdp;
    },
    async sharedWorkerCount() {
      const { targetInfos } = await (await stage.cdp()).send('Target.getTargets');
      return targetInfos.filter((t) => t.type === 'shared_worker' && t.url.startsWith(demo.url)).length;
    },
  };
  return {
    stage,
    async run(work) {
      try {
        await work();
      } catch (error) {
        mkdirSync(artifacts, { recursive: true });
        const safe = name
          .replace(/[^a-z0-9]+/gi, '-')
          .toLowerCase()
          .slice(0, 80);
        const pages = contexts.flatMap((context) => context.pages());
        for (const [i, page] of pages.entries())
          await page
            .screenshot({ path: new URL(`${safe}-${i + 1}.png`, artifacts).pathname, fullPage: true })
            .catch(() => undefined);
        throw error;
      } finally {
        await cdp?.detach().catch(() => undefined);
        for (const context of contexts) await context.close().catch(() => undefined);
      }
    },
  };
}
