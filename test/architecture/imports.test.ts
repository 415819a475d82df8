import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '../..');
type Layer = 'protocol' | 'contract' | 'worker' | 'client' | 'emulator' | 'tooling' | 'demo';

/**
 * Who may import whom (ARCHITECTURE.md): protocol ← contract ← worker; contract ← client; the
 * emulator uses only protocol; tooling (the Vite plugin, the emulator loader) only protocol,
 * reaching the emulator as a package. The client reaches the worker only to host the broker in the
 * page itself (the last fallback, loaded lazily) and, in `client/extension/` alone, to start the
 * broker in a browser extension's background (`authbroker/extension`).
 */
const allowed: Record<Layer, Layer[]> = {
  protocol: ['protocol'],
  contract: ['contract', 'protocol'],
  worker: ['worker', 'contract', 'protocol'],
  client: ['client', 'contract', 'protocol'],
  emulator: ['emulator', 'protocol'],
  tooling: ['tooling', 'protocol'],
  demo: ['demo', 'client', 'contract', 'worker', 'protocol'],
};
const exceptions: Record<string, string[]> = { client: ['worker/hosts/inPage.ts'] };
/** Exceptions of one folder only: the extension's entries host the broker in the background. */
const folderExceptions: Record<string, string[]> = { 'client/extension/': ['worker/hosts/extension.ts'] };

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every relative module a source text names: static, side-effect and type imports, re-exports, dynamic imports, worker
 * URLs.
 */
export function relativeImports(text: string): string[] {
  const specifiers = [
    ...text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|new URL\(\s*['"]([^'"]+\.(?:ts|tsx|js|mjs))['"]|^\s*import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]!);
  return specifiers.filter((s) => s.startsWith('.'));
}

function layerOf(path: string): string {
  return path.split('/')[0]!;
}

/** The source file an import names (`.js` in specifiers stands for the `.ts` source). */
function targetOf(file: string, specifier: string): string {
  return relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts');
}

/**
 * The checker: for each file (path → text), the imports that break the layer rules, and the
 * imports in a subfolder of worker/ that run back up to worker/'s own top level (the top level
 * assembles the subfolders; they never depend on it). Two folders are the exception: the host entries
 * (worker/hosts/) sit above the broker and start it, and worker/assembly/ is the top level's own assembly of
 * the broker (broker.ts's part-makers), cut out of broker.ts.
 */
export function violations(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const layer = layerOf(file) as Layer;
    for (const specifier of relativeImports(text)) {
      const target = targetOf(file, specifier);
      const targetLayer = layerOf(target) as Layer;
      const excepted = [
        ...(exceptions[layer] ?? []),
        ...Object.entries(folderExceptions).flatMap(([folder, targets]) => (file.startsWith(folder) ? targets : [])),
      ];
      if (
        !allowed[layer]?.includes(targetLayer) &&
        !excepted.some((t) => target === t || target === t.replace(/\.ts$/, '.tsx'))
      ) {
        found.push(`${file} → ${specifier} (${layer} may not import ${targetLayer})`);
      }
      const depth = (path: string) => path.split('/').length;
      if (
        layer === 'worker' &&
        targetLayer === 'worker' &&
        depth(file) > 2 &&
        depth(target) === 2 &&
        !file.startsWith('worker/hosts/') &&
        !file.startsWith('worker/assembly/')
      )
        found.push(`${file} → ${specifier} (runs back up to worker/)`);
    }
  }
  return found;
}

