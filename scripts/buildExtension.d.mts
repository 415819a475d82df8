export interface ExtensionBuildChoices {
  outdir?: string;
  baseUrl?: string;
  tokenStore?: 'indexeddb' | 'session';
  contentScripts?: boolean | { signOut?: boolean; accessToken?: boolean };
  minify?: boolean;
  driver?: string;
  /** What splits the background and the pages into chunks: Vite's library build (default), or esbuild with `splitting: true`. */
  bundler?: 'vite' | 'esbuild';
}

/** Builds the demo browser extension into an unpacked folder (scripts/buildExtension.mjs); resolves with the folder. */
export function buildExtension(choices?: ExtensionBuildChoices): Promise<string>;
