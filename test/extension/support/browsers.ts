import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { RunningEmulator } from '../../../emulator/index.js';
import { buildExtension } from '../../../scripts/buildExtension.mjs';
import { CHROMIUM_PATH } from '../../e2e/support/chromium.js';
import type { Collector, DriverContext } from './collector.js';
import { packXpi } from './xpi.js';

export type ExtensionEngine = 'chromium' | 'firefox';
export const FIREFOX_PATH = process.env.AUTHBROKER_FIREFOX ?? '/usr/bin/firefox-esr';
/** The demo extension's ids: Chromium's follows from the manifest's `key`, Firefox's UUID is fixed by a preference. */
export const CHROMIUM_EXTENSION_ID = 'nkfhlofegonjdoefllidhjigbpeabaen';
export const GECKO_ID = 'demo-extension@authbroker.dev';
export const FIREFOX_UUID = '6a1f3a52-27d4-4a49-9d43-3c7e2b7a1e01';

/** Whether to skip an engine: never in CI, where `.ci/run` installs both. */
export function skipExtensionEngine(engine: ExtensionEngine): boolean {
  const path = engine === 'chromium' ? CHROMIUM_PATH : FIREFOX_PATH;
  if (existsSync(path)) return false;
  if (process.env.CI) throw new Error(`CI=true but ${engine} is missing at ${path}: .ci/run installs it.`);
  console.warn(`\n⚠️  EXTENSION TESTS IN ${engine.toUpperCase()} SKIPPED: nothing at ${path}.\n`);
  return true;
}

/** A web page on loopback, where the content script runs: plain HTML of a site that knows nothing of the extension. */
export async function startWebSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><html><head><title>A web page</title></head><body><p>A web page.</p></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface BuildChoices {
  tokenStore?: 'indexeddb' | 'session';
  contentScripts?: boolean | { signOut?: boolean; accessToken?: boolean };
  /**
   * Firefox only: how long the background may stay idle before the browser suspends it (the
   * `extensions.background.idle.timeout` preference; 30 s by default, as Chromium's fixed limit).
   * With it, `stopBackground` waits for the browser's own suspension instead of asking for one.
   */
  firefoxIdleMillis?: number;
}

/** A browser with the demo extension installed, driven through the collector. */
export interface ExtensionBrowser {
  engine: ExtensionEngine;
  /** The background's newest instance (a new one after each restart of the background). */
  background(after?: number): Promise<DriverContext>;
  /** Opens one of the extension's pages in a tab (the background opens it) and waits for its driver. */
  openExtensionPage(path: 'popup.html' | 'sidepanel.html' | 'options.html'): Promise<DriverContext>;
  /** Opens a web page; its content script's driver, and the page for the page's own scripts. */
  openWebPage(url: string): Promise<{ page: Page; content: DriverContext }>;
  /**
   * Resolves once the browser reports the background stopped. Chromium: stopped as
   * chrome://serviceworker-internals' "Stop" does. Firefox: by the call its idle timer makes when it
   * runs out, or, with `firefoxIdleMillis`, by that timer itself (this waits for it).
   */
  stopBackground(): Promise<void>;
  /** Closes the browser and starts it again on the same profile, the extension installed there for good. */
  restart(): Promise<void>;
  /** The underlying browser, for what only one engine can do. */
  browser(): Browser;
  close(): Promise<void>;
}

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchWithExtension(
  engine: ExtensionEngine,
  emulator: RunningEmulator,
  collector: Collector,
  choices: BuildChoices = {},
): Promise<ExtensionBrowser> {
  const { firefoxIdleMillis, ...buildChoices } = choices;
  const outdir = mkdtempSync(join(tmpdir(), `authbroker-extension-${engine}-`));
  const profile = mkdtempSync(join(tmpdir(), `authbroker-profile-${engine}-`));
  const dir = await buildExtension({ outdir, baseUrl: emulator.url, driver: collector.url, ...buildChoices });
  let installed = false;
  const launch = async (): Promise<Browser> => {
    if (engine === 'chromium')
      return puppeteer.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        pipe: true,
        enableExtensions: [dir],
        userDataDir: profile,
        args: CHROMIUM_FLAGS,
      });
    const firefox = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      userDataDir: profile,
      // The tests observe the background's state from the browser's own code (WebDriver BiDi's chrome scope).
      args: ['--remote-allow-system-access'],
      extraPrefsFirefox: {
        'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: FIREFOX_UUID }),
        // Installed for good, as a user's add-on is (a temporary one is gone at the next start):
        // Firefox ESR, Developer Edition and Nightly install unsigned add-ons with this preference.
        'xpinstall.signatures.required': false,
        // MV3 host permissions (the content script's matches) granted at install, as a user would.
        'extensions.originControls.grantByDefault': true,
        ...(firefoxIdleMillis === undefined ? {} : { 'extensions.background.idle.timeout': firefoxIdleMillis }),
        'app.update.enabled': false,
        'network.captive-portal-service.enabled': false,
        'network.connectivity-service.enabled': false,
        'datareporting.policy.dataSubmissionEnabled': false,
        'toolkit.telemetry.enabled': false,
      },
    });
    if (!installed) {
      await bidi(firefox).send('webExtension.install', {
        extensionData: { type: 'archivePath', path: packXpi(dir, `${outdir}.xpi`) },
        'moz:permanent': true,
      });
      installed = true;
    }
    return firefox;
  };
  let browser = await launch();
  const self: ExtensionBrowser = {
    engine,
    background: (after = 0) => collector.context('background', { after }),
    async openExtensionPage(path) {
      const after = Date.now() - 1;
      await collector.run(await self.background(), 'openPage', { path });
      return collector.context(path.replace('.html', ''), { after });
    },
    async openWebPage(url) {
      const after = Date.now() - 1;
      const page = await browser.newPage();
      await page.goto(url, { waitUntil: 'load' });
      return { page, content: await collector.context('content', { after }) };
    },
    stopBackground: () =>
      engine === 'chromium' ? stopChromiumBackground(browser) : stopFirefoxBackground(browser, firefoxIdleMillis),
    async restart() {
      await browser.close();
      browser = await launch();
    },
    browser: () => browser,
    async close() {
      await browser.close().catch(() => undefined);
      rmSync(outdir, { recursive: true, force: true });
      rmSync(`${outdir}.xpi`, { force: true });
      rmSync(profile, { recursive: true, force: true });
    },
  };
  return self;
}

