/// <reference lib="webworker" />
/**
 * A ready-made service worker that hosts the broker with the app's own requests: writes kept while offline
 * (`offlineWrites`) and tokens attached to the pages' requests (`appRequests.attachInServiceWorker`). See
 * serviceWorkerEntry.ts for why it takes over at once and claims a page only when the page asks.
 *
 * @module authbroker/worker/service-app-entry
 */
import { installAuthBrokerWithAppRequests } from './serviceWorkerApp.js';

declare const self: ServiceWorkerGlobalScope;

installAuthBrokerWithAppRequests(self);
self.addEventListener('install', () => void self.skipWaiting());
