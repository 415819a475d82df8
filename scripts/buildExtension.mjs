#!/usr/bin/env node
// Builds the demo browser extension (demo-extension/) into an unpacked extension folder that
// Chromium (chrome://extensions, "Load unpacked") and Firefox (about:debugging, "Load Temporary
// Add-on") both load. `npm run build` calls it with the defaults (the emulator of `npm start`);
// the extension tests call `buildExtension` with their own emulator and choices.
//
// Each context is one file: the background may not import() (an MV3 service worker), and a
// content script is a classic script, so nothing is split into chunks.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * @param {{ outdir?: string; baseUrl?: string; tokenStore?: 'indexeddb' | 'session'; contentScripts?: boolean | { signOut?: boolean; accessToken?: boolean }; minify?: boolean; driver?: string }} [choices]
 * @returns {Promise<string>} the unpacked extension's folder
 */
export async function buildExtension(choices = {}) {
  const outdir = choices.outdir ?? fileURLToPath(new URL('../demo-extension/dist', import.meta.url));
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const define = {
    __AUTHBROKER_BASE_URL__: JSON.stringify(choices.baseUrl ?? 'http://127.0.0.1:8102'),
    __AUTHBROKER_TOKEN_STORE__: JSON.stringify(choices.tokenStore ?? 'indexeddb'),
    __AUTHBROKER_CONTENT_SCRIPTS__: JSON.stringify(choices.contentScripts ?? true),
    // Tests only: the loopback collector each context takes commands from (demo-extension/src/testDriver.ts).
    __AUTHBROKER_TEST_DRIVER__: JSON.stringify(choices.driver ?? null),
  };
  const common = { absWorkingDir: root, bundle: true, define, target: ['chrome120', 'firefox128'], sourcemap: 'linked', sourcesContent: true, legalComments: 'none', minify: choices.minify ?? false, logLevel: 'warning' };
  await build({ ...common, entryPoints: { background: 'demo-extension/src/background.ts', popup: 'demo-extension/src/popup.ts', options: 'demo-extension/src/options.ts' }, outdir, format: 'esm' });
  await build({ ...common, entryPoints: { content: 'demo-extension/src/content.ts' }, outdir, format: 'iife' });
  for (const name of readdirSync(new URL('../demo-extension/static', import.meta.url))) cpSync(fileURLToPath(new URL(`../demo-extension/static/${name}`, import.meta.url)), `${outdir}/${name}`);
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const outdir = await buildExtension();
  console.log(`Built the demo extension into ${outdir} in ${Date.now() - started} ms.`);
}
