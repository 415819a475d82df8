/**
 * A broker's shared cache (the query client) with what its fetches and live values read, and what a tab's read waits
 * for first.
 */
import type { PendingChange } from '../../contract/appRequests.js';
import type { Watchable } from '../../contract/events.js';
import type { FetchContext, LiveContext, QueryScope, QuerySpec } from '../../contract/queries.js';
import type { BrokerStatus } from '../../contract/state.js';
import { QueryClient } from '../cache/queryClient.js';
import type { Recording } from '../lazy/recording.js';
import { loadOnDemand } from '../lazy/loadOnDemand.js';
import { watchSession } from '../session/watch.js';
import type { Transports } from '../transports.js';
import type { Base } from './base.js';
import type { Sessions } from './brokerSessions.js';

/**
 * What a tab's call on `query` (or on a subscription) waits for first: the recorder, for the
 * diagnostics query; any call, for a recorder that is loading, so that calls keep their order.
 */
export function readyFor(recording: Recording, query: QuerySpec | undefined): Promise<unknown> | undefined {
  if (query?.kind === 'diagnostics' && recording.recorder === null) return recording.load();
  return recording.loading?.catch(() => undefined);
}

/** The shared cache, told of mutations in other brokers (other deploys, in-page brokers of other tabs) too. */
export function createQueries(
  base: Base,
  sessions: Sessions,
  transports: Transports,
  pendingChanges: Watchable<PendingChange[]>,
) {
  const { session, adminSession } = sessions;
  const lazyFetches = loadOnDemand(async () => (await base.host.services()).lazyFetches, 'lazy queries');
  const ownerOf = (scope: QueryScope): string => {
    if (scope === 'user') return `user:${session.sessionKey ?? 'anonymous'}`;
    if (scope === 'admin')
      return `admin:${adminSession?.sessionKey ?? (base.host.superSecretAdminKey ? 'key' : 'anonymous')}`;
    return scope;
  };
  const isSignedIn = () => session.sessionKey !== null;
  const fetchContext: FetchContext = {
    client: transports.client,
    isSignedIn,
    internal: () => transports.internal(),
    admin: (projectId?: string) => transports.admin(projectId),
    lazyFetches,
  };
  const { connectivity, recording } = base;
  let status: Watchable<BrokerStatus> | null = null;
  const liveContext: LiveContext = {
    session: watchSession(session),
    adminSession: watchSession(adminSession),
    connectivity: { current: () => connectivity.snapshot(), subscribe: (listener) => connectivity.subscribe(listener) },
    get status() {
      if (status === null) throw new TypeError('status read before the broker assembled it');
      return status;
    },
    get diagnostics() {
      // The tab API loads the recorder before it serves a diagnostics query.
      if (recording.recorder === null) throw new TypeError('diagnostics read before the recorder loaded');
      return recording.recorder.diagnostics;
    },
    pendingChanges,
  };
  const queries = new QueryClient({
    clock: base.clock,
    fetchContext,
    fetchContextFor: (cause) => {
      const attributed = recording.recorder?.fetchContext(cause);
      return attributed === undefined ? fetchContext : { ...attributed, lazyFetches };
    },
    liveContext,
    ownerOf,
    currentUserId: () => {
      const state = session.state();
      return state.status === 'signed-in' ? state.userId : null;
    },
    broadcast: (message) => base.bus.post(message),
  });
  base.bus.onMessage((message) => {
    if (message.type === 'cache-invalidate')
      queries.receive(message, recording.trace({ tab: null, via: 'broker', name: 'another broker' }));
  });
  const setStatus = (value: Watchable<BrokerStatus>) => (status = value);
  return { queries, liveContext, ownerOf, isSignedIn, setStatus };
}
