import type { BrokerMode } from '../contract/state.js';
import { inContentScript, inExtensionBackground } from '../contract/webExtension.js';
import { ClientError } from '../protocol/errors/errors.js';
import type { BrokerModeChoice } from './options.js';

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
  const g = globalThis as { SharedWorker?: unknown; isSecureContext?: boolean; navigator?: { serviceWorker?: unknown } };
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
  if (capabilities.serviceWorker && capabilities.secureContext && capabilities.serviceWorkerScript) modes.push('service-worker');
  modes.push('in-process');
  return modes;
}

/** Where a client is created, as far as the page-based hosts care. */
export type ClientContext = 'page' | 'content-script' | 'extension-background' | 'worker' | 'server';

/** Where this code runs: a page, a content script, an extension's background, another worker, or a server (rendering). */
export function clientContext(): ClientContext {
  const g = globalThis as { window?: unknown; document?: unknown; WorkerGlobalScope?: unknown };
  if (inContentScript()) return 'content-script';
  // Before the page check: Firefox's background is a page (with a window) of its own.
  if (inExtensionBackground()) return 'extension-background';
  if (g.window !== undefined || g.document !== undefined) return 'page';
  const inWorker = typeof g.WorkerGlobalScope === 'function' && globalThis instanceof (g.WorkerGlobalScope as new () => object);
  return inWorker ? 'worker' : 'server';
}

/**
 * `createBrokerClient` in a content script would host a broker in the web page's origin: the
 * session in the page's IndexedDB and a copy of the user in its localStorage, readable by the
 * page's scripts. Refused, naming the entry that reaches the extension's broker instead.
 */
export function refuseContentScript(): void {
  if (clientContext() !== 'content-script') return;
  throw new ClientError(
    'BROKER_UNAVAILABLE',
    "createBrokerClient runs in a content script, where its broker's storage would be the web page's (readable by the page's scripts). Use createContentScriptClient from 'authbroker/extension/content', which reaches the extension's background.",
  );
}

/**
 * Why no page-based host can start here (a worker, an extension's background, server rendering),
 * or null in a page. `mode: 'in-process'` is a broker of this context's own, and may run anywhere.
 */
export function noPageProblem(mode: BrokerModeChoice | undefined): string | null {
  const context = clientContext();
  if (context === 'page' || mode === 'in-process') return null;
  if (context === 'extension-background') {
    return "createBrokerClient runs in an extension's background, which has no window to host a broker from. Call startExtensionBroker from 'authbroker/extension' there: its client is the broker every page, popup and content script of the extension shares.";
  }
  if (context === 'worker') {
    return "createBrokerClient runs in a worker, which has no window to reach a SharedWorker or register a service worker from. Pass mode: 'in-process' for a broker of this worker's own (in a browser extension's background, use startExtensionBroker from 'authbroker/extension').";
  }
  return 'The broker runs in the browser; during server rendering there is nothing to connect to.';
}
