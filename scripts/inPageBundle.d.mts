import type { BuildOptions } from 'esbuild';

export declare const inPageBundle: BuildOptions;
