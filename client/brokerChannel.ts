/**
 * What a connection to a broker is, apart from how each host opens one (channels.ts): the lazy
 * service-worker host (serviceWorkerHost.ts) names these types too, and must not import channels.ts,
 * which imports it.
 */
import type { BrokerApi } from '../contract/api.js';
import type { BrokerMode } from '../contract/state.js';

/** A connection to a broker, whatever hosts it. */
export interface BrokerChannel {
  mode: BrokerMode;
  api: BrokerApi;
  /** Settles if the host goes away under the tab (a service worker replaced by a new deploy, a worker killed). */
  lost?: Promise<void>;
  /** Says the host is gone, when the tab learns it another way (the broker's lifetime lock). */
  markLost?(): void;
  /** How many attempts the connection took (1: the broker answered the first). */
  attempts?: number;
  close(): void;
}

/** A connection over a port to a broker's entry, which knows when its host is gone. */
export interface WatchedConnection {
  api: BrokerApi;
  lost: Promise<void>;
  markLost(): void;
  close(): void;
}

/** A connection and how many attempts it took (1 when the first answered). */
export interface AttemptedConnection extends WatchedConnection {
  attempts: number;
}
