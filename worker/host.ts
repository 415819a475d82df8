import type { BrokerMode } from '../contract/state.js';
import type { Clock } from '../protocol/clock.js';
import { messageOf } from '../protocol/errors/errors.js';
import type { refreshAccessToken } from '../protocol/tokenGrant.js';
import type { Bus } from './bus.js';
import type { LoadServices } from './api/services.js';
import type { LoadRecorder } from './diagnostics/recorder.js';
import type { LockManagerLike } from './locks.js';
import { createIndexedDbStorage } from './storage/indexedDb.js';
import { createMemoryStorage } from './storage/memory.js';
import type { MemoryTokenStore } from './storage/memoryTokens.js';
import type { BrokerStorage } from './storage/types.js';

/** What the host supplies: the runtime's facilities, replaceable in tests. */
export interface BrokerHostOptions {
  /** Which host this is. */
  mode: BrokerMode;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Time, timers and randomness (default: the system's). */
  clock?: Clock;
  /** Default: IndexedDB, falling back to memory (with a warning) when IndexedDB fails. */
  storage?: BrokerStorage | (() => Promise<BrokerStorage>);
  /** Default: `navigator.locks` where it exists. */
  locks?: LockManagerLike | null;
  bus?: Bus;
  lockTimeoutMillis?: number;
  /**
   * How the diagnostics recorder loads, on the first diagnostics query; default a dynamic import (worker/lazyParts.ts).
   */
  recorder?: LoadRecorder;
  /**
   * How the service methods (worker/api/) load, on the first call of one; default a dynamic import
   * (worker/lazyParts.ts), or, for the in-page host, from its own chunk.
   */
  services?: LoadServices;
  /**
   * How the token endpoint's grants (oauth4webapi) load, on the first renewal of a token; default a
   * dynamic import (worker/lazyParts.ts).
   */
  tokenGrant?: LoadTokenGrant;
  /**
   * How the memory token store loads, for a broker with `tokenStore: 'memory'`; default a dynamic import
   * (worker/lazyParts.ts).
   */
  memoryTokens?: LoadMemoryTokens;
  /**
   * Node and development only: admin calls with a super secret admin key instead of an owner's
   * session. Refused in browsers.
   */
  superSecretAdminKey?: string;
}

/**
 * Where a broker's lazy parts load from: each host says (worker/hosts/), and `authbroker/worker`'s
 * `createBroker` fills in the dynamic imports of worker/lazyParts.ts. The broker's own module names
 * no import() of them, so that a bundle holds the chunks only of the host it builds.
 */
export type LazyParts = Required<Pick<BrokerHostOptions, 'recorder' | 'services' | 'memoryTokens' | 'tokenGrant'>>;

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

export async function openStorage(
  option: BrokerHostOptions['storage'],
  warn: (warning: string) => void,
): Promise<BrokerStorage> {
  if (option !== undefined && typeof option !== 'function') return option;
  try {
    return await (option ?? createIndexedDbStorage)();
  } catch (error) {
    warn(`IndexedDB is not available (${messageOf(error)}): the session is kept in memory until the broker stops.`);
    return createMemoryStorage();
  }
}
