/**
 * The broker's lazy parts as a service worker needs them: inside its script, since it may not
 * import() once installed.
 */
import { createServices } from '../api/services.js';
import { createRecorder } from '../diagnostics/recorder.js';
import type { LazyParts } from '../host.js';
import { keepTokensInMemory, peerChannel } from '../storage/memoryTokens.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';

export const staticParts: LazyParts = {
  recorder: async () => ({ createRecorder }),
  services: async () => ({ createServices }),
  memoryTokens: async () => ({ keepTokensInMemory, peerChannel }),
  tokenGrant: async () => ({ refreshAccessToken }),
};
