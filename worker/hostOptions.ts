import type { BrokerMode } from '../contract/state.js';
import type { Clock } from '../protocol/clock.js';
import type { Bus } from './coordination/bus.js';
import type { LockManagerLike } from './coordination/locks.js';
import type { LazyParts } from './lazy/parts.js';
import type { StorageOption } from './storage/tokenStore.js';

/**
 * What the host supplies: the runtime's facilities, replaceable in tests, and where the broker's lazy parts load from
 * (lazy/parts.ts; `authbroker/worker`'s `createBroker` fills in the dynamic imports).
 */
export interface BrokerHostOptions extends Partial<LazyParts> {
  /** Which host this is. */
  mode: BrokerMode;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Time, timers and randomness (default: the system's). */
  clock?: Clock;
  /** Default: IndexedDB, falling back to memory (with a warning) when IndexedDB fails. */
  storage?: StorageOption;
  /** Default: `navigator.locks` where it exists. */
  locks?: LockManagerLike | null;
  bus?: Bus;
  lockTimeoutMillis?: number;
  /**
   * Node and development only: admin calls with a super secret admin key instead of an owner's
   * session. Refused in browsers.
   */
  superSecretAdminKey?: string;
  /**
   * The host attaches the user's token to the pages' own requests (the service worker with app requests): only then
   * may a config ask for it (`appRequests.attachInServiceWorker`).
   */
  attachesTokens?: boolean;
}
