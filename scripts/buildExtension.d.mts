/** Builds the demo browser extension into an unpacked folder (scripts/buildExtension.mjs); resolves with the folder. */
export function buildExtension(choices?: {
  outdir?: string;
  baseUrl?: string;
  tokenStore?: 'indexeddb' | 'session';
  contentScripts?: boolean | { signOut?: boolean; accessToken?: boolean };
  minify?: boolean;
  driver?: string;
}): Promise<string>;
