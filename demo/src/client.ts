import { createBrokerClient, type BrokerClient, type BrokerModeChoice } from '../../client/index.js';
import { navigate } from './router.js';

export interface DemoConfig {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  internalPublishableClientKey: string;
}

/**
 * The demo's broker client. The SharedWorker is written as `new SharedWorker(new URL(...))` so
 * Vite bundles it as a same-origin module file (no blob:, no eval). `?mode=` forces a host, which
 * the end-to-end tests use to check the fallbacks, `?tokens=memory` keeps the refresh token in memory, and
 * `?connectTimeout=` gives hosts longer to start. Redirects the library starts (`useUser({ or:
 * 'redirect' })`) go through the demo's router, so they are client-side navigations.
 */
export function createDemoClient(config: DemoConfig): BrokerClient {
  const search = new URLSearchParams(location.search);
  const forced = search.get('mode') as BrokerModeChoice | null;
  const { offlineWrites, attach } = appRequestChoices(search);
  return createBrokerClient({
    ...config,
    sharedWorker: (name) =>
      new SharedWorker(new URL('../../worker/hosts/sharedWorker.ts', import.meta.url), { type: 'module', name }),
    // The service worker with app requests where the demo keeps writes or has the worker attach tokens.
    serviceWorker: offlineWrites || attach ? '/authbroker-sw-app.js' : '/authbroker-sw.js',
    navigate: (to) => navigate(to),
    ...(forced === null ? {} : { mode: forced }),
    // `?tokens=memory`: the refresh token only in the broker's memory (gone with the last tab).
    ...(search.get('tokens') === 'memory' ? { tokenStore: 'memory' as const } : {}),
    // The Notes page's own API (/api/*, beside the demo) is on the page's origin: client.fetch's default.
    ...(offlineWrites ? { offlineWrites } : {}),
    // `?attach=worker`: the service worker attaches the token to the page's own requests; the page never holds one.
    ...(attach
      ? {
          mode: 'service-worker' as const,
          tokenStore: 'memory' as const,
          appRequests: { attachInServiceWorker: true },
        }
      : {}),
    // `?connectTimeout=20000`: more time for a host to start (a browser's first service worker on a busy machine).
    ...(Number(search.get('connectTimeout')) > 0 ? { connectTimeoutMillis: Number(search.get('connectTimeout')) } : {}),
  });
}

/** Where the demo's choices of app requests are kept, so that every tab passes the same options. */
const OFFLINE_WRITES_KEY = 'demo:offlineWrites';

/**
 * `?offlineWrites=1` (or 0) keeps writes made while the service is away, for this browser from now on (every tab must
 * pass the same options, so the choice is remembered, and the Notes page offers it); `?attach=worker` has the service
 * worker attach tokens, for this tab's visit.
 */
export function appRequestChoices(search: URLSearchParams): { offlineWrites: boolean; attach: boolean } {
  const asked = search.get('offlineWrites');
  if (asked === '1' || asked === '0') localStorage.setItem(OFFLINE_WRITES_KEY, asked);
  return { offlineWrites: localStorage.getItem(OFFLINE_WRITES_KEY) === '1', attach: search.get('attach') === 'worker' };
}
