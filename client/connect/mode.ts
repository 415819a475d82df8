/**
 * Which hosts a tab tries, worked out here alone: forced by the app (`mode`) or chosen by what the
 * browser offers. The link (`brokerLink.ts`) hands `options.mode` here and passes the answer on, in
 * the `BrokerTarget` and to the page's parts; besides checking it (`connectOptions.ts`), nothing
 * else reads it.
 */
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
 * The host the app forced (`options.mode`), or null where the page's capabilities choose (`'auto'`,
 * the default): what every part of the tab that asks "forced or automatic?" reads.
 */
export function forcedHost(choice: BrokerModeChoice = 'auto'): BrokerMode | null {
  return choice === 'auto' ? null : choice;
}

/**
 * The hosts to try, best first: a SharedWorker (one broker for all tabs), else a service worker
 * (older Chrome on Android, WebViews), else the page itself (insecure contexts, workers blocked).
 * The in-page broker is always last, so there is always somewhere to fall back to. A forced host is
 * the only one tried: if it cannot start, that is an error naming why, never a silent fallback.
 */
export function candidateModes(capabilities: Capabilities, choice: BrokerModeChoice = 'auto'): BrokerMode[] {
  const forced = forcedHost(choice);
  if (forced) return [forced];
  const modes: BrokerMode[] = [];
  if (capabilities.sharedWorker && capabilities.sharedWorkerScript) modes.push('shared-worker');
  if (capabilities.serviceWorker && capabilities.secureContext && capabilities.serviceWorkerScript)
    modes.push('service-worker');
  modes.push('in-process');
  return modes;
}
