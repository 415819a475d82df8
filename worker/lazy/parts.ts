/**
 * Where a broker's lazy parts load from: each host says (worker/hosts/), and `authbroker/worker`'s
 * `createBroker` fills in the dynamic imports of lazy/dynamicParts.ts. The broker's own module names
 * no import() of them, so that a bundle holds the chunks only of the host it builds.
 */
import type { refreshAccessToken } from '../../protocol/tokenGrant.js';
import type { LoadServices } from '../api/methods.js';
import type { LoadRecorder } from '../diagnostics/recorder.js';
import type { MemoryTokenStore } from '../storage/memoryTokens.js';
import type { LoadWrites } from '../writes/writeQueueParts.js';

export interface LazyParts {
  /** How the diagnostics recorder loads, on the first diagnostics query. */
  recorder: LoadRecorder;
  /** How the service methods (worker/api/) load, on the first call of one; the in-page host's from its own chunk. */
  services: LoadServices;
  /** How the token endpoint's grants (oauth4webapi) load, on the first renewal of a token. */
  tokenGrant: LoadTokenGrant;
  /** How the memory token store loads, for a broker with `tokenStore: 'memory'`. */
  memoryTokens: LoadMemoryTokens;
  /**
   * How the write queue loads, at the start of a broker that keeps writes while offline (`offlineWrites`); a host
   * without it has none (the service worker's default script).
   */
  writes?: LoadWrites | undefined;
}

/**
 * What the broker uses of the token endpoint's grants (protocol/tokenGrant.ts, with oauth4webapi): the refresh-token
 * grant.
 */
export interface TokenGrantModule {
  refreshAccessToken: typeof refreshAccessToken;
}

/** How the token endpoint's grants load, on the first renewal of a token. */
export type LoadTokenGrant = () => Promise<TokenGrantModule>;

/**
 * How a host's brokers get the memory token store: worker hosts memoryTokens.ts's, the in-page host the one that shares
 * with other tabs' brokers (storage/memoryPeers.ts).
 */
export type LoadMemoryTokens = () => Promise<MemoryTokenStore>;
