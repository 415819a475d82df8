/**
 * What every context of the demo extension gives its client: the emulator's demo project (`npm
 * start` runs it on 127.0.0.1:8102). The build may name another service (the tests' emulator) and
 * the extension's choices (`scripts/buildExtension.mjs`).
 */
import type { ContentScriptAccess, ExtensionOptions } from '../../client/extension/index.js';

declare const __AUTHBROKER_BASE_URL__: string;
declare const __AUTHBROKER_TOKEN_STORE__: 'indexeddb' | 'session';
declare const __AUTHBROKER_CONTENT_SCRIPTS__: boolean | ContentScriptAccess;

export const options: ExtensionOptions = {
  baseUrl: __AUTHBROKER_BASE_URL__,
  projectId: '27581ab5-090d-4de0-a603-9893113cd548',
  publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
  tokenStore: __AUTHBROKER_TOKEN_STORE__,
  // E-mail links open the demo's web pages (a site the project trusts), never chrome-extension:// ones.
  handlerBaseUrl: 'http://localhost:5173',
};

/** Content scripts may read the user and sign out; the build may also hand them access tokens. */
export const contentScripts: boolean | ContentScriptAccess = __AUTHBROKER_CONTENT_SCRIPTS__;
