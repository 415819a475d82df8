import type { Plugin } from 'esbuild';
import type { TransformerFactory, SourceFile } from 'typescript';

/** Per source file (a path under the repository), the functions the build compiles ahead. */
export declare const COMPILED_AHEAD: Readonly<Record<string, readonly string[]>>;

/** The names to mark in a file, or undefined when it has none. */
export declare function compiledAheadNames(fileName: string): Set<string> | undefined;

/** A TypeScript transformer that turns the named declarations and methods into parenthesized function expressions. */
export declare function compiledAheadTransformer(names: ReadonlySet<string>): TransformerFactory<SourceFile>;

/** An esbuild plugin that marks the listed functions in the sources it bundles. */
export declare const compiledAheadPlugin: Plugin;

/** Emits a TypeScript project as tsc would, with the listed functions marked; throws with tsc's diagnostics. */
export declare function emitWithCompiledAhead(configPath: string): void;
