/**
 * The broker's lazy parts as a service worker needs them: inside its script, since it may not
 * import() once installed.
 */
import { createServices, lazyFetches } from '../api/methods.js';
import { createRecorder } from '../diagnostics/recorder.js';
import type { LazyParts } from '../lazy/parts.js';
import { keepTokensInMemory } from '../storage/memoryTokens.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';

export const staticParts: LazyParts = {
  recorder: async () => ({ createRecorder }),
  services: async () => ({ createServices, lazyFetches }),
  // A worker's broker has no peers: only in-page brokers (one per tab) share sessions over a channel.
  memoryTokens: async () => ({ keepTokensInMemory }),
  tokenGrant: async () => ({ refreshAccessToken }),
};
