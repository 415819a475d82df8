/**
 * What the broker learns of each tab's browser: online or offline, visible or hidden, and a page
 * that is leaving for good. Part of the tab's lazy connection.
 */
import type { BrokerApi } from '../../contract/api.js';

/** Reports the browser's state to the broker now and on every change, until the returned function stops it. */
export function forwardBrowserState(api: BrokerApi): () => void {
  if (typeof window === 'undefined') return () => undefined;
  const report = (state: { online?: boolean; visible?: boolean }) =>
    void api.reportBrowserState(state).catch(() => undefined);
  const online = () => report({ online: true });
  const offline = () => report({ online: false });
  const visibility = () => report({ visible: document.visibilityState === 'visible' });
  // A window getting the focus is someone looking again, even if the tab never stopped being visible.
  const focus = () => report({ visible: true });
  const leave = (event: PageTransitionEvent) => {
    if (!event.persisted) void api.goodbye().catch(() => undefined);
  };
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);
  document.addEventListener('visibilitychange', visibility);
  window.addEventListener('focus', focus);
  window.addEventListener('pagehide', leave);
  report({ online: navigator.onLine, visible: document.visibilityState === 'visible' });
  return () => {
    window.removeEventListener('online', online);
    window.removeEventListener('offline', offline);
    document.removeEventListener('visibilitychange', visibility);
    window.removeEventListener('focus', focus);
    window.removeEventListener('pagehide', leave);
  };
}
