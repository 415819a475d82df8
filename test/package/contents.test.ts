import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from './support/scratch.js';

/** What `npm install` would unpack: the tarball's `package/` folder. */
function unpack(tarball: string, into: string): string {
  const dir = join(inject('packages').scratch, into);
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  return join(dir, 'package');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

interface Manifest {
  name: string;
  license: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/**
 * The packages the shipped JavaScript imports by name (node: builtins aside), subpaths folded into their package, as
 * esbuild parses them.
 */
async function importedPackages(dir: string): Promise<Set<string>> {
  const entryPoints = filesUnder(dir).filter((f) => f.endsWith('.js'));
  const { metafile } = await build({
    entryPoints,
    bundle: true,
    packages: 'external',
    metafile: true,
    write: false,
    outdir: join(dir, '..', 'unused'),
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  const names = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const { path, external } of input.imports) {
      if (!external || path.startsWith('node:') || builtinModules.includes(path)) continue;
      names.add(path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]!);
    }
  }
  return names;
}

/** Item 4 of issue 17: a map whose sources are neither shipped nor inside it is worse than none. */
function mapsWithoutTheirSources(dir: string): string[] {
  return filesUnder(dir)
    .filter((f) => f.endsWith('.map'))
    .filter((file) => {
      const map = JSON.parse(readFileSync(file, 'utf8')) as {
        sources: string[];
        sourcesContent?: Array<string | null>;
      };
      return (
        (map.sourcesContent?.length ?? 0) !== map.sources.length ||
        (map.sourcesContent ?? []).some((text) => typeof text !== 'string')
      );
    })
    .map((file) => relative(dir, file));
}

function brokenMapLinks(dir: string): string[] {
  return filesUnder(dir)
    .filter((f) => f.endsWith('.js'))
    .flatMap((file) => {
      const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'))?.[1];
      return link === undefined || existsSync(join(file, '..', link)) ? [] : [`${relative(dir, file)} → ${link}`];
    });
}

const emulatorManifest = JSON.parse(readFileSync(join(repoRoot, 'emulator/package.json'), 'utf8')) as Manifest;
const rootManifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
/**
 * The emulator's dependencies that a browser app must not get (jose is shared: authbroker/server verifies tokens with
 * it).
 */
const emulatorOnly = Object.keys(emulatorManifest.dependencies ?? {}).filter(
  (name) => !(name in (rootManifest.dependencies ?? {})),
);

let authbroker = '';
let emulator = '';
beforeAll(() => {
  authbroker = unpack(inject('packages').authbroker, 'contents-authbroker');
  emulator = unpack(inject('packages').emulator, 'contents-emulator');
});

describe('the authbroker tarball', () => {
  it('ships the MIT license of package.json', () => {
    expect(manifestOf(authbroker).license).toBe('MIT');
    const license = readFileSync(join(authbroker, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) the authbroker authors\n/);
  });

  it('holds the built entries and nothing else (no demo build, no emulator, no TypeScript sources)', () => {
    const unexpected = filesUnder(authbroker)
      .map((file) => relative(authbroker, file))
      .filter((path) => !['LICENSE', 'README.md', 'package.json'].includes(path))
      .filter(
        (path) =>
          !/^dist\/(protocol|contract|worker|client|tooling)\/.+\.(js|js\.map|d\.ts)$/.test(path) &&
          !/^dist\/authbroker-(shared-worker|service-worker|service-worker-app)\.js(\.map)?$/.test(path) &&
          !/^dist\/authbroker-shared-worker-(recorder|methods|memoryTokens|tokenGrant|queue|partialUser|chunk)-\w+\.js(\.map)?$/.test(
            path,
          ),
      );
    expect(unexpected).toEqual([]);
  });

  it('every relative import of every shipped module resolves to a file that is shipped too', () => {
    const missing: string[] = [];
    for (const file of filesUnder(authbroker).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = join(dirname(file), match[1]!);
        if (!existsSync(target)) missing.push(`${relative(authbroker, file)} → ${match[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships source maps only with their sources inside, each linked from its file', () => {
    expect(mapsWithoutTheirSources(authbroker)).toEqual([]);
    expect(brokenMapLinks(authbroker)).toEqual([]);
    expect(filesUnder(authbroker).filter((f) => f.endsWith('.map')).length).toBeGreaterThan(50);
  });

  it("depends on what its code imports, and on none of the emulator's server-side packages", async () => {
    const manifest = manifestOf(authbroker);
    expect(emulatorOnly).toEqual(expect.arrayContaining(['@simplewebauthn/server', 'yup', 'otpauth']));
    for (const name of emulatorOnly) expect(manifest.dependencies ?? {}).not.toHaveProperty(name);
    const peers = new Set(Object.keys(manifest.peerDependencies ?? {}));
    const imported = [...(await importedPackages(join(authbroker, 'dist')))].filter((name) => !peers.has(name)).sort();
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(imported);
    for (const peer of peers) expect(manifest.peerDependenciesMeta?.[peer]?.optional, peer).toBe(true);
  });

  it('every entry has types and a default condition (import and require) pointing at a shipped file, and no bin', () => {
    const manifest = manifestOf(authbroker);
    expect(manifest.bin).toBeUndefined();
    for (const [entry, target] of Object.entries(manifest.exports)) {
      const conditions = typeof target === 'string' ? { default: target } : target;
      expect(Object.keys(conditions).at(-1), entry).toBe('default');
      if (typeof target !== 'string') expect(Object.keys(conditions)[0], entry).toBe('types');
      for (const file of Object.values(conditions))
        expect(existsSync(join(authbroker, file)), `${entry} → ${file}`).toBe(true);
    }
    expect(Object.keys(manifest.exports)).toEqual(
      expect.arrayContaining(['.', './server', './client', './react', './devtools', './vite', './emulator']),
    );
  });
});

describe('the authbroker-emulator tarball', () => {
  it('ships the same license, a runnable bin and its declarations', () => {
    const manifest = manifestOf(emulator);
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(emulator, 'LICENSE'), 'utf8')).toBe(readFileSync(join(authbroker, 'LICENSE'), 'utf8'));
    expect(manifest.bin).toEqual({ 'authbroker-emulator': './dist/cli.js' });
    expect(readFileSync(join(emulator, 'dist/cli.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(join(emulator, 'dist/cli.js')).mode & 0o111).not.toBe(0);
    const root = manifest.exports['.'] as Record<string, string>;
    expect(existsSync(join(emulator, root.types!))).toBe(true);
    expect(existsSync(join(emulator, root.default!))).toBe(true);
  });

  it('carries the protocol code it uses (bundled) and depends exactly on the packages it imports', async () => {
    const imported = [...(await importedPackages(join(emulator, 'dist')))].sort();
    expect(imported).not.toContain('authbroker');
    expect(Object.keys(manifestOf(emulator).dependencies ?? {}).sort()).toEqual(imported);
    const bundled = filesUnder(join(emulator, 'dist'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(bundled).toContain('// protocol/errors/create.ts');
  });

  it('ships source maps with their sources', () => {
    expect(mapsWithoutTheirSources(emulator)).toEqual([]);
    expect(brokenMapLinks(emulator)).toEqual([]);
  });
});
