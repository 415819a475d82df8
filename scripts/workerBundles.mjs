// The esbuild options of the two prebuilt worker scripts, shared by `npm run build` (scripts/build.mjs)
// and bench 5 (bench/bundleSize.ts), so that the bench measures exactly what ships.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

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

const common = { absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, legalComments: 'none' };

/** esbuild options of each worker script, but for where it is written (outdir/outfile, write, sourcemap, metafile). */
export const workerBundles = {
  // A module worker: its lazy parts (the service methods, the devtools recorder) are chunks beside
  // it, fetched on first use.
  sharedWorker: { ...common, plugins: [mapDependenciesToTheirJavaScript], entryPoints: { 'authbroker-shared-worker': 'worker/hosts/sharedWorker.ts' }, splitting: true, chunkNames: 'authbroker-shared-worker-[name]-[hash]' },
  // One file: a service worker may not import() once installed (its host takes the broker's lazy
  // parts from its script, worker/hosts/staticParts.ts).
  serviceWorker: { ...common, plugins: [mapDependenciesToTheirJavaScript], entryPoints: { 'authbroker-service-worker': 'worker/hosts/serviceWorkerEntry.ts' }, splitting: false },
};
