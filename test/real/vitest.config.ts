import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { E2E_SUITES } from './suites.js';

/**
 * The real-service lane (`npm run test:real`, scripts/real/run.ts): only run with the real backend
 * up and `AUTHBROKER_SERVICE_TARGET=real:<file>` set. Not part of `npm test` or CI: it needs the
 * backend (several GB, minutes to start). Every file here talks to one shared backend, one at a time.
 */
const E2E_HARNESS = 'test/e2e/support/scenario.ts';
const REAL_HARNESS = fileURLToPath(new URL('./e2e/support/realStage.ts', import.meta.url));

/**
 * Our end-to-end suites (test/e2e) run here as they are written, over `scenario` from their
 * support/scenario.ts; for them that module is replaced by test/real/e2e/support/realStage.ts, whose
 * `scenario` puts each on a fresh project of the real backend instead of a fresh emulator.
 */
function e2eScenariosOnTheRealBackend(): Plugin {
  return {
    name: 'authbroker:e2e-scenarios-on-the-real-backend',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (importer === undefined || !importer.includes('/test/e2e/') || !source.endsWith('scenario.js')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id.endsWith(E2E_HARNESS) ? REAL_HARNESS : null;
    },
  };
}

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    projects: [
      {
        test: {
          name: 'real',
          // The suites written over a service target (test/support/serviceTarget.ts) run here against the real backend.
          include: ['test/real/**/*.test.ts', 'test/server/serviceTarget.test.ts', 'test/features/**/*.test.ts'],
          exclude: ['test/real/e2e/**'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        plugins: [e2eScenariosOnTheRealBackend()],
        test: {
          name: 'real-e2e',
          // The lane's own Chromium flows, and the suites of test/e2e that can run here (test/real/suites.ts says why
          // the others do not).
          include: [
            'test/real/e2e/**/*.test.ts',
            ...E2E_SUITES.filter((s) => s.notRunning === undefined).map((s) => `test/e2e/${s.file}`),
          ],
          globalSetup: ['test/e2e/support/globalSetup.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
