import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const root = fileURLToPath(new URL('../../..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The two packed tarballs and a scratch folder the package tests may use. */
    packages: { authbroker: string; emulator: string; scratch: string };
  }
}

/**
 * Packs both packages once for the package tests, as `npm publish` would (prepack builds them),
 * into a scratch folder under the system's temp directory that is removed afterwards.
 */
export default function setup(project: TestProject): () => void {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'authbroker-package-'));
  const pack = (args: string[]) => {
    try {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch, ...args], {
        cwd: root,
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      // The build's own diagnostics (tsc prints them on stdout) say why.
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`npm pack ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
    }
  };
  pack([]);
  // The root's prepack has just built the emulator too.
  pack(['--workspace', 'authbroker-emulator', '--ignore-scripts']);
  const tarball = (prefix: string) => {
    const name = readdirSync(scratch).find((file) => new RegExp(`^${prefix}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(file));
    if (name === undefined) throw new Error(`npm pack produced no ${prefix} tarball in ${scratch}.`);
    return join(scratch, name);
  };
  project.provide('packages', { authbroker: tarball('authbroker'), emulator: tarball('authbroker-emulator'), scratch });
  console.log(`Packed authbroker and authbroker-emulator for the package tests in ${Date.now() - started} ms.`);
  return () => rmSync(scratch, { recursive: true, force: true });
}
