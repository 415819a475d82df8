#!/usr/bin/env node
// `npm run build`: ESM + .d.ts for every entry (tsc), and the broker as single-file worker scripts
// for apps whose bundler does not bundle workers (copy them to your public folder).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const [entry, outfile] of [
  ['worker/hosts/sharedWorker.ts', 'dist/authbroker-shared-worker.js'],
  ['worker/hosts/serviceWorkerEntry.ts', 'dist/authbroker-service-worker.js'],
]) {
  await build({ absWorkingDir: root, entryPoints: [entry], outfile, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, sourcemap: true, legalComments: 'none' });
}
chmodSync(new URL('../dist/emulator/cli.js', import.meta.url), 0o755);
console.log(`Built dist/ in ${Date.now() - started} ms.`);
