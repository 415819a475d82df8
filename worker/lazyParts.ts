/**
 * Where a broker's lazy parts load from unless its host says otherwise: each a dynamic import,
 * fetched on first use (the service methods on the first call of one, the diagnostics recorder on
 * the first diagnostics query). A service worker may not import() once installed: its host hands
 * them over with its script (hosts/staticParts.ts), and its prebuilt bundle takes that file in
 * place of this one (scripts/workerBundles.mjs), so that it holds no import() at all.
 */
import type { BrokerHostOptions } from './host.js';

export const lazyParts: Required<Pick<BrokerHostOptions, 'recorder' | 'services'>> = {
  recorder: () => import('./diagnostics/recorder.js'),
  services: () => import('./api/services.js'),
};
