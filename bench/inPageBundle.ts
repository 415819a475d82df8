/**
 * The in-page broker as `npm run build` ships it (scripts/inPageBundle.mjs): a bundle of its own,
 * with its own copy of every module of ours it uses, which the tab's lazy connection imports. The
 * benchmarks bundle it first and point the tab's import there, so that what they measure shares no
 * module with it, as an app's build of the package does not.
 */
import { build, type Plugin } from 'esbuild';
import { join } from 'node:path';
import { inPageBundle } from '../scripts/inPageBundle.mjs';
import { freshDir, ROOT, TMP } from './harness.js';

const IN_PAGE = join(TMP, 'in-page');

/**
 * Bundles worker/hosts/inPage.ts into bench/.tmp/in-page; returns the plugin that points the tab's import of it there.
 */
export async function inPageAsShipped(): Promise<Plugin> {
  freshDir(IN_PAGE);
  await build({ ...inPageBundle, absWorkingDir: ROOT, outdir: IN_PAGE, logLevel: 'error' });
  return {
    name: 'in-page-broker-as-shipped',
    setup(b) {
      b.onResolve({ filter: /[\\/]worker[\\/]hosts[\\/]inPage\.js$/ }, (args) =>
        args.importer.startsWith(join(ROOT, 'client')) ? { path: join(IN_PAGE, 'inPage.js') } : undefined,
      );
    },
  };
}

/** What the benchmarks call an input of the shipped in-page bundle. */
export function inPageInputName(path: string): string | null {
  if (!path.includes('.tmp/in-page/')) return null;
  return path.endsWith('/inPage.js') ? 'the in-page broker bundle' : "the in-page broker's recorder";
}
