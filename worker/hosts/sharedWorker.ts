/// <reference lib="webworker" />
/**
 * The SharedWorker entry: one broker for every tab of the origin. Load it from a same-origin URL
 * (no blob:, no eval), e.g. `new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module', name })`.
 */
import { brokerFor } from './registry.js';
import { exposeBrokerEntry } from '../rpc/entry.js';

declare const self: SharedWorkerGlobalScope;

const getBroker = brokerFor('shared-worker');

self.addEventListener('connect', (event) => {
  const port = (event as MessageEvent).ports[0];
  if (port) exposeBrokerEntry(getBroker, port);
});