/** The relative modules a source text loads when it runs: static imports and re-exports that are not type-only. */
export function runtimeImports(text: string): string[] {
  const statements = [
    ...text.matchAll(/^\s*(?:import|export)\s+([^'"]*?)\s*from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm),
  ];
  return statements.flatMap((m) => {
    const clause = (m[1] ?? '').trim();
    const specifier = m[2] ?? m[3]!;
    const named = /^\{([\s\S]*)\}$/.exec(clause)?.[1];
    const typeOnly =
      /^type\s/.test(clause) ||
      (named !== undefined && named.split(',').every((item) => item.trim() === '' || /^type\s/.test(item.trim())));
    return typeOnly || !specifier.startsWith('.') ? [] : [specifier];
  });
}

/**
 * The broker's lazy parts are chunks loaded on first use: the diagnostics recorder
 * (worker/diagnostics/, on the first diagnostics query) and the service methods (worker/api/, on
 * the first call of one). The broker loads them only with import() (worker/lazy/dynamicParts.ts), but for
 * the service worker's copy of them (worker/hosts/staticParts.ts), since a service worker cannot
 * import() once installed, and the service methods inside the in-page host's chunk
 * (worker/hosts/inProcess.ts). The recorder also loads nothing the broker's chunk loads (that
 * would become a third chunk every broker loads): it gets the broker's modules from its kit.
 */
export function lazyPartViolations(files: Map<string, string>): string[] {
  const inRecorder = (path: string) => path.startsWith('worker/diagnostics/') || path === 'contract/diagnostics.ts';
  const mayImportStatically = (file: string, target: string) =>
    file === 'worker/hosts/staticParts.ts' ||
    (file === 'worker/hosts/inProcess.ts' && target.startsWith('worker/api/')) ||
    file.startsWith('test/');
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const specifier of runtimeImports(text)) {
      const target = targetOf(file, specifier);
      if (file.startsWith('worker/diagnostics/') && !inRecorder(target))
        found.push(`${file} → ${specifier} (the recorder gets the broker's modules from its kit)`);
      if (
        !file.startsWith('worker/diagnostics/') &&
        target.startsWith('worker/diagnostics/') &&
        !mayImportStatically(file, target)
      )
        found.push(`${file} → ${specifier} (the recorder loads with import())`);
      if (!file.startsWith('worker/api/') && target.startsWith('worker/api/') && !mayImportStatically(file, target))
        found.push(`${file} → ${specifier} (the service methods load with import())`);
    }
  }
  return found;
}

/**
 * The tab's connection to its broker (issue 25) is a lazy chunk loaded after the first render: its
 * modules load at run time only each other, the wire constants and the version (what the main
 * chunk would otherwise share with it comes in a `BrokerTarget`), and the rest of the tab loads
 * them only with import(). A module both loaded would become a chunk every page loads up front.
 */
export const CONNECTION_CHUNK = [
  'client/connect/connection.ts',
  'client/connect/browserState.ts',
  'client/connect/openBroker.ts',
  'client/connect/attempts.ts',
  'client/connect/brokerConfig.ts',
  'client/connect/lostHost.ts',
  'client/connect/connectedMark.ts',
  'client/connect/hosts/sharedWorkerHost.ts',
  'client/connect/hosts/serviceWorkerHost.ts',
  'client/connect/hosts/inProcessHost.ts',
  'client/connect/hosts/extensionHost.ts',
  'client/connect/askAgain.ts',
  'client/connect/rpc.ts',
  'client/connect/callWindow.ts',
  'client/connect/lifetime.ts',
  'client/kept/keptCopyWriter.ts',
  'client/connect/deliveries.ts',
];
// Besides its own files: the wire constants, the version, and the background-page check (given the
// extension API the main chunk found), none of which the main chunk loads.
const CONNECTION_MAY_LOAD = [
  ...CONNECTION_CHUNK,
  'contract/wire.ts',
  'protocol/version.ts',
  'contract/extensionBackground.ts',
];

export function lazyConnectionViolations(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (!file.startsWith('client/')) continue;
    for (const specifier of runtimeImports(text)) {
      const target = targetOf(file, specifier);
      if (CONNECTION_CHUNK.includes(file) && !CONNECTION_MAY_LOAD.includes(target))
        found.push(`${file} → ${specifier} (the connection gets the main chunk's modules from its BrokerTarget)`);
      // The extension's connection is not lazy (an MV3 background may not import()): its entries load what it needs of
      // the chunk.
      if (
        !CONNECTION_CHUNK.includes(file) &&
        !file.startsWith('client/extension/') &&
        CONNECTION_CHUNK.includes(target)
      )
        found.push(`${file} → ${specifier} (the connection loads with import())`);
    }
  }
  return found;
}

