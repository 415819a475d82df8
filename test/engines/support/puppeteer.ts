import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM_ARGS } from '../../e2e/support/chromium.js';
import type { Engine, EngineProfile, EngineTab } from './engine.js';

/**
 * Chromium (CDP) and Firefox (WebDriver BiDi) through puppeteer-core, which downloads no browser:
 * it drives Debian's `chromium` and `firefox-esr`, headless. Each profile is a browser context of
 * one browser, launched once per engine.
 */
function tabOf(page: Page): EngineTab {
  return {
    evaluate: <A, R>(fn: (arg: A) => R | Promise<R>, arg: A) =>
      page.evaluate(fn as (arg: unknown) => Promise<R>, arg) as Promise<R>,
    reload: async () => {
      await page.reload({ waitUntil: 'load' });
    },
    close: () => page.close(),
  };
}

function engineOf(name: 'chromium' | 'firefox', browser: Browser, version: string): Engine {
  return {
    name,
    version,
    async newProfile(): Promise<EngineProfile> {
      const context = await browser.createBrowserContext();
      return {
        async openTab(url) {
          const page = await context.newPage();
          await page.goto(url, { waitUntil: 'load' });
          return tabOf(page);
        },
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

export async function launchChromium(executablePath: string): Promise<Engine> {
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS.filter((arg) => arg !== '--headless'),
  });
  return engineOf('chromium', browser, await browser.version());
}

export async function launchFirefox(executablePath: string): Promise<Engine> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    // A closed network: no update checks, captive-portal probes or telemetry knocking on it.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'toolkit.telemetry.enabled': false,
    },
  });
  return engineOf('firefox', browser, await browser.version());
}
