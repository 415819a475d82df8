/// <reference lib="webworker" />
/**
 * The service-worker host, for browsers without SharedWorker. A tab sends a MessagePort with
 * `{ type: 'authbroker:connect' }`; the broker answers on that port. Apps with their own service
 * worker call `installAuthBroker(self)` from it; others register `serviceWorkerEntry` as theirs.
 *
 * @module authbroker/worker/service
 */
import { SERVICE_WORKER_CONNECT } from '../../contract/wire.js';
import { exposeBrokerEntry } from '../rpc/brokerEntry.js';
import { brokerFor } from './brokerRegistry.js';
import { staticParts } from './staticParts.js';

/** The message a tab sends the service worker, with a port, to connect to its broker. */
export const CONNECT_MESSAGE = SERVICE_WORKER_CONNECT;

/**
 * Hosts the broker in your own service worker: call it once from its script, with `self`. `getBroker`: the worker's
 * brokers, when made otherwise (the script with app requests, worker/hosts/serviceWorkerApp.ts).
 */
export function installAuthBroker(
  scope: ServiceWorkerGlobalScope,
  // A service worker may not import() once installed: the service methods and the diagnostics
  // recorder come with the script.
  getBroker: Parameters<typeof exposeBrokerEntry>[0] = brokerFor('service-worker', staticParts),
): void {
  scope.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown } | null;
    const port = event.ports[0];
    if (data?.type === SERVICE_WORKER_CONNECT && port) exposeBrokerEntry(getBroker, port);
  });
}
