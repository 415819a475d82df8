/**
 * The in-page host: the broker runs in the tab itself. Used by tests, by Node, and as the last
 * fallback where neither SharedWorker nor service workers are available; tabs then coordinate
 * through Web Locks, BroadcastChannel and the shared IndexedDB.
 */
import { assertNotInBrowser } from '../../protocol/environment.js';
import { createServices, lazyFetches } from '../api/methods.js';
import { createBroker, type Broker } from '../broker.js';
import type { BrokerConfig } from '../config.js';
import type { BrokerHostOptions } from '../hostOptions.js';
import type { LazyParts } from '../lazy/parts.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import { sharedWithPeers } from '../storage/memoryPeers.js';

/**
 * This host is itself a chunk the tab loads when it falls back to it. The service methods come with
 * it: as a chunk of their own they would share with the tab's main chunk modules that this chunk
 * does not, and a bundler would split what both share into one more file every page loads up front.
 * So do oauth4webapi's grants. The recorder, which shares nothing (it gets the broker's modules from
 * its kit), stays lazy.
 */
const inPageParts: LazyParts = {
  recorder: () => import('../diagnostics/recorder.js'),
  services: async () => ({ createServices, lazyFetches }),
  memoryTokens: async () => sharedWithPeers(),
  tokenGrant: async () => ({ refreshAccessToken }),
  writes: () => import('../writes/queue.js'),
};

/** A broker in this page (or in Node, for tests): the last fallback when no worker can host one. */
export async function createInProcessBroker(
  config: BrokerConfig,
  options: Omit<BrokerHostOptions, 'mode'> = {},
): Promise<Broker> {
  if (options.superSecretAdminKey !== undefined) assertNotInBrowser('A super secret admin key');
  return createBroker(config, {
    ...options,
    recorder: options.recorder ?? inPageParts.recorder,
    services: options.services ?? inPageParts.services,
    memoryTokens: options.memoryTokens ?? inPageParts.memoryTokens,
    tokenGrant: options.tokenGrant ?? inPageParts.tokenGrant,
    writes: options.writes ?? inPageParts.writes,
    mode: 'in-process',
  });
}
