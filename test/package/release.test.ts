import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { describe, expect, inject, it } from 'vitest';
import { repoRoot, run } from './support/scratch.js';

/**
 * Issue 34's release checks, on the tarballs `npm publish` would upload (packed once for the
 * package tests): what `npm publish --dry-run` sends, `publint` clean, and every entry's types
 * resolving under moduleResolution `bundler` and `node16` as `@arethetypeswrong/cli` reports. Both
 * tools come from the npm registry as dev dependencies; nothing is downloaded at run time.
 */
const bin = (name: string) => join(repoRoot, 'node_modules/.bin', name);

interface AttwResolution {
  resolutionKind: string;
  resolution?: { fileName: string; isTypeScript: boolean };
}
interface AttwReport {
  analysis: {
    entrypoints: Record<string, { resolutions: Record<string, AttwResolution> }>;
    problems: Array<{ kind: string; entrypoint?: string; resolutionKind?: string }>;
  };
}

describe.each([
  ['authbroker', 'authbroker', []],
  ['authbroker-emulator', 'emulator', ['--workspace', 'authbroker-emulator']],
] as const)('the %s package, as published', (name, key, workspace) => {
  const tarball = () => inject('packages')[key];

  it('npm publish --dry-run sends the files the packed tarball holds, and no others', async () => {
    // The package tests packed it a moment ago (prepack built it): no scripts again.
    const dry = await run('npm', ['publish', '--dry-run', '--json', '--ignore-scripts', ...workspace], repoRoot);
    expect(dry.code, dry.stderr).toBe(0);
    type Published = { name: string; files: Array<{ path: string }> };
    // npm answers `{ name, files }`, or `{ [name]: { name, files } }` for a workspace.
    const report = JSON.parse(dry.stdout) as Published | Record<string, Published>;
    const published = (Array.isArray(report.files) ? report : Object.values(report)[0]) as Published;
    expect(published.name).toBe(name);
    const packed = execFileSync('tar', ['tzf', tarball()], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''))
      .sort();
    expect(published.files.map((file) => file.path).sort()).toEqual(packed);
  });

  it('publint finds nothing to say about it', async () => {
    const dir = join(inject('packages').scratch, `publint-${key}`);
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['xzf', tarball(), '-C', dir]);
    const { messages } = await publint({ pkgDir: join(dir, 'package'), level: 'suggestion', strict: true });
    expect(messages).toEqual([]);
  });

  it('every entry resolves to its types under moduleResolution bundler and node16, with no problem attw reports', async () => {
    const manifest = JSON.parse(
      execFileSync('tar', ['xzOf', tarball(), 'package/package.json'], { encoding: 'utf8' }),
    ) as { exports: Record<string, unknown> };
    const typed = Object.entries(manifest.exports)
      .filter(([, target]) => typeof target === 'object')
      .map(([subpath]) => subpath);
    // The worker bundles (`./worker/shared-bundle`…) are scripts to serve, not modules to import: no types, by design.
    const scripts = Object.entries(manifest.exports)
      .filter(([subpath, target]) => typeof target === 'string' && subpath !== './package.json')
      .map(([subpath]) => subpath);
    // Through a file: a pipe may lose the end of attw's large JSON when it exits.
    const out = join(inject('packages').scratch, `attw-${key}.json`);
    const exclude = scripts.length === 0 ? '' : ` --exclude-entrypoints ${scripts.join(' ')}`;
    const result = await run(
      'sh',
      ['-c', `"$0" "$1" --profile esm-only --format json${exclude} > "$2"`, bin('attw'), tarball(), out],
      repoRoot,
    );
    const report = JSON.parse(readFileSync(out, 'utf8')) as AttwReport;
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(expect.arrayContaining(typed));
    for (const subpath of typed) {
      for (const kind of ['bundler', 'node16-esm']) {
        const resolution = report.analysis.entrypoints[subpath]!.resolutions[kind]?.resolution;
        expect(resolution?.isTypeScript, `${name}${subpath.slice(1)} under ${kind}`).toBe(true);
        expect(resolution?.fileName, `${name}${subpath.slice(1)} under ${kind}`).toMatch(/\.d\.ts$/);
      }
    }
    // node10 (no `exports`) and node16-cjs (require of an ES module from TypeScript) are outside the esm-only profile.
    expect(
      report.analysis.problems.filter(
        (problem) => problem.resolutionKind === undefined || ['bundler', 'node16-esm'].includes(problem.resolutionKind),
      ),
    ).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
  });
});
