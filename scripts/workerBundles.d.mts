import type { BuildOptions } from 'esbuild';

/** esbuild options of each prebuilt worker script, but for where it is written. */
export declare const workerBundles: { readonly sharedWorker: BuildOptions; readonly serviceWorker: BuildOptions };
