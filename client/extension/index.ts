/**
 * `authbroker/extension`: one session for a whole browser extension. The background hosts the
 * broker (`startExtensionBroker`), the extension's pages connect to it (`createExtensionClient`),
 * content scripts use `authbroker/extension/content`. A bundler keeps only what each entry of the
 * extension imports: a popup that imports `createExtensionClient` ships no broker (with Vite,
 * Rollup, or no code-splitting; esbuild's `splitting` puts what this module re-exports for the
 * pages and the background into one shared chunk). Nothing here uses import(), which a service
 * worker may not call: a background built with code-splitting imports its chunks statically.
 *
 * @module authbroker/extension
 */
export { startExtensionBroker } from './background.js';
export { createExtensionClient } from './pages.js';
export type { ExtensionClient } from './extensionClient.js';
export type {
  ContentScriptAccess,
  ExtensionBrokerOptions,
  ExtensionOptions,
  ExtensionTokenStore,
} from './extensionOptions.js';
export { oauthRedirectUrl } from './redirectUrl.js';
export type { BrokerClient } from '../brokerClient.js';
export type * from '../../contract/index.js';
export type * from '../../protocol/models.js';
