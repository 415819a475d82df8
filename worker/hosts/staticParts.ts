/**
 * The broker's lazy parts as a service worker needs them: inside its script, since it may not
 * import() once installed.
 */
import * as services from '../api/services.js';
import * as recorder from '../diagnostics/recorder.js';
import type { BrokerHostOptions } from '../host.js';

export const lazyParts: Required<Pick<BrokerHostOptions, 'recorder' | 'services'>> = {
  recorder: async () => recorder,
  services: async () => services,
};
