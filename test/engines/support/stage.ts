import { afterAll, beforeAll, describe, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../emulator/index.js';
import { serveDemo, type DemoServer, type ServeDemoOptions } from '../../e2e/support/server.js';
import { skipEngine, launchEngine } from './browsers.js';
import { ENGINE_NAMES, type Engine, type EngineName, type EngineProfile, type EngineTab } from './engine.js';

/** What one scenario works with in one engine: a fresh emulator, the demo on its own origin, the engine's browser. */
export interface EngineStage {
  engine: Engine;
  emulator: RunningEmulator;
  demo: DemoServer;
  /** A fresh profile (one per simulated person); closed after the scenario. */
  newProfile(): Promise<EngineProfile>;
  /** Opens the demo at `path` in a new tab and waits until the app has made its broker client. */
  openApp(profile: EngineProfile, path?: string): Promise<EngineTab>;
}

export interface ScenarioOptions {
  emulator?: EmulatorOptions;
  /** A script every page runs before the app (e.g. removing SharedWorker). */
  pageScript?: string;
  /** The app's own API on the demo's origin (serveDemo's `api`). */
  api?: ServeDemoOptions['api'];
  timeout?: number;
}

export type DefineScenario = (
  name: string,
  run: (stage: EngineStage) => Promise<void>,
  options?: ScenarioOptions,
) => void;

export const DEFAULT_WAIT_MILLIS = 15_000;

/**
 * Polls `probe` in a tab until it returns something truthy; a timeout names what was awaited and
 * the last value seen. Nothing here sleeps for a fixed time.
 */
export async function waitInTab<A, R>(
  tab: EngineTab,
  what: string,
  probe: (arg: A) => R | Promise<R>,
  arg: A,
  timeoutMillis = DEFAULT_WAIT_MILLIS,
): Promise<NonNullable<R>> {
  const deadline = Date.now() + timeoutMillis;
  let last: unknown;
  for (;;) {
    try {
      const value = await tab.evaluate(probe, arg);
      if (value) return value as NonNullable<R>;
      last = value;
    } catch (error) {
      last = `error: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`;
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMillis} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Registers the scenarios `define` makes once per engine (Chromium, Firefox, WebKit), each engine's
 * browser launched once for them all. An engine that is missing is skipped with a message, except
 * in CI, where that is a failure.
 */
export function inEveryEngine(define: (scenario: DefineScenario, engineName: EngineName) => void): void {
  describe.each(ENGINE_NAMES)('%s', (engineName) => {
    const skip = skipEngine(engineName);
    let engine: Engine | undefined;
    beforeAll(async () => {
      if (!skip) engine = await launchEngine(engineName);
    }, 90_000);
    afterAll(async () => {
      await engine?.close();
    }, 30_000);

    const scenario: DefineScenario = (name, run, options = {}) => {
      it.skipIf(skip)(
        name,
        async () => {
          const emulator = await startEmulator({ port: 0, host: '127.0.0.1', ...options.emulator });
          const demo = await serveDemo(emulator, { pageScript: options.pageScript, api: options.api });
          const profiles: EngineProfile[] = [];
          const stage: EngineStage = {
            engine: engine!,
            emulator,
            demo,
            async newProfile() {
              const profile = await engine!.newProfile();
              profiles.push(profile);
              return profile;
            },
            async openApp(profile, path = '/') {
              const tab = await profile.openTab(`${demo.url}${path}`);
              await waitInTab(
                tab,
                'the app and its broker client',
                () => (window as unknown as { __authbroker?: unknown }).__authbroker !== undefined,
                null,
              );
              return tab;
            },
          };
          try {
            await run(stage);
          } finally {
            for (const profile of profiles) await profile.close().catch(() => undefined);
            await demo.stop();
            await emulator.stop();
          }
        },
        options.timeout ?? 90_000,
      );
    };
    define(scenario, engineName);
  });
}
