import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEMO_DIST = fileURLToPath(new URL('../../../dist/demo', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Builds the demo (production build) once per test run; the globalSetup of each browser suite calls this. */
export function buildDemo(): void {
  // Both browser suites need it; in one run, the first to ask builds it.
  if (process.env.AUTHBROKER_DEMO_BUILT === String(process.pid) && demoBuilt()) return;
  const started = Date.now();
  execFileSync(
    process.execPath,
    [
      fileURLToPath(new URL('../../../node_modules/vite/bin/vite.js', import.meta.url)),
      'build',
      '--config',
      'demo/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (!existsSync(`${DEMO_DIST}/index.html`)) throw new Error('The demo build produced no index.html.');
  process.env.AUTHBROKER_DEMO_BUILT = String(process.pid);
  console.log(`Built the demo for the end-to-end tests in ${Date.now() - started} ms.`);
}

export function demoBuilt(): boolean {
  try {
    return statSync(`${DEMO_DIST}/index.html`).isFile() && readFileSync(`${DEMO_DIST}/index.html`, 'utf8').length > 0;
  } catch {
    return false;
  }
}
