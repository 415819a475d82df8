// `npm run pack:local`: both packages built and packed as `npm publish` would (the root's prepack
// builds both), into .packs/ (git-ignored), for apps to install from a clone of this repository
// until the packages are on the npm registry. The package tests pack with the same function into a
// folder of their own (test/package/support/globalSetup.ts), and install the lines the README and
// the getting-started guide give verbatim (test/package/packLocal.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where `npm run pack:local` puts the tarballs. */
export const PACKS_FOLDER = join(root, '.packs');

/**
 * A package's tarball in `folder`, as `npm pack` names it (`authbroker-0.1.0.tgz`; a version starts
 * with a digit, so `authbroker-` never finds the emulator's).
 * @param {string} folder
 * @param {string} name
 */
function tarballIn(folder, name) {
  const file = readdirSync(folder).find((entry) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+[^/]*\\.tgz$`).test(entry));
  if (file === undefined) throw new Error(`npm pack produced no ${name} tarball in ${folder}.`);
  return join(folder, file);
}

/**
 * Builds and packs authbroker and authbroker-emulator into `folder` (created; older tarballs of
 * theirs removed first), and gives the two tarballs' paths.
 * @param {string} folder
 * @returns {{ authbroker: string; emulator: string }}
 */
export function packBoth(folder) {
  mkdirSync(folder, { recursive: true });
  for (const entry of readdirSync(folder))
    if (/^authbroker(-emulator)?-\d.*\.tgz$/.test(entry)) rmSync(join(folder, entry));
  const pack = (/** @type {string[]} */ args) => {
    try {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', folder, ...args], {
        cwd: root,
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      // The build's own diagnostics (tsc prints them on stdout) say why.
      const { stdout = '', stderr = '' } = /** @type {{ stdout?: string; stderr?: string }} */ (error);
      throw new Error(`npm pack ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
    }
  };
  pack([]);
  // The root's prepack has just built the emulator too.
  pack(['--workspace', 'authbroker-emulator', '--ignore-scripts']);
  return { authbroker: tarballIn(folder, 'authbroker'), emulator: tarballIn(folder, 'authbroker-emulator') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const { authbroker, emulator } = packBoth(PACKS_FOLDER);
  const shown = (/** @type {string} */ path) => relative(process.cwd(), path) || path;
  console.log(`Built and packed in ${((Date.now() - started) / 1000).toFixed(0)} s:
  ${shown(authbroker)}
  ${shown(emulator)}

Install them in your app:
  npm install ${authbroker}
  npm install --save-dev ${emulator}`);
}
