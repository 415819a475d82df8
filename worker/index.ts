/**
 * `authbroker/worker`: the broker. It owns the session for every tab of an origin; tabs talk to it
 * through `authbroker/client`. The host entry files are `hosts/sharedWorker`, `hosts/serviceWorker`
 * and `hosts/inProcess`.
 *
 * @module authbroker/worker
 */
import { assertNotInBrowser } from '../protocol/environment.js';
import { createBroker as createBrokerOf, type Broker } from './broker.js';
import type { BrokerHostOptions } from './hostOptions.js';
import { lazyParts } from './lazy/dynamicParts.js';

export type { Broker, BrokerParts } from './broker.js';

/**
 * A broker for one project of one service, on the host `host` describes; its lazy parts load with import() unless
 * `host` says otherwise.
 */
export async function createBroker(config: unknown, host: BrokerHostOptions): Promise<Broker> {
  if (host.superSecretAdminKey !== undefined) assertNotInBrowser('A super secret admin key');
  // In-page brokers (one per tab) share sessions kept in memory with each other; a worker's one broker has nobody to.
  const memoryTokens =
    host.memoryTokens ??
    (host.mode === 'in-process'
      ? () => import('./storage/memoryPeers.js').then((peers) => peers.sharedWithPeers())
      : lazyParts.memoryTokens);
  return createBrokerOf(config, {
    ...host,
    recorder: host.recorder ?? lazyParts.recorder,
    services: host.services ?? lazyParts.services,
    memoryTokens,
    tokenGrant: host.tokenGrant ?? lazyParts.tokenGrant,
    writes: host.writes ?? lazyParts.writes,
  });
}
export { createInProcessBroker } from './hosts/inProcess.js';
export type { BrokerConfig } from './config.js';
export type { BrokerHostOptions } from './hostOptions.js';
export type * from '../contract/index.js';
export * from '../protocol/models.js';
export { exposeBrokerEntry } from './rpc/brokerEntry.js';
export type { LockManagerLike } from './coordination/locks.js';
export { WORKER_CONTENT_SECURITY_POLICY } from '../protocol/workerPolicy.js';
