/// <reference lib="webworker" />
/**
 * The service-worker host, for browsers without SharedWorker. A tab sends a MessagePort with
 * `{ type: 'authbroker:connect' }`; the broker answers on that port. Apps with their own service
 * worker call `installAuthBroker(self)` from it; others register `serviceWorkerEntry` as theirs.
 */
import { createBroker } from '../broker.js';
import { brokerRegistry, exposeBrokerEntry } from '../rpc/expose.js';

export const CONNECT_MESSAGE = 'authbroker:connect';

export function installAuthBroker(scope: ServiceWorkerGlobalScope): void {
  const getBroker = brokerRegistry((config) => createBroker(config, { mode: 'service-worker' }));
  scope.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown } | null;
    const port = event.ports[0];
    if (data?.type === CONNECT_MESSAGE && port) exposeBrokerEntry(getBroker, port);
  });
}
