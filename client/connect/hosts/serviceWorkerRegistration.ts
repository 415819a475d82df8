import type { AttemptedConnection, BrokerChannel } from '../brokerChannel.js';
import type { ConnectOptions } from '../../connectOptions.js';
import { scriptProblem } from '../scriptProblem.js';

/**
 * The service-worker host (registered with workbox-window), for browsers without SharedWorker. A
 * module of its own, loaded only on this fallback path, so SharedWorker browsers never download it.
 * It registers and activates the worker; connecting to the broker in it, the timeout and the error
 * to throw come from the caller (`ServiceWorkerConnector`) rather than from imports, so this chunk
 * shares no module with the tab's main one (a shared module would be split into a chunk of its own
 * that every page loads).
 */
const SERVICE_WORKER_FIX =
  "With Vite, add the authbroker() plugin from 'authbroker/vite' to vite.config.ts; otherwise copy node_modules/authbroker/dist/authbroker-service-worker.js to your public folder.";

/** Service workers stop when idle; a message now and then keeps ours alive while a tab is open. */
const SERVICE_WORKER_KEEPALIVE_MILLIS = 10_000;

/** The registration's worker once activated: a newer one being installed wins over the active one. */
function activatedWorker(
  registration: ServiceWorkerRegistration,
  connector: ServiceWorkerConnector,
): Promise<ServiceWorker> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      const next = registration.installing ?? registration.waiting ?? registration.active;
      if (next === null) reject(connector.unavailable('The service worker failed to install.'));
      else if (next.state === 'activated') resolve(next);
      else next.addEventListener('statechange', settle, { once: true });
    };
    settle();
  });
}

/** How the fallback reaches the tab's connection code (see the module comment). */
export interface ServiceWorkerConnector {
  /** Connects to the broker in `worker`; `hostGone` settles when the worker is replaced. */
  connect(worker: ServiceWorker, hostGone: Promise<void>): Promise<AttemptedConnection>;
  /** The connect timeout, applied to waiting for the worker to activate. */
  withinTimeout<T>(promise: Promise<T>, what: string): Promise<T>;
  /** The error for a host that cannot start (BROKER_UNAVAILABLE). */
  unavailable(message: string): Error;
}

/** Registers and activates the worker, connects through `connector`, and keeps the worker alive while connected. */
export async function startServiceWorker(
  options: ConnectOptions,
  connector: ServiceWorkerConnector,
): Promise<BrokerChannel> {
  if (options.serviceWorker === undefined)
    throw connector.unavailable('No service worker script was configured (options.serviceWorker).');
  // Dev servers and single-page-app hosts answer a missing file with the app's page (200
  // text/html), which the browser then refuses with an error that names neither the file nor the fix.
  const problem = await scriptProblem(new URL(options.serviceWorker, location.href).toString(), SERVICE_WORKER_FIX);
  if (problem !== null) throw connector.unavailable(`The service worker ${problem}`);
  if (typeof navigator === 'undefined' || navigator.serviceWorker === undefined) {
    throw connector.unavailable(
      typeof isSecureContext === 'boolean' && !isSecureContext
        ? 'This page cannot use service workers: it is not a secure context (https, or http://localhost). navigator.serviceWorker is missing.'
        : 'This browser gives this page no service workers (navigator.serviceWorker is missing: a private window in some browsers, a WebView, or a worker).',
    );
  }
  // Loaded only on this fallback path, so SharedWorker browsers never download it.
  const { Workbox } = await import('workbox-window');
  const workbox = new Workbox(String(options.serviceWorker), { type: 'module' });
  let registration: ServiceWorkerRegistration | undefined;
  try {
    registration = await workbox.register();
  } catch (error) {
    throw connector.unavailable(
      `The service worker could not be registered: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (registration === undefined) throw connector.unavailable('The service worker could not be registered.');
  // Not `workbox.active`: it only settles for a worker this page installed or is controlled by, and a
  // page loaded while another tab's worker was activating (or hard-reloaded) is neither.
  const sw = await connector.withinTimeout(activatedWorker(registration, connector), 'The service worker');
  // A new version that activates makes this one redundant: the browser stops it, and its ports
  // go silent rather than failing.
  const replaced = new Promise<void>((resolve) => {
    const check = () => {
      if (sw.state === 'redundant') resolve();
      else sw.addEventListener('statechange', check, { once: true });
    };
    check();
  });
  const connection = await connector.connect(sw, replaced);
  // The worker attaches tokens only to the pages it controls: it takes this one now rather than at the next load.
  if (options.appRequests?.attachInServiceWorker === true && navigator.serviceWorker.controller === null) {
    const taken = new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
    sw.postMessage({ type: 'authbroker:claim' });
    await connector.withinTimeout(taken, 'The service worker taking this page (appRequests.attachInServiceWorker)');
  }
  const keepAlive = setInterval(() => sw.postMessage({ type: 'authbroker:ping' }), SERVICE_WORKER_KEEPALIVE_MILLIS);
  return {
    mode: 'service-worker',
    attempts: connection.attempts,
    api: connection.api,
    lost: connection.lost,
    markLost: connection.markLost,
    close: () => {
      clearInterval(keepAlive);
      connection.close();
    },
  };
}
