/// <reference lib="webworker" />
/**
 * A ready-made service worker that only hosts the broker (see serviceWorker.ts).
 *
 * @module authbroker/worker/service-entry
 */
import { installAuthBroker } from './serviceWorker.js';

declare const self: ServiceWorkerGlobalScope;

installAuthBroker(self);
// Take over at once, so the first page load already has its broker. Pages are not claimed: tabs
// reach the broker through the registration, never as the worker's clients, and activation should
// wait on nothing (in 2 of 4 CI runs WebKit's first worker of a fresh profile, with two tabs
// loading, did not reach "activated" within 8 s and 15 s; a claim pending on a loading page was
// the one wait of ours on that path).
self.addEventListener('install', () => void self.skipWaiting());
