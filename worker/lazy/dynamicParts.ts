/**
 * A broker's lazy parts as dynamic imports, each fetched on first use (the service methods on the
 * first call of one, the diagnostics recorder on the first diagnostics query, oauth4webapi's grants on
 * the first renewal of a token): the SharedWorker's,
 * and the default of `authbroker/worker`'s `createBroker`. A service worker may not import() once
 * installed: its host hands them over with its script (hosts/staticParts.ts).
 */
import type { LazyParts } from './parts.js';

export const lazyParts: LazyParts = {
  recorder: () => import('../diagnostics/recorder.js'),
  services: () => import('../api/methods.js'),
  memoryTokens: () => import('../storage/memoryTokens.js'),
  tokenGrant: () => import('../../protocol/tokenGrant.js'),
  writes: () => import('../writes/queue.js'),
};
