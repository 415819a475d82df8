/** What a broker does as connectivity changes, and the start of its write queue once it is assembled. */
import type { ApiContext, ServiceMethods } from '../api/context.js';
import type { Connectivity } from '../connectivity/connectivity.js';
import type { QueryClient } from '../cache/queryClient.js';
import type { Session } from '../session/session.js';
import type { OfflineWrites } from '../writes/offlineWrites.js';
import type { Transports } from '../transports.js';
import type { Base } from './base.js';

/** `online` on every online state the tabs are told of; `back` when the service is reachable again after it was not. */
export function onConnectivity(connectivity: Connectivity, on: { online(): void; back(): void }): void {
  let lastState = connectivity.snapshot().state;
  connectivity.subscribe((snapshot) => {
    if (snapshot.state === 'online') on.online();
    if (snapshot.state === 'online' && lastState !== 'online') on.back();
    lastState = snapshot.state;
  });
}

/** The write queue's parts, once the broker is assembled (it loads now when the app keeps writes). */
export function startWrites(
  writes: OfflineWrites,
  base: Base,
  parts: {
    session: Session;
    connectivity: Connectivity;
    queries: QueryClient;
    servicesOf: (context: ApiContext) => ServiceMethods;
    apiContext: ApiContext;
    baseTransports: Transports;
  },
): void {
  const { config, clock, locks, recording, warnings } = base;
  writes.start(() => ({
    key: base.brokerKey,
    baseUrl: config.baseUrl,
    inMemory: config.tokenStore === 'memory',
    appRequests: config.appRequests,
    marginMillis: config.tokenMarginMillis,
    clock,
    fetch: base.fetch,
    locks,
    session: parts.session,
    connectivity: parts.connectivity,
    queries: parts.queries,
    services: (wrap) => parts.servicesOf({ ...parts.apiContext, transports: wrap(parts.apiContext.transports) }),
    client: recording.brokerWork(parts.baseTransports, 'offline writes').client,
    warn: (warning) => warnings.add(warning),
  }));
}
