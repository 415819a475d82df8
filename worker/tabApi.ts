import type { BrokerApi, TabHandlerUrls } from '../contract/api.js';
import type { DataOf, QuerySpec } from '../contract/queries.js';
import type { BrokerStatus } from '../contract/state.js';
import type { QueryClient } from './cache/queryClient.js';
import { withTabCallbacks } from './callbackDefaults.js';
import type { Tab, Tabs } from './tabs.js';

/** What the service-facing methods are, for every tab alike (auth, account, teams, admin…). */
export type ServiceMethods = Omit<BrokerApi, 'status' | 'subscribe' | 'unsubscribe' | 'read' | 'refetch' | 'reportBrowserState' | 'goodbye' | 'watchLifetime' | 'getAccessToken'>;

export interface TabApiContext {
  tabs: Tabs;
  queries: QueryClient;
  session: { start(): Promise<void>; getAccessToken(): Promise<string | null> };
  connectivity: { reportBrowser(online: boolean): void };
  status(): BrokerStatus;
  /** A hidden tab came back into view. */
  onReturn(): void;
  /** The lock this broker holds for its life (null for an in-page broker). */
  ownLockName: string | null;
  services: ServiceMethods;
}

/** One tab's view of the broker: the service methods every tab shares, plus this tab's own plumbing. */
export function createTabApi(tab: Tab, context: TabApiContext, handlerUrls?: TabHandlerUrls): BrokerApi {
  const { tabs, queries, session } = context;
  // Unknown until the tab first reports; that first report is not a return.
  let visible: boolean | undefined;
  return {
    ...withTabCallbacks(context.services, handlerUrls),
    status: async () => context.status(),
    subscribe: async (subscriptionId, query) => tabs.subscribe(tab, subscriptionId, query),
    unsubscribe: async (subscriptionId) => tabs.unsubscribe(tab, subscriptionId),
    read: async <Q extends QuerySpec>(query: Q): Promise<DataOf<Q>> => {
      // The session decides whose data it is: known before the entry is chosen.
      await session.start();
      return (await queries.entryFor(query).read()) as DataOf<Q>;
    },
    refetch: async (query) => {
      await queries.entryFor(query).fetch();
    },
    reportBrowserState: async ({ online, visible: nowVisible }) => {
      if (online !== undefined) context.connectivity.reportBrowser(online);
      if (nowVisible !== undefined) {
        if (nowVisible && visible === false) context.onReturn();
        visible = nowVisible;
      }
    },
    goodbye: async () => tabs.release(tab.tabId),
    watchLifetime: async (lockName) => {
      tabs.watchLifetime(tab, lockName);
      return context.ownLockName;
    },
    getAccessToken: () => session.getAccessToken(),
  };
}
