import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '../..');
type Layer = 'protocol' | 'worker' | 'client' | 'emulator' | 'tooling' | 'demo';

/**
 * Who may import whom (ARCHITECTURE.md): protocol ← worker ← client; emulator ← protocol only;
 * tooling (the Vite plugin, the emulator loader) ← protocol only, reaching the emulator as a package.
 */
const allowed: Record<Layer, Layer[]> = {
  protocol: ['protocol'],
  worker: ['worker', 'protocol'],
  client: ['client', 'worker', 'protocol'],
  emulator: ['emulator', 'protocol'],
  tooling: ['tooling', 'protocol'],
  demo: ['demo', 'client', 'worker', 'protocol'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function relativeImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|new URL\(\s*['"]([^'"]+\.(?:ts|tsx|js|mjs))['"]/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return specifiers.filter((s) => s.startsWith('.'));
}

function layerOf(path: string): string {
  return path.split('/')[0]!;
}

describe('imports point one way', () => {
  for (const layer of Object.keys(allowed) as Layer[]) {
    it(`${layer}/ imports only ${allowed[layer].join(', ')}`, () => {
      const violations: string[] = [];
      for (const file of sourceFiles(layer)) {
        for (const specifier of relativeImports(file)) {
          const target = relative(root, resolve(root, dirname(file), specifier));
          if (!allowed[layer].includes(layerOf(target) as Layer)) violations.push(`${file} → ${specifier}`);
        }
      }
      expect(violations).toEqual([]);
    });
  }

  it('nothing outside the demo imports demo/', () => {
    const offenders = ['protocol', 'worker', 'client', 'emulator', 'tooling', 'test', 'bench']
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => relativeImports(file).some((s) => layerOf(relative(root, resolve(root, dirname(file), s))) === 'demo'));
    expect(offenders).toEqual([]);
  });

  it('the checker sees a violation when there is one', () => {
    const file = 'protocol/example.ts';
    const target = relative(root, resolve(root, dirname(file), '../worker/broker.js'));
    expect(allowed.protocol.includes(layerOf(target) as Layer)).toBe(false);
  });
});

describe('package entries', () => {
  it('every export points at a built file of an existing source', () => {
    for (const [entry, target] of Object.entries(packageJson.exports as Record<string, string | { default: string; types: string }>)) {
      if (entry === './package.json') continue;
      const file = typeof target === 'string' ? target : target.default;
      const match = /^\.\/dist\/(.+)\.js$/.exec(file);
      expect(match, entry).not.toBeNull();
      const base = match![1]!;
      const bundles: Record<string, string> = { 'authbroker-shared-worker': 'worker/hosts/sharedWorker', 'authbroker-service-worker': 'worker/hosts/serviceWorkerEntry' };
      const source = bundles[base] ?? base;
      const exists = ['.ts', '.tsx'].some((ext) => {
        try {
          return statSync(join(root, `${source}${ext}`)).isFile();
        } catch {
          return false;
        }
      });
      expect(exists, `${entry} → ${source}`).toBe(true);
    }
  });

  it('the emulator is its own package (a workspace) with the CLI as its bin; authbroker has no bin', () => {
    expect((packageJson as { bin?: unknown }).bin).toBeUndefined();
    expect(packageJson.workspaces).toEqual(['emulator']);
    const emulator = JSON.parse(readFileSync(join(root, 'emulator/package.json'), 'utf8')) as { name: string; bin: Record<string, string>; version: string };
    expect(emulator.name).toBe('authbroker-emulator');
    expect(emulator.bin).toEqual({ 'authbroker-emulator': './dist/cli.js' });
    expect(packageJson.peerDependencies['authbroker-emulator']).toBe(`^${emulator.version}`);
  });
});
