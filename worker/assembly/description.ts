/** A broker's status for the tabs, and what its recorder reads when it loads. */
import type { Watchable } from '../../contract/events.js';
import type { LiveContext, QueryScope } from '../../contract/queries.js';
import type { BrokerStatus } from '../../contract/state.js';
import type { QueryClient } from '../cache/queryClient.js';
import { createStatus } from '../status.js';
import type { Tabs } from '../tabs/tabs.js';
import type { Transports } from '../transports.js';
import type { Base } from './base.js';
import type { Sessions } from './brokerSessions.js';

/** The broker's status for the tabs, and what the recorder reads when it loads (once every part exists). */
export function describeBroker(
  base: Base,
  parts: {
    brokerId: string;
    startedAtMillis: number;
    tabs: Tabs;
    queries: QueryClient;
    ownerOf: (scope: QueryScope) => string;
    isSignedIn: () => boolean;
    liveContext: LiveContext;
    sessions: Sessions;
  },
  baseTransports: Transports,
): Watchable<BrokerStatus> {
  const { brokerId, startedAtMillis, tabs, queries, liveContext } = parts;
  const { session, adminSession } = parts.sessions;
  const { host, storage, warnings } = base;
  base.recorderSources(() => ({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    clock: base.clock,
    tabs,
    cache: queries.cache,
    ownerOf: parts.ownerOf,
    session,
    adminSession,
    refreshed: base.refreshed,
    connectivity: liveContext.connectivity,
    warnings,
    transports: baseTransports,
    queries,
    isSignedIn: parts.isSignedIn,
  }));
  return createStatus({
    mode: host.mode,
    brokerId,
    startedAtMillis,
    storageKind: storage.kind,
    tabs,
    cache: queries.cache,
    session: liveContext.session,
    adminSession: liveContext.adminSession,
    connectivity: liveContext.connectivity,
    tokenRefreshes: {
      count: () => session.refreshCount + (adminSession?.refreshCount ?? 0),
      changed: base.refreshed,
    },
    warnings,
  });
}
