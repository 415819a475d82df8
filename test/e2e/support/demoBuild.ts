import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEMO_DIST = fileURLToPath(new URL('../../../dist/demo', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Builds the demo (production build) once per test run; vitest's globalSetup calls this. */
export function buildDemo(): void {
  const started = Date.now();
  execFileSync(process.execPath, [fileURLToPath(new URL('../../../node_modules/vite/bin/vite.js', import.meta.url)), 'build', '--config', 'demo/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (!existsSync(`${DEMO_DIST}/index.html`)) throw new Error('The demo build produced no index.html.');
  console.log(`Built the demo for the end-to-end tests in ${Date.now() - started} ms.`);
}

export function demoBuilt(): boolean {
  try {
    return statSync(`${DEMO_DIST}/index.html`).isFile() && readFileSync(`${DEMO_DIST}/index.html`, 'utf8').length > 0;
  } catch {
    return false;
  }
}
