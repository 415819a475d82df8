/**
 * The official SDK in Chromium against the emulator: the browser's CORS checks are what break
 * later releases (2.8.39 and after send `x-stack-allow-anonymous-user` and
 * `ngrok-skip-browser-warning`, which a preflight must allow; 2.8.108 sends every protocol header as
 * `x-hexclave-*` and reads `x-hexclave-*` answers). The page is served from its own
 * http://localhost origin, the emulator on 127.0.0.1, as an app in development would be.
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { OFFICIAL_SDKS } from '../support/officialSdk.js';
import { launchChromium, skipWithoutChromium } from './support/chromium.js';
import { uniqueEmail } from './support/ui.js';

const skip = skipWithoutChromium();
let browser: Browser | undefined;
let emulator: RunningEmulator | undefined;
let server: Server | undefined;
let pageUrl = '';

beforeAll(async () => {
  if (skip) return;
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./support/officialSdkPage.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  const script = bundle.outputFiles[0]!.contents;
  server = createServer((req, res) => {
    if (req.url === '/sdk.js')
      return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><meta charset="utf-8"><title>official SDK</title><script type="module" src="/sdk.js"></script>',
      );
  });
  await new Promise<void>((resolve) => server!.listen(0, 'localhost', resolve));
  pageUrl = `http://localhost:${(server.address() as AddressInfo).port}/`;
  [browser, emulator] = await Promise.all([launchChromium(), startEmulator({ port: 0 })]);
});

afterAll(async () => {
  await browser?.close();
  await emulator?.stop();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

describe.skipIf(skip).each(OFFICIAL_SDKS)('@stackframe/js $version in Chromium', (sdk) => {
  it('signs up, reads and updates the user, creates and lists teams, signs out, signs in with an expired token and refreshes, across origins', async () => {
    const em = emulator!;
    const context = await browser!.newContext();
    try {
      const page = await context.newPage();
      const failed: string[] = [];
      page.on('requestfailed', (request) =>
        failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`),
      );
      await page.exposeFunction('shiftEmulatorClock', (millis: number) => em.env.clock.advance(millis));
      await page.goto(pageUrl);
      await page.waitForFunction(() => typeof window.runOfficialSdk === 'function');
      const email = uniqueEmail('sdk-browser');
      const keys = em.projects.demo;
      const before = em.env.stats.snapshot().token_grants.refresh_token;
      const flow = await page.evaluate((options) => window.runOfficialSdk(options.alias, options), {
        alias: sdk.alias,
        baseUrl: em.url,
        projectId: keys.id,
        publishableClientKey: keys.publishableClientKey,
        tokenStore: 'cookie' as const,
        email,
        password: 'correct horse battery',
        verificationCallbackUrl: `${pageUrl}handler/email-verification`,
        expiredByMillis: em.env.accessTokenTtlMillis + 60_000,
      });
      expect(failed).toEqual([]);
      expect(flow.signedUpUser.primaryEmail).toBe(email);
      expect(flow.updatedDisplayName).toBe(`Renamed ${email}`);
      expect(flow.teamIds).toEqual([flow.createdTeamId]);
      expect(flow.signedOutUser).toBeNull();
      expect(flow.signedInUser).toEqual(flow.signedUpUser);
      expect(em.env.stats.snapshot().token_grants.refresh_token - before).toBeGreaterThanOrEqual(1);
    } finally {
      await context.close();
    }
  });
});
