#!/usr/bin/env node
// `npm run build` builds both packages of this repository; `node scripts/build.mjs <name>` one.
//
// authbroker (the root): ESM + .d.ts for every entry (tsc), and the broker as worker scripts for
//   apps whose bundler does not bundle workers (copy them, with the SharedWorker's lazy chunks, to
//   your public folder); how they are built (esbuild, then a second minifier pass) is scripts/workerBundles.mjs.
// The demo browser extension (demo-extension/dist): scripts/buildExtension.mjs.
// authbroker-emulator (emulator/): the emulator bundled by esbuild with the protocol code it uses,
//   its npm dependencies left as imports; declarations by tsc.
//
// Every source map carries its sources (sourcesContent): the packages ship no .ts files.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildExtension } from './buildExtension.mjs';
import { emitWithCompiledAhead } from './compiledAhead.mjs';
import { inPageBundle } from './inPageBundle.mjs';
import { buildWorker, workerBundles } from './workerBundles.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const runTsc = (project) => execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });

async function buildEmulator() {
  rmSync(new URL('../emulator/dist', import.meta.url), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { index: 'emulator/index.ts', cli: 'emulator/cli.ts' },
    outdir: 'emulator/dist',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Its dependencies are the package's own dependencies: installed, not copied in.
    packages: 'external',
    sourcemap: true,
    sourcesContent: true,
    legalComments: 'none',
  });
  runTsc('emulator/tsconfig.build.json');
  chmodSync(new URL('../emulator/dist/cli.js', import.meta.url), 0o755);
}

/** What the authbroker package ships from dist/ (package.json `files`); dist/demo is the demo's build, not ours. */
const BROWSER_PACKAGE_OUTPUTS = [
  'protocol',
  'worker',
  'client',
  'tooling',
  /^authbroker-(shared|service)-worker[\w-]*\.js(\.map)?$/,
];

async function buildBrowserPackage() {
  for (const name of existsSync(new URL('../dist', import.meta.url))
    ? readdirSync(new URL('../dist', import.meta.url))
    : []) {
    if (BROWSER_PACKAGE_OUTPUTS.some((output) => (typeof output === 'string' ? output === name : output.test(name))))
      rmSync(new URL(`../dist/${name}`, import.meta.url), { recursive: true, force: true });
  }
  // tooling/emulator.ts names the emulator package's types, so they must exist first.
  emitWithCompiledAhead(fileURLToPath(new URL('../tsconfig.build.json', import.meta.url)));
  const written = { outdir: 'dist', sourcemap: true, sourcesContent: true };
  await buildWorker({ ...workerBundles.sharedWorker, ...written });
  await buildWorker({ ...workerBundles.serviceWorker, ...written });
  await buildWorker({ ...workerBundles.serviceWorkerApp, ...written });
  // The in-page broker the tab loads as its last fallback (client/connect/hosts/inProcessHost.ts
  // imports worker/hosts/inPage.ts): a bundle of its own in place of tsc's module (see inPageBundle.mjs).
  await build({
    ...inPageBundle,
    absWorkingDir: root,
    outdir: 'dist/worker/hosts',
    sourcemap: true,
    sourcesContent: true,
    allowOverwrite: true,
  });
}

/**
 * The demo browser extension (demo-extension/dist, an unpacked extension for Chromium and Firefox): not part of any
 * package.
 */
async function buildDemoExtension() {
  await buildExtension();
}

const targets = {
  'authbroker-emulator': [buildEmulator],
  authbroker: [buildEmulator, buildBrowserPackage, buildDemoExtension],
};
const name = process.argv[2] ?? 'authbroker';
if (!(name in targets)) {
  console.error(`Unknown package "${name}": build one of ${Object.keys(targets).join(', ')}.`);
  process.exit(2);
}
const started = Date.now();
for (const step of targets[name]) await step();
console.log(
  `Built ${name === 'authbroker' ? 'dist/, emulator/dist/ and demo-extension/dist/' : 'emulator/dist/'} in ${Date.now() - started} ms.`,
);
