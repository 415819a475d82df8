import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../emulator/index.js';
import { launchChromium, skipWithoutChromium } from './chromium.js';
import { openDemoPage } from './demoPage.js';
import { serveDemo, type DemoServer, type ServeDemoOptions } from './server.js';

export const ARTIFACTS = new URL('../../../.artifacts/e2e/', import.meta.url);

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

const skip = skipWithoutChromium();
let browser: Browser | undefined;

beforeAll(async () => {
  if (!skip) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function screenshotAll(contexts: BrowserContext[], name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const safe = name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
  let index = 0;
  for (const context of contexts) {
    for (const page of context.pages()) {
      index += 1;
      await page.screenshot({ path: new URL(`${safe}-${index}.png`, ARTIFACTS).pathname, fullPage: true }).catch(() => undefined);
    }
  }
}

/**
 * One end-to-end scenario against a fresh emulator. When it fails, every open page is saved as a
 * screenshot in .artifacts/e2e/ before the error is reported.
 */
export function scenario(name: string, run: (stage: Stage) => Promise<void>, options: { emulator?: EmulatorOptions; demo?: ServeDemoOptions; timeout?: number } = {}): void {
  it.skipIf(skip)(
    name,
    async () => {
      const emulator = await startEmulator({ port: 0, host: '127.0.0.1', ...options.emulator });
      const demo = await serveDemo(emulator, options.demo);
      const contexts: BrowserContext[] = [];
      let cdp: CDPSession | undefined;
      const stage: Stage = {
        emulator,
        demo,
        browser: browser!,
        async newContext() {
          const context = await browser!.newContext();
          contexts.push(context);
          return context;
        },
        openTab: (context, path = '/') => openDemoPage(context, `${demo.url}${path}`, name),
        async cdp() {
          cdp ??= await browser!.newBrowserCDPSession();
          return cdp;
        },
        async sharedWorkerCount() {
          const session = await stage.cdp();
          const { targetInfos } = await session.send('Target.getTargets');
          return targetInfos.filter((t) => t.type === 'shared_worker' && t.url.startsWith(demo.url)).length;
        },
      };
      try {
        await run(stage);
      } catch (error) {
        await screenshotAll(contexts, name);
        throw error;
      } finally {
        await cdp?.detach().catch(() => undefined);
        for (const context of contexts) await context.close().catch(() => undefined);
        await demo.stop();
        await emulator.stop();
      }
    },
    options.timeout ?? 90_000,
  );
}

/** The demo exposes its broker client for tests (Playwright cannot see into SharedWorkers). */
declare global {
  interface Window {
    __authbroker: import('../../../client/index.js').BrokerClient;
  }
}