/**
 * Files that import one another, directly or through others (type-only and dynamic imports count):
 * each cycle once, as a path that returns to its first file. Tarjan's strongly connected
 * components over the files given; imports of files not given are ignored.
 */
export function importCycles(files: Map<string, string>): string[] {
  const resolveTarget = (file: string, specifier: string) => {
    const target = targetOf(file, specifier);
    return [target, target.replace(/\.ts$/, '.tsx')].find((candidate) => files.has(candidate));
  };
  const edges = new Map(
    [...files].map(([file, text]) => [
      file,
      [...new Set(relativeImports(text).flatMap((s) => resolveTarget(file, s) ?? []))],
    ]),
  );
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    lowest.set(file, order.get(file)!);
    stack.push(file);
    for (const next of edges.get(file)!) {
      if (!order.has(next)) visit(next);
      if (stack.includes(next)) lowest.set(file, Math.min(lowest.get(file)!, lowest.get(next)!));
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || edges.get(file)!.includes(file)) cycles.push(pathThrough(component, edges).join(' → '));
  };
  for (const file of [...files.keys()].sort()) if (!order.has(file)) visit(file);
  return cycles;
}

/** A shortest way from the component's first file back to itself, through the component only. */
function pathThrough(component: string[], edges: Map<string, string[]>): string[] {
  const [start] = [...component].sort();
  const cameFrom = new Map<string, string>();
  const queue = [start!];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of edges.get(file)!) {
      if (next === start) {
        const path = [start!];
        for (let at: string | undefined = file; at !== start && at !== undefined; at = cameFrom.get(at))
          path.splice(1, 0, at);
        return [...path, start!];
      }
      if (component.includes(next) && !cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return component;
}

describe('imports point one way', () => {
  for (const layer of Object.keys(allowed) as Layer[]) {
    it(`${layer}/ imports only ${allowed[layer].join(', ')}${exceptions[layer] ? ` (and ${exceptions[layer].join(', ')})` : ''}`, () => {
      const files = new Map(sourceFiles(layer).map((file) => [file, readFileSync(join(root, file), 'utf8')]));
      expect(violations(files)).toEqual([]);
    });
  }

  it('no file imports itself, directly or through others (type-only imports count)', () => {
    const everything = [
      'protocol',
      'contract',
      'worker',
      'client',
      'emulator',
      'tooling',
      'demo',
      'test',
      'bench',
    ].flatMap((dir) => sourceFiles(dir));
    expect(importCycles(new Map(everything.map((file) => [file, readFileSync(join(root, file), 'utf8')])))).toEqual([]);
  });

  it("the broker's lazy parts (the diagnostics recorder, the service methods) stay chunks of their own", () => {
    const files = ['worker', 'contract', 'client', 'demo'].flatMap((dir) => sourceFiles(dir));
    expect(lazyPartViolations(new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')])))).toEqual(
      [],
    );
  });

  it("the tab's connection stays a chunk of its own, loaded after the first render", () => {
    const files = sourceFiles('client');
    expect(files).toEqual(expect.arrayContaining(CONNECTION_CHUNK));
    expect(
      lazyConnectionViolations(new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]))),
    ).toEqual([]);
  });

  it('nothing outside the demo imports demo/', () => {
    const offenders = ['protocol', 'contract', 'worker', 'client', 'emulator', 'tooling', 'test', 'bench']
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) =>
        relativeImports(readFileSync(join(root, file), 'utf8')).some((s) => layerOf(targetOf(file, s)) === 'demo'),
      );
    expect(offenders).toEqual([]);
  });
});

