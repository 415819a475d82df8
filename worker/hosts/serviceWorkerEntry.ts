/// <reference lib="webworker" />
/**
 * A ready-made service worker that only hosts the broker (see serviceWorker.ts).
 *
 * @module authbroker/worker/service-entry
 */
import { installAuthBroker } from './serviceWorker.js';

declare const self: ServiceWorkerGlobalScope;

installAuthBroker(self);
// Take over at once, so the first page load already has its broker.
self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
