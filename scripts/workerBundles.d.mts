import type { BuildOptions, BuildResult } from 'esbuild';

/** esbuild options of each prebuilt worker script, but for where it is written. */
export declare const workerBundles: { readonly sharedWorker: BuildOptions; readonly serviceWorker: BuildOptions };

/** A file of a worker script as it ships. */
export interface WorkerFile {
  path: string;
  text: string;
  contents: Uint8Array;
}

/** Builds a worker script as it ships (esbuild, then the second minifier pass); written unless `write: false`. */
export declare function buildWorker(
  options: BuildOptions,
): Promise<Omit<BuildResult, 'outputFiles'> & { outputFiles: WorkerFile[] }>;
