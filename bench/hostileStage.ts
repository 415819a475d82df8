/**
 * Where benches 11 and 12 run a hostile page beside the app: the bench pages in each engine the
 * machine has (Chromium and Firefox, through puppeteer-core as the cross-engine suite drives them),
 * against a bench emulator, a fresh profile per run with a signed-in app tab and a page of the same
 * origin that uses bench/pages/hostile.ts. Each page has a window of its own: a page in a background
 * tab has its timers slowed to one a second (Firefox does it at once), which would time the browser's
 * throttling rather than the broker.
 */
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import type { PageServer } from './browser.js';
import { sleep, type BenchEmulator } from './harness.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/e2e/support/chromium.js';
import { engineAvailable } from '../test/engines/support/browsers.js';
import type { EngineName, EngineTab } from '../test/engines/support/engine.js';

export const BENCH_ENGINES: readonly EngineName[] = ['chromium', 'firefox'];
const FIREFOX_PATH = process.env.AUTHBROKER_FIREFOX ?? '/usr/bin/firefox-esr';

export interface BenchEngine {
  name: EngineName;
  version: string;
  browser: Browser;
}

/** The app's tab (signed in, its user read once so that it is cached) and the hostile page, in one profile. */
export interface HostileRun {
  app: EngineTab;
  hostile: EngineTab;
  profile: { close(): Promise<void> };
}

export function benchPageUrl(pages: PageServer, emulator: BenchEmulator): string {
  const { em } = emulator;
  const params = new URLSearchParams({
    api: em.url,
    pid: em.projects.demo.id,
    pck: em.projects.demo.publishableClientKey,
    mode: 'idle',
  });
  return `${pages.url}/authbroker.html?${params}`;
}

async function launch(name: EngineName): Promise<BenchEngine> {
  const browser =
    name === 'firefox'
      ? await puppeteer.launch({
          browser: 'firefox',
          executablePath: FIREFOX_PATH,
          headless: true,
          extraPrefsFirefox: {
            'app.update.enabled': false,
            'network.captive-portal-service.enabled': false,
            'network.connectivity-service.enabled': false,
            'datareporting.policy.dataSubmissionEnabled': false,
            'toolkit.telemetry.enabled': false,
          },
        })
      : await puppeteer.launch({
          executablePath: CHROMIUM_PATH,
          headless: true,
          args: CHROMIUM_ARGS.filter((arg) => arg !== '--headless'),
        });
  return { name, version: await browser.version(), browser };
}

function tabOf(page: Page): EngineTab {
  return {
    evaluate: <A, R>(fn: (arg: A) => R | Promise<R>, arg: A) =>
      page.evaluate(fn as (arg: unknown) => Promise<R>, arg) as Promise<R>,
    reload: async () => void (await page.reload({ waitUntil: 'load' })),
    close: () => page.close(),
  };
}

async function openWindow(context: BrowserContext, url: string): Promise<EngineTab> {
  const page = await context.newPage({ type: 'window' });
  await page.goto(url, { waitUntil: 'load' });
  return tabOf(page);
}

export async function openHostileRun(engine: BenchEngine, url: string, emulator: BenchEmulator): Promise<HostileRun> {
  const context = await engine.browser.createBrowserContext();
  const app = await openWindow(context, url);
  await app.evaluate(() => window.__bench.ready(), null);
  const { email, password } = emulator.em.demoUser!;
  await app.evaluate(([e, p]) => window.__bench.signIn(e!, p!), [email, password]);
  await app.evaluate(() => (window.__bench.readUser as () => Promise<unknown>)(), null);
  const hostile = await openWindow(context, url);
  await hostile.evaluate(() => window.__bench.ready(), null);
  // The browser's own start-up work for the new windows settles first.
  await sleep(1000);
  return { app, hostile, profile: { close: () => context.close() } };
}

/** Runs `measure` in each engine the machine has; an engine that is not installed is reported, not failed. */
export async function eachEngine<T>(
  measure: (engine: BenchEngine) => Promise<T>,
): Promise<{ runs: Array<{ engine: EngineName; version: string; result: T }>; missing: EngineName[] }> {
  const runs: Array<{ engine: EngineName; version: string; result: T }> = [];
  const missing: EngineName[] = [];
  for (const name of BENCH_ENGINES) {
    if (!engineAvailable(name)) {
      missing.push(name);
      continue;
    }
    const engine = await launch(name);
    try {
      console.log(`  ${name} (${engine.version})…`);
      runs.push({ engine: name, version: engine.version, result: await measure(engine) });
    } finally {
      await engine.browser.close();
    }
  }
  return { runs, missing };
}
