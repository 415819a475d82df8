/**
 * The client on the page's own hosts (a SharedWorker, a service worker, or the page itself): its
 * parts load with import() when first used. Other hosts (an extension's) build on `createClientOn`
 * with parts of their own, and never reach this module's import()s.
 */
import { createClientOn, type BrokerClient, type ClientParts } from './client.js';
import { refuseContentScript } from './mode.js';
import type { ConnectOptions } from './options.js';

const pageParts: ClientParts = {
  connection: () => import('./connection.js'),
  // OAuth's browser steps and the passkey ceremonies load when first used (most pages use neither).
  oauth: () => import('./oauth.js'),
  passkeys: () => import('./passkeys.js'),
};

/**
 * Creates the tab's client. It reads the copy kept since the last visit (and, when there is none,
 * fetches the connection's code); the broker is started or joined when the client is first used.
 * Importing and creating it is safe during server rendering.
 *
 * What a page shows first comes from the copy kept since the last visit, synchronously: creating
 * the client and subscribing read it (once) and nothing else. The connection (Comlink, the host, the
 * worker, the lifetime locks: `connection.ts`) is a lazy chunk. A subscription loads it after the
 * page's next frame when the kept copy gave the page something to show, and at once when it did not
 * (a first visit: the page waits for the broker anyway); a call that needs the broker (an action,
 * `connect()`, `read`) loads it at once.
 */
export function createBrokerClient(options: ConnectOptions): BrokerClient {
  refuseContentScript();
  return createClientOn(options, null, pageParts);
}

/** Creates the client and waits for its broker. */
export async function connectBroker(options: ConnectOptions): Promise<BrokerClient> {
  // async: bad options reject like any other failure to connect, rather than throwing synchronously.
  return createBrokerClient(options).connect();
}
