import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { guideFiles } from './support/readme.js';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

/**
 * Issue 25: what a user's production build of the packed tarball loads up front. The getting-started app of the docs,
 * built by Vite with a manifest: its entry and the chunks it imports statically hold neither the
 * connection (Comlink, the host choice, starting the worker), which loads after the first render,
 * nor the in-page broker, which is a bundle of its own; and neither lazy chunk loads a chunk of its
 * own up front with the entry.
 */
interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

describe('a production build of the getting-started app', () => {
  let app = '';
  let manifest: Record<string, ManifestChunk> = {};
  const text = (key: string) => readFileSync(join(app, 'dist', manifest[key]!.file), 'utf8');
  /** A chunk and every chunk it imports statically (what loads with it), by manifest key. */
  const withStaticImports = (key: string): string[] => {
    const seen = new Set<string>();
    const visit = (next: string) => {
      if (seen.has(next)) return;
      seen.add(next);
      for (const imported of manifest[next]?.imports ?? []) visit(imported);
    };
    visit(key);
    return [...seen];
  };
  const lazyEntry = (path: string) =>
    Object.keys(manifest).find((key) => manifest[key]!.isDynamicEntry === true && key.endsWith(path));

  beforeAll(async () => {
    app = await scratchApp('lazy-chunks-app', {
      tarballs: ['authbroker'],
      dependencies: [...Object.keys(declaredDependencies(repoRoot)), 'react', 'react-dom'],
      devDependencies: ['vite', '@vitejs/plugin-react'],
    });
    const readme = guideFiles();
    writeFiles(app, {
      'index.html':
        '<!doctype html><html><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n',
      'vite.config.ts': readme['vite.config.ts']!,
      'src/main.tsx': readme['src/main.tsx']!,
      'vite.manifest.config.ts': `import { mergeConfig } from 'vite';
import config from './vite.config';
export default mergeConfig(config, { build: { manifest: true }, logLevel: 'warn' });
`,
    });
    const built = await run(join(app, 'node_modules/.bin/vite'), ['build', '--config', 'vite.manifest.config.ts'], app);
    if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
    manifest = JSON.parse(readFileSync(join(app, 'dist/.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  });

  it('loads neither the connection nor the in-page broker up front; each is a lazy chunk of its own', () => {
    const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry === true)!;
    const upFront = withStaticImports(entry);
    const connection = lazyEntry('authbroker/dist/client/connect/connection.js');
    const inPage = lazyEntry('authbroker/dist/worker/hosts/inPage.js');
    expect(connection, 'the connection is a lazy chunk').toBeDefined();
    expect(inPage, 'the in-page broker is a lazy chunk').toBeDefined();
    expect(upFront).not.toContain(connection);
    expect(upFront).not.toContain(inPage);
    // Comlink (its proxy marker) and the host choice (the connected mark) are the connection's.
    const upFrontText = upFront.map(text).join('\n');
    expect(upFrontText).not.toContain('Comlink.proxy');
    expect(upFrontText).not.toContain('authbroker:connected');
    expect(withStaticImports(connection!).map(text).join('\n')).toContain('Comlink.proxy');
  });

  it('the in-page broker shares no chunk with the entry: none of its code loads up front, and neither lazy chunk imports a chunk the entry loads', () => {
    const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry === true)!;
    const upFront = withStaticImports(entry);
    // A sentence only the broker says (worker/config.ts).
    expect(withStaticImports(lazyEntry('authbroker/dist/worker/hosts/inPage.js')!).map(text).join('\n')).toContain(
      "is not the running broker's",
    );
    expect(upFront.map(text).join('\n')).not.toContain("is not the running broker's");
    // The entry itself is what loaded them (Vite's preload helper for their own import()s lives there); nothing else.
    for (const path of ['authbroker/dist/client/connect/connection.js', 'authbroker/dist/worker/hosts/inPage.js']) {
      expect(
        withStaticImports(lazyEntry(path)!).filter((key) => upFront.includes(key) && key !== entry),
        path,
      ).toEqual([]);
    }
  });
});
