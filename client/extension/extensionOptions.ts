import type { ExtensionTokenStore, ContentScriptAccess } from '../../worker/hosts/extension.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import { extensionApi, type ExtensionApi } from '../../contract/webExtension.js';
import type { ConnectOptions } from '../connectOptions.js';

export type { ContentScriptAccess, ExtensionTokenStore };

/**
 * What every context of an extension (background, pages, content scripts) gives its client: the
 * same service and project everywhere, typically from one module the extension's entries share.
 * The hosts are the extension's own (no `sharedWorker`, `serviceWorker` or `mode`).
 */
export interface ExtensionOptions extends Omit<
  ConnectOptions,
  'sharedWorker' | 'serviceWorker' | 'mode' | 'tokenStore'
> {
  /**
   * Where the background keeps the session. `'indexeddb'` (default): IndexedDB on the extension's
   * origin, which web pages and content scripts cannot reach; the session survives the background
   * stopping and the browser restarting. `'session'`: `storage.session`, which survives the
   * background stopping and is gone when the browser closes (the extension's memory store). Never
   * `storage.local`.
   */
  tokenStore?: ExtensionTokenStore;
}

/** What the background's `startExtensionBroker` takes besides. */
export interface ExtensionBrokerOptions extends ExtensionOptions {
  /**
   * Whether content scripts may use the session, and how: `false` (default) refuses their ports;
   * `true` lets them read the user and the session and sign out; `{ accessToken: true }` also hands
   * them access tokens, `{ signOut: false }` keeps sign-out from them.
   */
  contentScripts?: boolean | ContentScriptAccess;
}

/**
 * Why no context of an extension runs passkey ceremonies: the service verifies a passkey against
 * the origin of the page that made it, which must be one of the project's trusted domains, and those
 * are http or https sites (a background has no page at all): the passkey parts (`ClientParts`) of every context.
 */
export const NO_PASSKEYS_IN_EXTENSIONS = {
  passkeysAvailable: () => false,
  passkeys: async (): Promise<never> => {
    throw new ClientError(
      'PASSKEYS_UNAVAILABLE',
      "Passkeys do not work in a browser extension: the service accepts a passkey only from a page on one of the project's trusted domains (http or https sites), and an extension's pages are chrome-extension:// (moz-extension://) ones. Offer passkeys on your website.",
    );
  },
};

/** The extension API, or an error naming where the entry must run. */
export function requireExtension(entry: string): ExtensionApi {
  const extension = extensionApi();
  if (extension === null) {
    // A content script declared with `world: 'MAIN'` runs as the web page's own script: no extension API there.
    const world =
      entry === 'createContentScriptClient'
        ? " A content script in the web page's MAIN world has none: run it in the ISOLATED world (the default)."
        : '';
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      `${entry} runs in a browser extension (chrome.runtime or browser.runtime with an id); this context has none.${world}`,
    );
  }
  return extension;
}

/** The options as `createBrokerClient`'s checks know them (the token store is the extension's own choice). */
export function connectOptionsOf(options: ExtensionOptions, defaults: Partial<ConnectOptions>): ConnectOptions {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'The extension client needs an options object.');
  const { tokenStore, ...rest } = options;
  for (const key of ['mode', 'sharedWorker', 'serviceWorker'] as const) {
    if (key in rest)
      throw new InvalidArgumentError(
        `options.${key}`,
        `options.${key} does not apply in an extension: the broker is its background's.`,
      );
  }
  if (tokenStore !== undefined && tokenStore !== 'indexeddb' && tokenStore !== 'session') {
    const memory =
      (tokenStore as string) === 'memory'
        ? " ('memory' would end the session whenever the background stops, every 30 s of idleness in Chromium: 'session' keeps it in the browser's memory until the browser closes)"
        : '';
    throw new InvalidArgumentError(
      'options.tokenStore',
      `options.tokenStore must be 'indexeddb' or 'session'${memory}.`,
    );
  }
  // A session that ends with the browser should not leave the person's data in the pages' kept copy.
  return {
    ...defaults,
    ...rest,
    persistSnapshot: rest.persistSnapshot ?? defaults.persistSnapshot ?? tokenStore !== 'session',
  };
}
