#!/usr/bin/env node
// Builds the demo browser extension (demo-extension/) into an unpacked extension folder that
// Chromium (chrome://extensions, "Load unpacked") and Firefox (about:debugging, "Load Temporary
// Add-on") both load. `npm run build` calls it with the defaults (the emulator of `npm start`);
// the extension tests call `buildExtension` with their own emulator and choices.
//
// The background and the pages are built the way an app's own build would: one build with several
// entries, code-splitting on (Vite's library build, or esbuild with `splitting: true`), so the
// background is an ES module that imports shared chunks statically (the manifest's
// `"type": "module"`). Nothing of authbroker/extension uses import(), which an MV3 service worker
// may not call. The content script is a classic script: one file of its own, nothing split.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TARGET = ['chrome120', 'firefox128'];
const MODULE_ENTRIES = {
  background: 'demo-extension/src/background.ts',
  popup: 'demo-extension/src/popup.ts',
  options: 'demo-extension/src/options.ts',
};

/**
 * The background and the pages with Vite: a library build with several entries splits their shared code into chunks.
 */
async function withVite(outdir, define, minify) {
  const { build: viteBuild } = await import('vite');
  await viteBuild({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    define,
    build: {
      outDir: outdir,
      emptyOutDir: false,
      target: TARGET,
      minify,
      sourcemap: true,
      modulePreload: false,
      lib: { entry: MODULE_ENTRIES, formats: ['es'], fileName: (_format, name) => `${name}.js` },
    },
  });
}

/** The same with esbuild and `splitting: true`. */
async function withEsbuild(outdir, common) {
  await build({
    ...common,
    entryPoints: MODULE_ENTRIES,
    outdir,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
}

/**
 * @param {import('./buildExtension.d.mts').ExtensionBuildChoices} [choices]
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
  const minify = choices.minify ?? false;
  const common = {
    absWorkingDir: root,
    bundle: true,
    define,
    target: TARGET,
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    minify,
    logLevel: 'warning',
  };
  if ((choices.bundler ?? 'vite') === 'vite') await withVite(outdir, define, minify);
  else await withEsbuild(outdir, common);
  await build({ ...common, entryPoints: { content: 'demo-extension/src/content.ts' }, outdir, format: 'iife' });
  for (const name of readdirSync(new URL('../demo-extension/static', import.meta.url)))
    cpSync(fileURLToPath(new URL(`../demo-extension/static/${name}`, import.meta.url)), `${outdir}/${name}`);
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const outdir = await buildExtension();
  console.log(`Built the demo extension into ${outdir} in ${Date.now() - started} ms.`);
}
