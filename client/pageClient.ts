/**
 * The client on the page's own hosts (a SharedWorker, a service worker, or the page itself): its
 * parts load with import() when first used. Other hosts (an extension's) build on `createClientOn`
 * with parts of their own, and never reach this module's import()s.
 */
import type { BrokerMode } from '../contract/state.js';
import { extensionApi, inContentScript, type ExtensionApi } from '../contract/webExtension.js';
import { ClientError } from '../protocol/errors/errors.js';
import type { BrokerClient, ClientParts } from './brokerClient.js';
import { createClientOn } from './createClientOn.js';
import type { ConnectOptions } from './connectOptions.js';
import { passkeysAvailable, passkeysUnavailable } from './passkeys/passkeySupport.js';

/**
 * Why no page-based host can start here, before anything is loaded: a worker (an extension's
 * background in Chromium is one, where import() is refused too) or server rendering. Null where
 * there is a window; a forced `'in-process'` host (`forcedHost`), a broker of this context's own,
 * may run anywhere.
 */
export function noWindowProblem(forced: BrokerMode | null | undefined): string | null {
  const g = globalThis as { window?: unknown; document?: unknown };
  if (forced === 'in-process' || g.window !== undefined || g.document !== undefined) return null;
  return "No window to host the broker: it runs in the browser, not in server rendering; in a worker, pass mode: 'in-process' (in an extension's background, use startExtensionBroker).";
}

/**
 * The page's parts, each loaded when first used (most pages use neither OAuth's browser steps nor
 * the passkey ceremonies). In one of an extension's own documents, the connection first refuses the
 * background page (`backgroundPageProblem`): what only extensions need is asked with the lazy chunk.
 */
function pageParts(extension: ExtensionApi | null): ClientParts {
  return {
    async connection(forced) {
      const problem = noWindowProblem(forced);
      if (problem !== null) throw new ClientError('BROKER_UNAVAILABLE', problem);
      const connection = await import('./connect/connection.js');
      const inBackground = connection.backgroundPageProblem(extension, forced);
      if (inBackground !== null) throw new ClientError('BROKER_UNAVAILABLE', inBackground);
      return connection;
    },
    oauth: () => import('./oauth.js'),
    appRequests: () => import('./appRequests/appFetch.js'),
    passkeysAvailable,
    async passkeys() {
      if (!passkeysAvailable()) throw passkeysUnavailable();
      return import('./passkeys/passkeys.js');
    },
  };
}

/**
 * Creates the tab's client. It reads the copy kept since the last visit (and, when there is none,
 * fetches the connection's code); the broker is started or joined when the client is first used.
 * Importing and creating it is safe during server rendering.
 *
 * What a page shows first comes from the copy kept since the last visit, synchronously: creating
 * the client and subscribing read it (once) and nothing else. The connection (Comlink, the host, the
 * worker, the lifetime locks: `connect/connection.ts`) is a lazy chunk. A subscription loads it after the
 * page's next frame when the kept copy gave the page something to show, and at once when it did not
 * (a first visit: the page waits for the broker anyway); a call that needs the broker (an action,
 * `connect()`, `read`) loads it at once.
 *
 * In a content script it throws at once, before the web page's storage is read: its broker's
 * storage would be the web page's, readable by the page's scripts.
 */
export function createBrokerClient(options: ConnectOptions): BrokerClient {
  if (inContentScript())
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      "A content script's storage is the web page's: use createContentScriptClient from 'authbroker/extension/content'.",
    );
  return createClientOn(options, null, pageParts(extensionApi()));
}

/** Creates the client and waits for its broker. */
export async function connectBroker(options: ConnectOptions): Promise<BrokerClient> {
  // async: bad options reject like any other failure to connect, rather than throwing synchronously.
  return createBrokerClient(options).connect();
}
