import { defineConfig } from 'vitest/config';

/**
 * The real-service lane (`npm run test:real`, scripts/real/run.ts): only run with the real backend
 * up and `AUTHBROKER_SERVICE_TARGET=real:<file>` set. Not part of `npm test` or CI: it needs the
 * backend (several GB, minutes to start). Every file here talks to one shared backend, one at a time.
 */
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
        test: {
          name: 'real-e2e',
          include: ['test/real/e2e/**/*.test.ts'],
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
