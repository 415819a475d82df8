/**
 * The client's link to its broker, in the tab's main chunk: the connection opened when first
 * needed (a subscription's after the page's first frame, when the kept copy gave it something to
 * show), opened again when its host goes away, and closed by `close()`; and the query store, which
 * subscribes through it. What it opens with is the lazy connection (`connection.ts`), loaded when
 * first needed; on a first visit (no kept copy) its chunk is fetched at once and the broker's
 * SharedWorker started while the page renders.
 */
import type { BrokerApi } from '../../contract/api.js';
import type { BrokerMode } from '../../contract/state.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { ClientParts, ConnectionModule } from '../brokerClient.js';
import { workerName, type ConnectOptions } from '../connectOptions.js';
import type { HandlerUrls } from '../handlerUrls.js';
import type { PersistedSnapshots } from '../kept/keptCopyReader.js';
import { createQueryStore, type QueryStore } from '../queryStore.js';
import { afterFirstFrame } from './afterFirstFrame.js';
import type { EarlyWorker } from './brokerChannel.js';
import type { Connection } from './connection.js';
import type { Receiver } from './deliveries.js';
import { candidateModes, detectCapabilities, forcedHost } from './mode.js';
import { tabErrors } from './tabErrors.js';

/** The client's side of its connection (see `linkToBroker`). */
export interface BrokerLink {
  /** The tab's queries, which subscribe through this link (see `apiSoon`). */
  store: QueryStore;
  /** The host in use, once connected (null before). */
  readonly mode: BrokerMode | null;
  /** The connection under way or open; one is started if there is none. */
  api(): Promise<BrokerApi>;
  /** Closes the connection (a connection arriving after it is closed rather than used); the next call opens another. */
  close(): void;
}

const closedWhileConnecting = () => new ClientError('BROKER_CLOSED', 'The client was closed while it was connecting.');

/**
 * The link for a client whose kept copy is `kept`, and the query store that subscribes through it:
 * `load` gives the connection's module, `urls` the handler pages the broker is told of (null
 * outside a page). `inBrowser`: the page's own hosts, in a window (then a first visit starts the
 * broker early).
 */
export function linkToBroker(
  options: ConnectOptions,
  baseUrl: string,
  urls: () => HandlerUrls | null,
  kept: PersistedSnapshots,
  load: ClientParts['connection'],
  inBrowser: boolean,
): BrokerLink {
  let connection: Connection | null = null;
  /** What the broker sends reaches the store through this, once the connection has loaded. */
  let receiver: Receiver | null = null;
  /** The connection under way or open. */
  let connecting: Promise<BrokerApi> | null = null;
  /** A connection subscriptions asked for, waiting for the first frame. */
  let soon: Promise<BrokerApi> | null = null;
  /** Bumped by close(), so that a connection arriving after it is closed rather than used. */
  let closes = 0;
  // Releasing a query tells the connection under way or open, if any: never one started just to unsubscribe.
  const store = createQueryStore(apiSoon, () => connecting, kept);
  // Loaded once: a module that failed to load fails again for this page (browsers keep the failure).
  let loading: Promise<ConnectionModule> | null = null;
  const forced = forcedHost(options.mode);
  const loadConnection = () => (loading ??= load(forced));
  const name = workerName(options);
  let modes: BrokerMode[] | null = null;
  const hosts = () => (modes ??= candidateModes(detectCapabilities(options), options.mode));
  // Without any kept copy (a first visit) the page has nothing to show until the broker answers: the
  // connection's chunk is fetched now, and the broker's SharedWorker started (its script loads and
  // the broker starts while the page renders; the chunk's own evaluation waits for the first frame).
  let early: EarlyWorker | null = null;
  if (inBrowser && !kept.hasCopy()) {
    void loadConnection().catch(() => undefined);
    const source = options.sharedWorker;
    if (source !== undefined && hosts()[0] === 'shared-worker') {
      try {
        const started = {
          worker: typeof source === 'function' ? source(name) : new SharedWorker(source, { type: 'module', name }),
          failed: false,
        };
        started.worker.addEventListener('error', () => (started.failed = true), { once: true });
        early = started;
      } catch {
        // The connection's first attempt meets the same refusal and says why.
      }
    }
  }

  async function open(): Promise<BrokerApi> {
    const generation = closes;
    const { connect, keepSnapshots, receiving } = await loadConnection();
    if (generation !== closes) throw closedWhileConnecting();
    const to = (receiver ??= receiving(store, keepSnapshots(kept)));
    const target = { options, baseUrl, name, modes: hosts(), forced, errors: tabErrors, again: api, early };
    early = null;
    const opened = await connect(target, urls(), to.deliver);
    if (generation !== closes) {
      // close() came while this connection was being made: nobody holds it, so it would leak.
      opened.close(true);
      throw closedWhileConnecting();
    }
    connection = opened;
    void opened.lost.then(() => {
      if (connection !== opened) return;
      // The host went away under us (a new service worker took over, the worker was killed): the
      // next broker has the session in IndexedDB; connect to it and subscribe again to what is on screen.
      disconnect();
      void api().catch(() => undefined);
    });
    // Used again after a close(): what is still watched subscribes to the new broker.
    queueMicrotask(() => to.resubscribeAll());
    return opened.api;
  }

  /** Closes the connection (`goodbye`: the broker is told this tab is leaving) and forgets its subscriptions. */
  function disconnect(goodbye?: boolean): void {
    connection?.close(goodbye);
    connection = null;
    connecting = null;
    receiver?.disconnected();
  }

  function api(): Promise<BrokerApi> {
    connecting ??= open().catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  /**
   * The connection for a subscription: never started inside the call (a page's first frame waits
   * for nothing), but once the current task's subscriptions are known: after the next frame when
   * they were answered from the kept copy, else at once.
   */
  function apiSoon(): Promise<BrokerApi> {
    if (connecting !== null) return connecting;
    soon ??= new Promise<BrokerApi>((resolve, reject) => {
      const generation = closes;
      const start = () => {
        soon = null;
        if (generation === closes) resolve(api());
        else reject(closedWhileConnecting());
      };
      queueMicrotask(() => (store.showsKeptCopy ? afterFirstFrame(start) : start()));
    });
    return soon;
  }

  return {
    store,
    get mode() {
      return connection?.mode ?? null;
    },
    api,
    close() {
      closes += 1;
      early?.worker.port.close();
      early = null;
      disconnect(true);
    },
  };
}
