/// <reference lib="webworker" />
/**
 * The SharedWorker entry: one broker for every tab of the origin. Load it from a same-origin URL
 * (no blob:, no eval), e.g. `new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module',
 * name })`.
 *
 * @module authbroker/worker/shared
 */
import { lazyParts } from '../lazy/dynamicParts.js';
import { brokerFor } from './brokerRegistry.js';
import { exposeBrokerEntry } from '../rpc/brokerEntry.js';

declare const self: SharedWorkerGlobalScope;

// A module worker: the service methods and the diagnostics recorder are chunks beside it, fetched on first use. Its
// name binds it to one config when the tab named it for one (contract/brokerKey.ts).
const getBroker = brokerFor('shared-worker', lazyParts, self.name);

self.addEventListener('connect', (event) => {
  const port = (event as MessageEvent).ports[0];
  if (port) exposeBrokerEntry(getBroker, port);
});
