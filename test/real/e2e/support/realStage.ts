import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../../../e2e/support/chromium.js';
import { openDemoPage } from '../../../e2e/support/demoPage.js';
import { serveDemoFor, type DemoServer } from '../../../e2e/support/server.js';
import { realTarget, realTargetFile, REAL_BACKEND_HEADERS, type ServiceTarget } from '../../../support/serviceTarget.js';

/** What one end-to-end flow against the real backend works with. */
export interface RealStage {
  target: ServiceTarget;
  demo: DemoServer;
  browser: Browser;
  newContext(): Promise<BrowserContext>;
  /** Opens the demo at `path` and waits until the app and its broker client are up. */
  openTab(context: BrowserContext, path?: string): Promise<Page>;
  /** A call with the project's secret server key, as an app's backend makes it. */
  server<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

const file = realTargetFile();
const skip = file === null || skipWithoutChromium();
let browser: Browser | undefined;
let demo: DemoServer | undefined;

beforeAll(async () => {
  if (skip) return;
  browser = await launchChromium();
  const target = realTarget(file!);
  // The development backend's artificial rate limit (100 calls in 10 s, CORS headers sometimes
  // dropped from its 429s) is off for the demo's calls too: the header is one its CORS allows.
  demo = await serveDemoFor({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    publishableClientKey: target.publishableClientKey,
    internalPublishableClientKey: target.internalPublishableClientKey,
    extraRequestHeaders: { ...REAL_BACKEND_HEADERS },
  });
});
afterAll(async () => {
  await demo?.stop();
  await browser?.close();
});

/** One flow in Chromium against the real backend; skipped outside the real-service lane. */
export function realScenario(name: string, run: (stage: RealStage) => Promise<void>, timeout = 300_000): void {
  it.skipIf(skip)(
    name,
    async () => {
      const target = realTarget(file!);
      const contexts: BrowserContext[] = [];
      const stage: RealStage = {
        target,
        demo: demo!,
        browser: browser!,
        async newContext() {
          const context = await browser!.newContext();
          contexts.push(context);
          return context;
        },
        openTab: (context, path = '/') => openDemoPage(context, `${demo!.url}${path}`, name, 30_000),
        async server<T>(method: string, path: string, body?: unknown) {
          const response = await fetch(`${target.baseUrl}/api/v1${path}`, {
            method,
            headers: {
              'x-stack-project-id': target.projectId,
              'x-stack-access-type': 'server',
              'x-stack-secret-server-key': target.secretServerKey,
              ...REAL_BACKEND_HEADERS,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${await response.text()}`);
          return (await response.json()) as T;
        },
      };
      try {
        await run(stage);
      } finally {
        for (const context of contexts) await context.close().catch(() => undefined);
      }
    },
    timeout,
  );
}
