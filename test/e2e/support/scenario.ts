import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { startEmulator, type EmulatorOptions } from '../../../emulator/index.js';
import { launchChromium, skipWithoutChromium } from './chromium.js';
import { serveDemo, type ServeDemoOptions } from './server.js';
import { browserStage } from './stageKit.js';

export type { Stage } from './stageKit.js';
import type { Stage } from './stageKit.js';

export const ARTIFACTS = new URL('../../../.artifacts/e2e/', import.meta.url);

const skip = skipWithoutChromium();
let browser: Browser | undefined;

beforeAll(async () => {
  if (!skip) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * One end-to-end scenario against a fresh emulator. When it fails, every open page is saved as a
 * screenshot in .artifacts/e2e/ before the error is reported.
 */
export function scenario(
  name: string,
  run: (stage: Stage) => Promise<void>,
  options: { emulator?: EmulatorOptions; demo?: ServeDemoOptions; timeout?: number } = {},
): void {
  it.skipIf(skip)(
    name,
    async () => {
      const emulator = await startEmulator({ port: 0, host: '127.0.0.1', ...options.emulator });
      const demo = await serveDemo(emulator, options.demo);
      // The demo's admin pages use admin access: its origin is allowed, as `npm start`'s localhost:5173 is by default.
      emulator.env.allowedOrigins = [...emulator.env.allowedOrigins, demo.url];
      const staged = browserStage(browser!, demo, name, ARTIFACTS);
      await staged
        .run(() => run({ ...staged.stage, emulator }))
        .finally(async () => {
          await demo.stop();
          await emulator.stop();
        });
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
