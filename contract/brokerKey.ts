import { normalizeBaseUrl } from '../protocol/credentials.js';

/**
 * Where a broker keeps the refresh token: `'indexeddb'` (the session survives the last tab and a
 * browser restart) or `'memory'` (only in the broker's memory, shared by the open tabs, gone with
 * the last of them; never written to storage).
 */
export type TokenStore = 'indexeddb' | 'memory';

/**
 * What a broker and its session are keyed by everywhere, on both sides (the SharedWorker's name,
 * the storage slot, the refresh lock, the broadcast channel, a worker host's registry): the service
 * and the project, and where the refresh token lives. A tab of the same project on another API URL
 * must never have this session's tokens sent to its URL, and a broker that keeps tokens in memory
 * shares nothing with one that stores them (which would store its session).
 */
export function brokerKeyOf(config: {
  baseUrl: string;
  projectId: string;
  tokenStore?: TokenStore | undefined;
}): string {
  return `${config.projectId}@${normalizeBaseUrl(config.baseUrl)}${config.tokenStore === 'memory' ? ';tokens=memory' : ''}`;
}

/**
 * How every broker SharedWorker's name begins: `authbroker:<brokerKey>`, and `#2`, `#3`… for a tab's retries
 * (contract/wire.ts). A worker named so serves only the config its name gives (worker/hosts/brokerRegistry.ts):
 * no page can fill it with brokers of made-up configs, which would leave none for the app's. A worker under a name of
 * the app's own choosing serves several configs.
 */
export const BROKER_WORKER_PREFIX = 'authbroker:';

/** The SharedWorker name of the broker of `brokerKey` (`brokerKeyOf`). */
export function brokerWorkerName(brokerKey: string): string {
  return `${BROKER_WORKER_PREFIX}${brokerKey}`;
}
