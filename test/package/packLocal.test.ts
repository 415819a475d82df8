import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { PACKS_FOLDER } from '../../scripts/packLocal.mjs';
import { declaredDependencies, repoRoot, run, scratchApp } from './support/scratch.js';

/**
 * Issue 40: `npm install authbroker` is a 404 until the packages are published, so the README's
 * quick start and the getting-started guide build them from a clone (`npm run pack:local`,
 * scripts/packLocal.mjs, whose code packed the tarballs of every package test:
 * support/globalSetup.ts) and install them with two lines. Those lines run here as written, in an
 * app beside a folder `authbroker` with the tarballs where pack:local puts them, with npm's
 * registry out of reach (every other dependency is linked from this repository, as in scratchApp).
 */
const rootDependencies = Object.keys(declaredDependencies(repoRoot));
const emulatorDependencies = Object.keys(declaredDependencies(join(repoRoot, 'emulator')));

/** The `npm install` lines of a page's sh blocks that install from a clone's .packs folder. */
function installLines(markdownPath: string): string[] {
  const markdown = readFileSync(join(repoRoot, markdownPath), 'utf8');
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(([, block]) =>
    block!.split('\n').filter((line) => /^npm install .*\.packs\//.test(line)),
  );
}

describe('the install route of the README and the getting-started guide', () => {
  const lines = installLines('README.md');
  let app = '';

  beforeAll(async () => {
    const { scratch, authbroker, emulator } = inject('packages');
    // The clone beside the app, with what `npm run pack:local` leaves in it.
    const packs = join(scratch, 'authbroker', '.packs');
    mkdirSync(packs, { recursive: true });
    for (const tarball of [authbroker, emulator]) copyFileSync(tarball, join(packs, basename(tarball)));
    app = await scratchApp('my-app', {
      tarballs: [],
      dependencies: [...new Set([...rootDependencies, ...emulatorDependencies])],
    });
  });

  it('is the same in both, and builds into .packs/, which git ignores', () => {
    expect(lines).toEqual([
      'npm install ../authbroker/.packs/authbroker-0.1.0.tgz',
      'npm install --save-dev ../authbroker/.packs/authbroker-emulator-0.1.0.tgz',
    ]);
    expect(installLines('docs/guide/getting-started.md')).toEqual(lines);
    for (const page of ['README.md', 'docs/guide/getting-started.md'])
      expect(readFileSync(join(repoRoot, page), 'utf8')).toMatch(
        /^cd authbroker && npm ci && npm run pack:local && cd \.\.(\s|$)/m,
      );
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
      scripts: Record<string, string>;
    };
    expect(manifest.scripts['pack:local']).toBe('node scripts/packLocal.mjs');
    expect(PACKS_FOLDER).toBe(join(repoRoot, '.packs'));
    // The version in the lines is the packages' own (npm pack names the tarballs with it).
    expect(lines.join('\n')).toContain(`authbroker-${manifest.version}.tgz`);
    const ignored = readFileSync(join(repoRoot, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.packs/', '/*.tgz']));
  });

  it('installs both packages as written, with no install script to approve, and the emulator runs', async () => {
    for (const line of lines) {
      const installed = await run('sh', ['-c', line], app, {
        npm_config_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      });
      expect(installed.code, `${line}\n${installed.stderr}`).toBe(0);
      // npm 11 lists the packages whose install scripts it did not run: there must be none.
      expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/install scripts|allowScripts/i);
    }
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.dependencies.authbroker).toBe('file:../authbroker/.packs/authbroker-0.1.0.tgz');
    expect(manifest.devDependencies['authbroker-emulator']).toBe(
      'file:../authbroker/.packs/authbroker-emulator-0.1.0.tgz',
    );
    const help = await run(join(app, 'node_modules/.bin/authbroker-emulator'), ['--help'], app);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--port N');
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { createBrokerClient } = await import('authbroker/client'); console.log(typeof createBrokerClient)",
      ],
      app,
    );
    expect(imported).toMatchObject({ code: 0, stdout: 'function\n' });
  });
});