describe('the import checker', () => {
  const check = (files: Record<string, string>) => violations(new Map(Object.entries(files)));

  it('finds every form of a forbidden import', () => {
    expect(
      check({
        'protocol/a.ts': "import { x } from '../worker/broker.js';",
        'protocol/b.ts': "import type { Y } from '../contract/api.js';",
        'contract/c.ts': "export * from '../worker/tabs.js';",
        'emulator/d.ts': "const m = await import('../client/client.js');",
        'worker/e.ts': "import { f } from '../client/store.js';",
        'client/f.ts': "export { g } from '../worker/broker.js';",
        'worker/hosts/g.ts': "const w = new URL('../../client/x.ts', import.meta.url);",
      }),
    ).toHaveLength(7);
  });

  it('allows what the rules allow, and only the named exception', () => {
    expect(
      check({
        'worker/broker.ts':
          "import { a } from './cache/query.js';\nimport type { B } from '../contract/api.js';\nimport { c } from '../protocol/clock.js';",
        'client/connect/hosts/inProcessHost.ts':
          "const { openInPageBroker } = await import('../../../worker/hosts/inPage.js');",
        'contract/q.ts': "import * as endpoints from '../protocol/endpoints/index.js';",
      }),
    ).toEqual([]);
    expect(check({ 'client/x.ts': "import { createBroker } from '../worker/broker.js';" })).toHaveLength(1);
  });

  it('flags an import from a worker subfolder back up to worker/ itself, not between subfolders', () => {
    expect(check({ 'worker/api/auth.ts': "import type { Session } from '../session.js';" })).toEqual([
      'worker/api/auth.ts → ../session.js (runs back up to worker/)',
    ]);
    expect(check({ 'worker/api/auth.ts': "import type { QueryFilter } from '../cache/queryClient.js';" })).toEqual([]);
    expect(check({ 'worker/hosts/sharedWorker.ts': "import { createBroker } from '../broker.js';" })).toEqual([]);
  });
});

describe('the lazy parts checker', () => {
  const check = (files: Record<string, string>) => lazyPartViolations(new Map(Object.entries(files)));

  it('refuses a run-time import of the broker from the recorder, and a static import of a lazy part from the broker', () => {
    expect(
      check({
        'worker/diagnostics/a.ts': "import { Emitter } from '../../contract/events.js';",
        'worker/diagnostics/b.ts': "import { x, type Y } from '../cache/liveValue.js';",
        'worker/broker.ts': "import { createRecorder } from './diagnostics/recorder.js';",
        'worker/hosts/sharedWorker.ts': "export { createRecorder } from '../diagnostics/recorder.js';",
        'worker/tabApi.ts': "import { createServices } from './api/services.js';",
        'worker/hosts/serviceWorker.ts': "import * as services from '../api/services.js';",
        'worker/hosts/inProcess.ts': "import { createRecorder } from '../diagnostics/recorder.js';",
      }),
    ).toHaveLength(7);
  });

  it("allows types, the parts' own files, import(), the service worker's static copy and the in-page host's service methods", () => {
    expect(
      check({
        'worker/diagnostics/a.ts':
          "import type { Emitter } from '../../contract/events.js';\nimport { type X, type Z } from '../cache/entry.js';\nimport { Ring } from './ring.js';\nimport { REQUEST_LOG_SIZE } from '../../contract/diagnostics.js';",
        'worker/recording.ts': "import type { Recorder } from './diagnostics/recorder.js';",
        'worker/lazyParts.ts':
          "const parts = { recorder: () => import('./diagnostics/recorder.js'), services: () => import('./api/services.js') };",
        'worker/services.ts': "import type { ApiContext } from './api/context.js';",
        'worker/api/auth.ts':
          "import * as endpoints from '../../protocol/endpoints/index.js';\nimport type { ApiContext } from './context.js';",
        'worker/hosts/staticParts.ts':
          "import * as services from '../api/services.js';\nimport * as recorder from '../diagnostics/recorder.js';",
        'worker/hosts/inProcess.ts':
          "import * as services from '../api/services.js';\nconst recorder = () => import('../diagnostics/recorder.js');",
      }),
    ).toEqual([]);
  });
});

