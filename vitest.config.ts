import { defineConfig } from 'vitest/config';

/**
 * Test projects by environment. Unit and integration tests run in Node (integration tests start
 * a real emulator on loopback); React tests run in jsdom; package tests pack and install the
 * tarballs; end-to-end tests drive Chromium; the engines suite runs the core scenarios in Chromium,
 * Firefox and WebKit.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: [
            'test/{protocol,contract,emulator,worker,architecture,server,reliability,features}/**/*.test.ts',
            'test/real/differential/**/*.test.ts',
            'test/service-suite/**/*.test.ts',
          ],
          environment: 'node',
          testTimeout: 20_000,
          // The official SDK 2.7.23's shared package is ES modules with extension-less imports,
          // which Node's loader refuses; Vite's resolver (inlined dependencies) reads them.
          server: { deps: { inline: [/\/@stackframe\/stack-shared\//] } },
        },
      },
      {
        test: {
          name: 'react',
          include: ['test/client/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          // The packed tarballs, installed into scratch apps without a registry (test/package/support).
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          globalSetup: ['test/package/support/globalSetup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/globalSetup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The demo browser extension in Chromium and Firefox ESR (test/extension/support/browsers.ts).
          name: 'extension',
          include: ['test/extension/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // The core scenarios in Chromium, Firefox and WebKit (test/engines/support/browsers.ts),
          // after every other project has finished: they time reloads, which a busy machine would blur.
          name: 'engines',
          sequence: { groupOrder: 1 },
          include: ['test/engines/**/*.test.ts'],
          globalSetup: ['test/engines/support/globalSetup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
