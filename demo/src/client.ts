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
  return createBrokerClient({
    ...config,
    sharedWorker: (name) =>
      new SharedWorker(new URL('../../worker/hosts/sharedWorker.ts', import.meta.url), { type: 'module', name }),
    serviceWorker: '/authbroker-sw.js',
    navigate: (to) => navigate(to),
    ...(forced === null ? {} : { mode: forced }),
    // `?tokens=memory`: the refresh token only in the broker's memory (gone with the last tab).
    ...(search.get('tokens') === 'memory' ? { tokenStore: 'memory' as const } : {}),
    // `?connectTimeout=20000`: more time for a host to start (a browser's first service worker on a busy machine).
    ...(Number(search.get('connectTimeout')) > 0 ? { connectTimeoutMillis: Number(search.get('connectTimeout')) } : {}),
  });
}
