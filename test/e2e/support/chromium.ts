import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.AUTHBROKER_CHROMIUM ?? '/usr/bin/chromium';
/** Flags that work on these machines (BROWSER-NOTES.md): no sandbox as root, no background networking. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const chromiumAvailable = existsSync(CHROMIUM_PATH);

/**
 * End-to-end tests need Chromium. Outside CI they are skipped loudly when it is missing; in CI
 * (where .ci/run installs it) a missing browser is a failure, never a skip.
 */
export function skipWithoutChromium(): boolean {
  if (chromiumAvailable) return false;
  if (process.env.CI)
    throw new Error(
      `CI=true but Chromium is missing at ${CHROMIUM_PATH}: .ci/run installs it (apt-get install -y chromium).`,
    );
  console.warn(
    `\n⚠️  END-TO-END TESTS SKIPPED: Chromium not found at ${CHROMIUM_PATH}.\n    Install it with: sudo apt-get install -y chromium   (or set AUTHBROKER_CHROMIUM to its path)\n`,
  );
  return true;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
