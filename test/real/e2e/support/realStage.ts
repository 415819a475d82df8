import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import type { EmulatorOptions, RunningEmulator } from '../../../../emulator/index.js';
import { launchChromium, skipWithoutChromium } from '../../../e2e/support/chromium.js';
import { browserStage, type Stage } from '../../../e2e/support/stageKit.js';
import { serveDemoFor, type DemoServer, type ServeDemoOptions } from '../../../e2e/support/server.js';
import {
  realTarget,
  realTargetFile,
  REAL_BACKEND_HEADERS,
  type ProjectTarget,
  type RealTargetFile,
  type ServiceTarget,
} from '../../../support/serviceTarget.js';
import { createDemoProject, DEMO_USER } from '../../support/realProject.js';
import { whyNotOnRealBackend } from '../../suites.js';

/**
 * Chromium against the real backend, for two kinds of scenario: the lane's own flows
 * (`realScenario`, test/real/e2e/flows.test.ts, on the lane's project), and our end-to-end suites of
 * test/e2e (`scenario`: the lane's vitest config loads this module in place of
 * test/e2e/support/scenario.ts for them), each on a fresh project of the real backend, as each gets a
 * fresh emulator in `npm test`. Pages that fail are saved as screenshots in .artifacts/real/e2e/.
 */
export const ARTIFACTS = new URL('../../../../.artifacts/real/e2e/', import.meta.url);

/** What one of the lane's own flows works with. */
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

beforeAll(async () => {
  if (!skip) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * The demo served for a project of the real backend (the development delay off for its calls too: the header is one its
 * CORS allows).
 */
function serveDemoOn(project: ProjectTarget, backend: RealTargetFile, options?: ServeDemoOptions): Promise<DemoServer> {
  const { baseUrl, projectId, publishableClientKey } = project;
  return serveDemoFor(
    {
      baseUrl,
      projectId,
      publishableClientKey,
      internalPublishableClientKey: backend.internalPublishableClientKey,
      extraRequestHeaders: { ...REAL_BACKEND_HEADERS },
    },
    options,
  );
}

/**
 * One of the lane's own flows in Chromium against the real backend, on the lane's project; skipped outside the lane.
 */
export function realScenario(name: string, run: (stage: RealStage) => Promise<void>, timeout = 300_000): void {
  it.skipIf(skip)(
    name,
    async () => {
      const target = realTarget(file!);
      const demo = await serveDemoOn(target, file!);
      const staged = browserStage(browser!, demo, name, ARTIFACTS, 30_000);
      const stage: RealStage = {
        target,
        demo,
        browser: browser!,
        newContext: staged.stage.newContext,
        openTab: staged.stage.openTab,
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
      await staged.run(() => run(stage)).finally(() => demo.stop());
    },
    timeout,
  );
}

/**
 * Reading a field `known` lacks fails, naming it: what a scenario reads of the emulator beyond its URL and keys is the
 * emulator's own.
 */
function only<T extends object>(known: T, what: string): T {
  return new Proxy(known, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key === 'then' || key in target) return Reflect.get(target, key, receiver);
      throw new Error(
        `This scenario uses ${what}.${key}, which the real backend does not have: list it in test/real/suites.ts, with why.`,
      );
    },
  });
}

/**
 * The emulator of a test/e2e scenario, on the real backend: where the service is, its project's keys, the demo user.
 * Nothing else.
 */
function emulatorStandIn(project: ProjectTarget, backend: RealTargetFile): RunningEmulator {
  const { projectId: id, publishableClientKey, secretServerKey, superSecretAdminKey } = project;
  const projects = {
    demo: { id, publishableClientKey, secretServerKey, superSecretAdminKey },
    internal: only(
      { id: 'internal', publishableClientKey: backend.internalPublishableClientKey },
      'the internal project',
    ),
  };
  return only(
    { url: project.baseUrl, apiUrl: `${project.baseUrl}/api/v1`, projects, demoUser: { ...DEMO_USER } },
    'the emulator',
  ) as unknown as RunningEmulator;
}

/**
 * A scenario of test/e2e against the real backend: test/e2e/support/scenario.ts's `scenario`, with a
 * fresh project (configured like the emulator's demo project, its demo user in it) where that gives a
 * fresh emulator. Skipped where test/real/suites.ts says why, or where it asks for emulator options.
 */
export function scenario(
  name: string,
  run: (stage: Stage) => Promise<void>,
  options: { emulator?: EmulatorOptions; demo?: ServeDemoOptions; timeout?: number } = {},
): void {
  const why =
    options.emulator === undefined
      ? whyNotOnRealBackend(name)
      : `runs the emulator with options of its own (${Object.keys(options.emulator).join(', ')})`;
  it.skipIf(skip || why !== null)(
    name,
    async () => {
      const project = await createDemoProject(file!, `e2e ${name.slice(0, 40)}`);
      const demo = await serveDemoOn(project, file!, options.demo);
      const staged = browserStage(browser!, demo, name, ARTIFACTS, 30_000);
      await staged
        .run(() => run({ ...staged.stage, emulator: emulatorStandIn(project, file!) }))
        .finally(() => demo.stop());
    },
    // Each call of the development backend takes longer than the emulator's, and the project is made first.
    2 * (options.timeout ?? 90_000) + 60_000,
  );
}
