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
