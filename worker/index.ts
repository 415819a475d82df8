/**
 * `authbroker/worker`: the broker. It owns the session for every tab of an origin; tabs talk to it
 * through `authbroker/client`. The host entry files are `hosts/sharedWorker`, `hosts/serviceWorker`
 * and `hosts/inProcess`.
 */
export { createBroker, type Broker } from './broker.js';
export { createInProcessBroker } from './hosts/inProcess.js';
export type { BrokerConfig } from './config.js';
export type { BrokerHostOptions } from './core.js';
export type * from './api/types.js';
export type { QuerySpec } from './cache/queries.js';
export type { QuerySnapshot } from './cache/query.js';
export type { ConnectivitySnapshot, ConnectivityState } from './connectivity.js';
export type { SessionEnd, SessionEndReason } from './storage/types.js';
export * from './models.js';
export { installErrorTransfer } from './rpc/errors.js';
export { exposeBrokerEntry } from './rpc/expose.js';
export type { LockManagerLike } from './locks.js';
