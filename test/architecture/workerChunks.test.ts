import { build, type BuildOptions, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { workerBundles } from '../../scripts/workerBundles.mjs';

interface Output {
  file: string;
  inputs: string[];
  staticImports: string[];
  text: string;
}

/** Bundles in memory; each JavaScript output with its inputs and the outputs it imports statically. */
async function outputs(options: BuildOptions): Promise<Output[]> {
  const result = await build({ ...options, outdir: '/virtual', write: false, metafile: true, logLevel: 'silent' });
  const meta = result.metafile as Metafile;
  return Object.entries(meta.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => ({
      file: file.replace(/^.*virtual\//, ''),
      inputs: Object.keys(output.inputs),
      staticImports: output.imports
        .filter((i) => i.kind === 'import-statement' && !i.external)
        .map((i) => i.path.replace(/^.*virtual\//, '')),
      text: result.outputFiles.find((f) => f.path.endsWith(file.replace(/^.*virtual/, '')))!.text,
    }));
}

/** The entry and every output it imports statically: what loads before anything runs. */
function upFront(all: Output[], entry: Output): Output[] {
  const seen = new Set<Output>();
  const visit = (output: Output | undefined) => {
    if (!output || seen.has(output)) return;
    seen.add(output);
    for (const file of output.staticImports) visit(all.find((o) => o.file === file));
  };
  visit(entry);
  return [...seen];
}

/** The output holding a module, named by the end of its path (a dependency's path depends on where node_modules is). */
const holding = (all: Output[], input: string) => all.find((o) => o.inputs.some((i) => i.endsWith(input)));

describe('what each worker script loads up front (bench 5 measures them as built)', () => {
  it('the SharedWorker fetches its service methods, its recorder, the memory token store and the token grants on first use, and loads three files up front', async () => {
    const all = await outputs(workerBundles.sharedWorker);
    const first = upFront(
      all,
      all.find((o) => o.file === 'authbroker-shared-worker.js')!,
    );
    // The entry and the two chunks esbuild makes of what it shares with the lazy parts (what every
    // part that imports the entry's modules shares, what only the service methods share): a lazy
    // part that imported more of what the entry loads would have split them again.
    expect(first.map((o) => o.file)).toHaveLength(3);
    for (const part of [
      'worker/api/methods.ts',
      'worker/api/auth.ts',
      'protocol/authorizationCode.ts',
      'worker/diagnostics/recorder.ts',
      'worker/storage/memoryTokens.ts',
      'protocol/tokenGrant.ts',
      'oauth4webapi/build/index.js',
    ]) {
      expect(holding(all, part), part).toBeDefined();
      expect(
        first.filter((o) => o.inputs.some((i) => i.endsWith(part))).map((o) => o.file),
        part,
      ).toEqual([]);
    }
  });

  it('the service worker is one file with both parts inside and no import(), which it may not use once installed', async () => {
    const all = await outputs(workerBundles.serviceWorker);
    expect(all.map((o) => o.file)).toEqual(['authbroker-service-worker.js']);
    expect(all[0]!.inputs).toEqual(expect.arrayContaining(['worker/api/methods.ts', 'worker/diagnostics/recorder.ts']));
    expect(all[0]!.text).not.toContain('import(');
  });

  it("the tab: the in-page broker's parts add no file that every page loads up front", async () => {
    const all = await outputs({
      entryPoints: ['bench/sizes/tabSide.ts'],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      external: ['react', 'react-dom', 'react/jsx-runtime', 'react-dom/client'],
    });
    const inPage = holding(all, 'worker/hosts/inProcess.ts')!;
    const first = upFront(
      all,
      all.find((o) => o.file === 'tabSide.js')!,
    );
    // A lazy chunk that imported a chunk the page loads up front would have had esbuild cut that chunk
    // in two (what both use, what only the page and the in-page broker use): one more file up front.
    const lazySharers = all.filter(
      (o) => !first.includes(o) && o !== inPage && o.staticImports.some((file) => first.some((f) => f.file === file)),
    );
    expect(
      lazySharers.map(
        (o) =>
          `${o.file} (${o.inputs
            .filter((i) => !i.includes('node_modules'))
            .slice(0, 3)
            .join(', ')})`,
      ),
    ).toEqual([]);
    expect(holding(all, 'worker/api/methods.ts')).toBe(inPage);
  });
});
