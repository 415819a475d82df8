import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { packBoth } from '../../../scripts/packLocal.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The two packed tarballs and a scratch folder the package tests may use. */
    packages: { authbroker: string; emulator: string; scratch: string };
  }
}

/**
 * Packs both packages once for the package tests, as `npm publish` would (prepack builds them), with
 * `npm run pack:local`'s code (scripts/packLocal.mjs), into a scratch folder under the system's temp
 * directory that is removed afterwards.
 */
export default function setup(project: TestProject): () => void {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'authbroker-package-'));
  // What `npm run pack:local` does, into a folder of the tests' own.
  project.provide('packages', { ...packBoth(scratch), scratch });
  console.log(`Packed authbroker and authbroker-emulator for the package tests in ${Date.now() - started} ms.`);
  return () => rmSync(scratch, { recursive: true, force: true });
}