/** What chrome://serviceworker-internals' "Stop" does; the next event (a port) starts the background again. */
async function stopChromiumBackground(browser: Browser): Promise<void> {
  const page = await browser.newPage();
  const session = await page.createCDPSession();
  // Resolved once the browser reports the background stopped (the command itself returns before).
  const stopped = new Promise<void>((resolve) => {
    session.on(
      'ServiceWorker.workerVersionUpdated',
      ({ versions }: { versions: Array<{ scriptURL: string; runningStatus: string }> }) => {
        if (
          versions.some(
            (v) =>
              v.scriptURL.startsWith(`chrome-extension://${CHROMIUM_EXTENSION_ID}/`) && v.runningStatus === 'stopped',
          )
        )
          resolve();
      },
    );
  });
  await session.send('ServiceWorker.enable');
  await session.send('ServiceWorker.stopAllWorkers');
  await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 5000))]);
  await session.detach();
  await page.close();
}

/** The raw WebDriver BiDi connection puppeteer drives Firefox over (for what it has no method for). */
interface BidiConnection {
  send(method: string, params: object): Promise<{ result: unknown }>;
}
function bidi(browser: Browser): BidiConnection {
  return (browser as unknown as { connection: BidiConnection }).connection;
}

/**
 * Runs an expression in the browser's own window (BiDi's chrome scope, open with --remote-allow-system-access) and
 * resolves with its value.
 */
async function inFirefoxChrome(browser: Browser, expression: string): Promise<unknown> {
  const tree = (await bidi(browser).send('browsingContext.getTree', { 'moz:scope': 'chrome' })).result as {
    contexts: Array<{ context: string }>;
  };
  const evaluated = (
    await bidi(browser).send('script.evaluate', {
      expression,
      target: { context: tree.contexts[0]!.context },
      awaitPromise: true,
    })
  ).result as { type: string; result?: { value?: unknown }; exceptionDetails?: { text: string } };
  if (evaluated.type === 'exception') throw new Error(`In Firefox: ${evaluated.exceptionDetails?.text}`);
  return evaluated.result?.value;
}

/**
 * Firefox suspends an idle event page by `extension.terminateBackground()` (what its idle timer
 * calls when it runs out, and about:debugging's "Terminate background script"), and reports the stop
 * to its devtools as `extension:background-script-status`, which this waits for. With an idle
 * timeout set (`firefoxIdleMillis`), the timer itself does it: this only waits, up to twice that
 * timeout and a few seconds more.
 */
async function stopFirefoxBackground(browser: Browser, idleMillis: number | undefined): Promise<void> {
  const wait = (idleMillis ?? 0) * 2 + 5000;
  await inFirefoxChrome(
    browser,
    `(async () => {
      const id = ${JSON.stringify(GECKO_ID)};
      const topic = 'extension:background-script-status';
      const extension = WebExtensionPolicy.getByID(id)?.extension;
      if (!extension) throw new Error(id + ' is not installed');
      let observer;
      const stopped = new Promise((resolve, reject) => {
        observer = { observe: (subject) => { const { addonId, isRunning } = subject.wrappedJSObject; if (addonId === id && !isRunning) resolve(); } };
        Services.obs.addObserver(observer, topic);
        setTimeout(() => reject(new Error('the background did not stop within ${wait} ms; it is ' + extension.backgroundState)), ${wait});
      });
      try {
        ${idleMillis === undefined ? 'await extension.terminateBackground();' : ''}
        await stopped;
      } finally {
        Services.obs.removeObserver(observer, topic);
      }
    })()`,
  );
}
