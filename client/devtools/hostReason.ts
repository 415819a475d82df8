import type { BrokerMode } from '../../contract/state.js';
import { detectCapabilities } from '../connect/mode.js';

/** The warning a tab leaves in the broker when a better host did not start (client/connect/openBroker.ts). */
const FALLBACK = /^The broker runs in .+ mode because/;

/** Why the broker runs where it does, in one sentence: the fallback's own words when there was one. */
export function hostReason(mode: BrokerMode, warnings: readonly string[]): string {
  const fallback = warnings.find((warning) => FALLBACK.test(warning));
  if (mode === 'shared-worker') return 'A SharedWorker, the first choice: one broker for every tab of this origin.';
  if (mode === 'extension')
    return 'The browser extension’s background: one broker for its popup, pages, background and content scripts.';
  if (fallback !== undefined) return fallback;
  const page = detectCapabilities({});
  if (mode === 'service-worker') {
    return page.sharedWorker
      ? 'A service worker: the app asked for this host (mode), or gave no SharedWorker script.'
      : 'A service worker: this browser has no SharedWorker. One broker still serves every tab.';
  }
  const missing = [
    !page.sharedWorker && 'no SharedWorker',
    !page.serviceWorker && 'no service workers',
    !page.secureContext && 'not a secure context',
  ].filter(Boolean);
  return `In this page${missing.length > 0 ? ` (${missing.join(', ')})` : ': the app asked for this host (mode), or no worker script was given'}. Each tab runs its own broker; they share the session through IndexedDB, Web Locks and a BroadcastChannel.`;
}
