/**
 * What a connection to a broker is, apart from how each host opens one (hosts/): the service
 * worker's registration (hosts/serviceWorkerRegistration.ts), a chunk of its own, names these types
 * too. Types only: the tab's main chunk and its lazy connection both name them.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import type { BrokerMode } from '../../contract/state.js';
import type { ClientErrorCode, ProtocolError } from '../../protocol/errors/errors.js';
import type { ConnectOptions } from '../connectOptions.js';

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

/** Opens one kind of host (`openers`, openBroker.ts) and connects this tab to the broker in it. */
export type HostOpener = (target: BrokerTarget, hello: TabHello, listener: TabListener) => Promise<BrokerChannel>;

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

/**
 * The error classes the connection throws, handed over by the tab's main chunk (`tabErrors`)
 * rather than imported: the connection is a lazy chunk, and a module that both imported would be
 * split by bundlers into a chunk of its own that every page loads up front. The in-page broker,
 * a bundle of its own with its own copies of the classes, rebuilds its errors with `deserializeError`
 * so that the app always meets the tab's classes.
 */
export interface TabErrors {
  ClientError: new (code: ClientErrorCode, message: string) => Error;
  ProtocolError: typeof ProtocolError;
  deserializeError(value: unknown): Error;
}

/**
 * A SharedWorker the main chunk started before the connection loaded (a first visit), and whether its script failed to
 * load meanwhile.
 */
export interface EarlyWorker {
  worker: SharedWorker;
  failed: boolean;
}

/** Where the tab's broker is and how to reach it: worked out by the main chunk, used by the lazy connection. */
export interface BrokerTarget {
  /** The app's options: the host scripts, the connect timeout. */
  options: ConnectOptions;
  /** The service's base URL, normalized (`normalizeBaseUrl`). */
  baseUrl: string;
  /** The broker's SharedWorker name (`workerName`): one per service and project. */
  name: string;
  /** The hosts to try, best first (`candidateModes`; `authbroker/client` exports it, so it is the main chunk's). */
  modes: BrokerMode[];
  /**
   * The host the app forced (`forcedHost`), the only one in `modes`; null (or absent) when the page's capabilities
   * chose them.
   */
  forced?: BrokerMode | null;
  errors: TabErrors;
  /**
   * The client's connection, the next one once this one is lost: where a repeatable call the lost broker never answered
   * is asked again (`askAgain.ts`).
   */
  again: () => Promise<BrokerApi>;
  /** The broker's SharedWorker, already started under `name` (a first visit): the first attempt uses it. */
  early?: EarlyWorker | null;
}
