import type { BrokerMode } from '../../contract/state.js';
import type { BrokerModeChoice } from '../connectOptions.js';

/** What the page can do, as far as choosing a broker host goes. */
export interface Capabilities {
  sharedWorker: boolean;
  serviceWorker: boolean;
  secureContext: boolean;
  /** Whether the app told us where the scripts are. */
  sharedWorkerScript: boolean;
  serviceWorkerScript: boolean;
}

/** What this browser offers the broker (SharedWorker, service worker, Web Locks…) given the client's options. */
export function detectCapabilities(options: { sharedWorker?: unknown; serviceWorker?: unknown }): Capabilities {
  const g = globalThis as {
    SharedWorker?: unknown;
    isSecureContext?: boolean;
    navigator?: { serviceWorker?: unknown };
  };
  return {
    sharedWorker: typeof g.SharedWorker === 'function',
    serviceWorker: g.navigator?.serviceWorker !== undefined,
    secureContext: g.isSecureContext === true,
    sharedWorkerScript: options.sharedWorker !== undefined,
    serviceWorkerScript: options.serviceWorker !== undefined,
  };
}

/**
 * The hosts to try, best first: a SharedWorker (one broker for all tabs), else a service worker
 * (older Chrome on Android, WebViews), else the page itself (insecure contexts, workers blocked).
 * The in-page broker is always last, so there is always somewhere to fall back to. A forced host is
 * the only one tried: if it cannot start, that is an error naming why, never a silent fallback.
 */
export function candidateModes(capabilities: Capabilities, choice: BrokerModeChoice = 'auto'): BrokerMode[] {
  if (choice !== 'auto') return [choice];
  const modes: BrokerMode[] = [];
  if (capabilities.sharedWorker && capabilities.sharedWorkerScript) modes.push('shared-worker');
  if (capabilities.serviceWorker && capabilities.secureContext && capabilities.serviceWorkerScript)
    modes.push('service-worker');
  modes.push('in-process');
  return modes;
}
