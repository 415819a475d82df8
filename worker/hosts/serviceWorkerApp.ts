/// <reference lib="webworker" />
/**
 * The service-worker host with the app's own requests: what `installAuthBroker` does, plus the writes that wait out
 * an outage (their queue inside the script: a service worker may not import() once installed) and the token attached
 * to the pages' own requests (`appRequests.attachInServiceWorker`, attachInWorker.ts). A script of its own, so that the
 * default service worker stays within its size budget: an app that wants either registers this one.
 *
 * @module authbroker/worker/service-app
 */
import type { Broker } from '../broker.js';
import { createBroker } from '../broker.js';
import { brokerRegistry } from './brokerRegistry.js';
import { installAuthBroker } from './serviceWorker.js';
import { staticParts } from './staticParts.js';
import { createWriteQueue } from '../writes/queue.js';
import { attachTokens } from '../appRequests/attachInWorker.js';

/** Hosts the broker in your own service worker, with app requests: call it once from its script, with `self`. */
export function installAuthBrokerWithAppRequests(scope: ServiceWorkerGlobalScope): void {
  const brokers = new Set<Broker>();
  const getBroker = brokerRegistry({
    async create(config) {
      const broker = await createBroker(config, {
        ...staticParts,
        writes: async () => ({ createWriteQueue }),
        attachesTokens: true,
        mode: 'service-worker',
      });
      brokers.add(broker);
      return {
        ...broker,
        close() {
          brokers.delete(broker);
          broker.close();
        },
      };
    },
  });
  installAuthBroker(scope, getBroker);
  attachTokens(scope, () => brokers);
}
