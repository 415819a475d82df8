import { SERVICE_WORKER_CONNECT } from '../contract/wire.js';
import { ClientError } from '../protocol/errors/errors.js';
import type { BrokerChannel, WatchedConnection } from './channels.js';
import type { ConnectOptions } from './options.js';
import { scriptProblem } from './scriptProblem.js';

/**
 * The service-worker host (registered with workbox-window), for browsers without SharedWorker. A
 * module of its own, loaded only on this fallback path, so SharedWorker browsers never download it.
 * The port connection comes from the caller (`connect`, `withinTimeout`) rather than by importing
 * channels.ts: this chunk then shares no code with the tab's main one but the error classes.
 */
const SERVICE_WORKER_FIX = "With Vite, add the authbroker() plugin from 'authbroker/vite' to vite.config.ts; otherwise copy node_modules/authbroker/dist/authbroker-service-worker.js to your public folder.";

/** Service workers stop when idle; a message now and then keeps ours alive while a tab is open. */
const SERVICE_WORKER_KEEPALIVE_MILLIS = 10_000;

/** The registration's worker once activated: a newer one being installed wins over the active one. */
function activatedWorker(registration: ServiceWorkerRegistration): Promise<ServiceWorker> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      const next = registration.installing ?? registration.waiting ?? registration.active;
      if (next === null) reject(new ClientError('BROKER_UNAVAILABLE', 'The service worker failed to install.'));
      else if (next.state === 'activated') resolve(next);
      else next.addEventListener('statechange', settle, { once: true });
    };
    settle();
  });
}

/** How the fallback reaches the tab's connection code (see the module comment). */
export interface ServiceWorkerConnector {
  /** Connects over a port to the broker's entry; `hostGone` settles when the worker is replaced. */
  connect(port: MessagePort, hostGone: Promise<void>): Promise<WatchedConnection>;
  /** The connect timeout, applied to waiting for the worker to activate. */
  withinTimeout<T>(promise: Promise<T>, what: string): Promise<T>;
}

export async function openServiceWorker(options: ConnectOptions, connector: ServiceWorkerConnector): Promise<BrokerChannel> {
  if (options.serviceWorker === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'No service worker script was configured (options.serviceWorker).');
  // Dev servers and single-page-app hosts answer a missing file with the app's page (200
  // text/html), which the browser then refuses with an error that names neither the file nor the fix.
  const problem = await scriptProblem(new URL(options.serviceWorker, location.href).toString(), SERVICE_WORKER_FIX);
  if (problem !== null) throw new ClientError('BROKER_UNAVAILABLE', `The service worker ${problem}`);
  // Loaded only on this fallback path, so SharedWorker browsers never download it.
  const { Workbox } = await import('workbox-window');
  const workbox = new Workbox(String(options.serviceWorker), { type: 'module' });
  let registration: ServiceWorkerRegistration | undefined;
  try {
    registration = await workbox.register();
  } catch (error) {
    throw new ClientError('BROKER_UNAVAILABLE', `The service worker could not be registered: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (registration === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'The service worker could not be registered.');
  // Not `workbox.active`: it only settles for a worker this page installed or is controlled by, and a
  // page loaded while another tab's worker was activating (or hard-reloaded) is neither.
  const sw = await connector.withinTimeout(activatedWorker(registration), 'The service worker');
  // A new version that activates makes this one redundant: the browser stops it, and its ports
  // go silent rather than failing.
  const replaced = new Promise<void>((resolve) => {
    const check = () => {
      if (sw.state === 'redundant') resolve();
      else sw.addEventListener('statechange', check, { once: true });
    };
    check();
  });
  const { port1, port2 } = new MessageChannel();
  sw.postMessage({ type: SERVICE_WORKER_CONNECT }, [port2]);
  port1.start();
  let connection: WatchedConnection;
  try {
    connection = await connector.connect(port1, replaced);
  } catch (error) {
    port1.close();
    throw error;
  }
  const keepAlive = setInterval(() => sw.postMessage({ type: 'authbroker:ping' }), SERVICE_WORKER_KEEPALIVE_MILLIS);
  return {
    mode: 'service-worker',
    api: connection.api,
    lost: connection.lost,
    markLost: connection.markLost,
    close: () => {
      clearInterval(keepAlive);
      connection.close();
      port1.close();
    },
  };
}

