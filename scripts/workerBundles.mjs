// The three prebuilt worker scripts, as `npm run build` (scripts/build.mjs) makes them and bench 5
// (bench/bundleSize.ts) measures them: the esbuild options, and `buildWorker`, which runs them and
// a second minifier pass, so that the bench measures exactly what ships.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'rolldown/utils';
import { compiledAheadPlugin } from './compiledAhead.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Dependencies' own source maps may name sources they neither ship nor embed (oauth4webapi's point
 * at its src/*.ts): map into their published JavaScript instead, which the bundle's map embeds.
 */
const mapDependenciesToTheirJavaScript = {
  name: 'map-dependencies-to-their-javascript',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.m?js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/\/\/# sourceMappingURL=\S+\s*$/, ''),
      loader: 'js',
    }));
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
};

/** esbuild options of each worker script, but for where it is written (outdir/outfile, write, sourcemap, metafile). */
export const workerBundles = {
  // A module worker: its lazy parts (the service methods, the devtools recorder) are chunks beside
  // it, fetched on first use.
  sharedWorker: {
    ...common,
    plugins: [mapDependenciesToTheirJavaScript, compiledAheadPlugin],
    entryPoints: { 'authbroker-shared-worker': 'worker/hosts/sharedWorker.ts' },
    splitting: true,
    chunkNames: 'authbroker-shared-worker-[name]-[hash]',
  },
  // One file: a service worker may not import() once installed (its host takes the broker's lazy
  // parts from its script, worker/hosts/staticParts.ts).
  serviceWorker: {
    ...common,
    plugins: [mapDependenciesToTheirJavaScript, compiledAheadPlugin],
    entryPoints: { 'authbroker-service-worker': 'worker/hosts/serviceWorkerEntry.ts' },
    splitting: false,
  },
  // The service worker with the app's own requests (offline writes, tokens attached to the pages' fetch calls): a
  // script of its own, so that the default one stays within its budget. One file, for the same reason.
  serviceWorkerApp: {
    ...common,
    plugins: [mapDependenciesToTheirJavaScript, compiledAheadPlugin],
    entryPoints: { 'authbroker-service-worker-app': 'worker/hosts/serviceWorkerAppEntry.ts' },
    splitting: false,
  },
};

/**
 * oxc's minifier over one of esbuild's JavaScript files (Rolldown's `minify`): it finds what
 * esbuild's single pass leaves (about 2.5 % of a worker script gzipped: the service worker 1.2 kB,
 * the SharedWorker 0.85 kB up front). Module code, so exported names stay; the source map, when
 * there is one, is chained to esbuild's (its sources and their text kept).
 */
async function minifyAgain(file, map) {
  const code = file.text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '');
  const result = await minify(basename(file.path), code, {
    module: true,
    compress: { target: common.target },
    sourcemap: map !== undefined,
    ...(map === undefined ? {} : { inputMap: JSON.parse(map.text) }),
  });
  if (result.errors.length > 0)
    throw new Error(
      `The second minifier pass failed on ${basename(file.path)}: ${result.errors.map((error) => error.message).join('; ')}`,
    );
  const text = map === undefined ? result.code : `${result.code}\n//# sourceMappingURL=${basename(file.path)}.map\n`;
  const files = [{ path: file.path, text }];
  if (map !== undefined)
    files.push({ path: map.path, text: JSON.stringify({ ...result.map, file: basename(file.path) }) });
  return files;
}

/**
 * Builds a worker script as it ships: `options` (one of `workerBundles`, with where it goes and
 * whether it has source maps), then `minifyAgain` over each JavaScript file. Written to disk unless
 * `write: false`; the files are returned either way (`path`, `text`, `contents`), with esbuild's
 * metafile when asked for (its byte counts are esbuild's, before the second pass).
 */
export async function buildWorker(options) {
  const result = await build({ ...options, write: false });
  const outputs = new Map(result.outputFiles.map((file) => [file.path, file]));
  const files = [];
  for (const file of result.outputFiles) {
    if (file.path.endsWith('.js')) files.push(...(await minifyAgain(file, outputs.get(`${file.path}.map`))));
    else if (!file.path.endsWith('.js.map')) files.push({ path: file.path, text: file.text });
  }
  const outputFiles = files.map((file) => ({ ...file, contents: new TextEncoder().encode(file.text) }));
  if (options.write !== false) {
    for (const file of outputFiles) {
      await mkdir(dirname(file.path), { recursive: true });
      await writeFile(file.path, file.contents);
    }
  }
  return { ...result, outputFiles };
}
