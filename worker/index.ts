/**
 * `authbroker/worker`: the broker. It owns the session for every tab of an origin; tabs talk to it
 * through `authbroker/client`. The host entry files are `hosts/sharedWorker`, `hosts/serviceWorker`
 * and `hosts/inProcess`.
 */
export { createBroker, type Broker, type BrokerParts } from './broker.js';
export { createInProcessBroker } from './hosts/inProcess.js';
export type { BrokerConfig } from './config.js';
export type { BrokerHostOptions } from './host.js';
export type * from '../contract/index.js';
export * from '../protocol/models.js';
export { exposeBrokerEntry } from './rpc/entry.js';
export type { LockManagerLike } from './locks.js';
export { WORKER_CONTENT_SECURITY_POLICY } from './csp.js';