describe('the lazy connection checker', () => {
  const check = (files: Record<string, string>) => lazyConnectionViolations(new Map(Object.entries(files)));

  it("refuses a run-time import of the main chunk's modules from the connection, and a static import of the connection from the rest", () => {
    expect(
      check({
        'client/connect/openBroker.ts': "import { ClientError } from '../../protocol/errors/errors.js';",
        'client/connect/rpc.ts': "import { x, type Y } from '../connectOptions.js';",
        'client/createClientOn.ts': "import { connect } from './connect/connection.js';",
        'client/queryStore.ts': "export { keepSnapshots } from './kept/keptCopyWriter.js';",
      }),
    ).toHaveLength(4);
  });

  it('allows types, its own files, the wire constants, the version and import()', () => {
    expect(
      check({
        'client/connect/connection.ts':
          "import type { BrokerTarget } from './brokerChannel.js';\nimport { openBroker } from './openBroker.js';\nimport { AUTHBROKER_VERSION } from '../../protocol/version.js';",
        'client/connect/hosts/serviceWorkerHost.ts':
          "import { SERVICE_WORKER_CONNECT } from '../../../contract/wire.js';\nimport { connectWithRetries } from '../attempts.js';\nimport 'comlink';",
        'client/createClientOn.ts':
          "import type { Connection } from './connect/connection.js';\nconst load = () => import('./connect/connection.js');",
      }),
    ).toEqual([]);
  });
});

describe('the cycle checker', () => {
  const cycles = (files: Record<string, string>) => importCycles(new Map(Object.entries(files)));

  it('finds files that import each other, whatever the kind of import', () => {
    expect(
      cycles({ 'client/a.ts': "import type { B } from './b.js';", 'client/b.ts': "const a = await import('./a.js');" }),
    ).toEqual(['client/a.ts → client/b.ts → client/a.ts']);
    expect(
      cycles({ 'worker/a.ts': "export { b } from './sub/b.js';", 'worker/sub/b.ts': "import '../a.js';" }),
    ).toEqual(['worker/a.ts → worker/sub/b.ts → worker/a.ts']);
  });

  it('finds a longer circle once, as the way round it, and a file that imports itself', () => {
    expect(
      cycles({
        'protocol/credentials.ts': "import { ClientError } from './errors/errors.js';",
        'protocol/errors/errors.ts': "import type { NetworkDiagnostics } from '../diagnostics.js';",
        'protocol/diagnostics.ts':
          "import { normalizeBaseUrl } from './credentials.js';\nimport { NetworkError } from './errors/errors.js';",
        'protocol/other.ts': "import { normalizeBaseUrl } from './credentials.js';",
      }),
    ).toEqual([
      'protocol/credentials.ts → protocol/errors/errors.ts → protocol/diagnostics.ts → protocol/credentials.ts',
    ]);
    expect(cycles({ 'client/self.tsx': "import type { X } from './self.js';" })).toEqual([
      'client/self.tsx → client/self.tsx',
    ]);
  });

  it('finds nothing in imports that only point one way', () => {
    expect(
      cycles({
        'contract/queries.ts':
          "import type { BrokerFacts } from './diagnostics.js';\nimport type { QueryScope } from './scope.js';",
        'contract/diagnostics.ts': "import type { QueryScope } from './scope.js';",
        'contract/scope.ts': 'export type QueryScope = string;',
        'worker/x.ts': "import { y } from 'some-package';\nimport type { Q } from '../contract/queries.js';",
      }),
    ).toEqual([]);
  });
});

describe('package entries', () => {
  it('every export points at a built file of an existing source', () => {
    for (const [entry, target] of Object.entries(
      packageJson.exports as Record<string, string | { default: string; types: string }>,
    )) {
      if (entry === './package.json') continue;
      const file = typeof target === 'string' ? target : target.default;
      const match = /^\.\/dist\/(.+)\.js$/.exec(file);
      expect(match, entry).not.toBeNull();
      const base = match![1]!;
      const bundles: Record<string, string> = {
        'authbroker-shared-worker': 'worker/hosts/sharedWorker',
        'authbroker-service-worker': 'worker/hosts/serviceWorkerEntry',
        'authbroker-service-worker-app': 'worker/hosts/serviceWorkerAppEntry',
      };
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
    // The root is a workspace too, so that changesets versions it beside the emulator (docs/guide/releases.md).
    expect(packageJson.workspaces).toEqual(['.', 'emulator']);
    const emulator = JSON.parse(readFileSync(join(root, 'emulator/package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      version: string;
    };
    expect(emulator.name).toBe('authbroker-emulator');
    expect(emulator.bin).toEqual({ 'authbroker-emulator': './dist/cli.js' });
    expect(packageJson.peerDependencies['authbroker-emulator']).toBe(`^${emulator.version}`);
  });
});
