import { compiledAheadPlugin } from './compiledAhead.mjs';

/**
 * How `npm run build` bundles the in-page broker the tab loads as its last fallback: a bundle of its
 * own, carrying its own copy of every module of ours it uses, so that an app's bundler gives it a
 * chunk that shares nothing with the tab's entry (its npm dependencies stay imports; the tab
 * imports none of them). Not minified, like the rest of dist/: the app's bundler minifies. Its
 * recorder is a lazy chunk beside it. The benchmarks bundle it the same way (bench/inPageBundle.ts).
 */
export const inPageBundle = {
  plugins: [compiledAheadPlugin],
  entryPoints: { inPage: 'worker/hosts/inPage.ts' },
  bundle: true,
  splitting: true,
  chunkNames: 'inPage-[name]-[hash]',
  packages: 'external',
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  legalComments: 'none',
};
