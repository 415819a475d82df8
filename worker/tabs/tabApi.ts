import type { BrokerApi, TabHandlerUrls } from '../../contract/api.js';
import type { CauseVia } from '../../contract/diagnostics.js';
import type { DataOf, QuerySpec } from '../../contract/queries.js';
import type { BrokerStatus } from '../../contract/state.js';
import type { ServiceMethods } from '../api/context.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import type { QueryClient } from '../cache/queryClient.js';
import type { Tab, Tabs } from './tabs.js';

/**
 * Diagnostics' view of a tab's calls: who asks (undefined while nothing is recorded), and the service methods as one
 * action runs them.
 */
export interface TabTrace {
  cause(tab: Tab, via: CauseVia, name: string): FetchCause | undefined;
  /** The service methods with everything `method`'s call does attributed to it; undefined while nothing is recorded. */
  services(tab: Tab, method: string): ServiceMethods | undefined;
}

export interface TabApiContext {
  tabs: Tabs;
  queries: QueryClient;
  /** `caller`: who asks, passed to the refresh a token may need (diagnostics). */
  session: { start(): Promise<void>; getAccessToken(caller?: unknown): Promise<string | null> };
  connectivity: { reportBrowser(tab: number, online: boolean): void; verifyContact(): void };
  status(): BrokerStatus;
  /** A hidden tab came back into view. */
  onReturn(cause?: FetchCause): void;
  /** What is wrong with the configuration, found once per broker (cache/configCheck.ts). */
  configProblems(): Promise<string[]>;
  /** The name of the lock this broker holds for its life now (null for an in-page broker). */
  ownLockName(): Promise<string | null>;
  services: ServiceMethods;
  trace?: TabTrace;
  /**
   * What a call on `query` (or on a subscription) must wait for first (the diagnostics recorder loading), if anything.
   */
  ready?(query?: QuerySpec): Promise<unknown> | undefined;
}

type WithCallbacks =
  'signUpWithPassword' | 'sendMagicLink' | 'sendPasswordResetEmail' | 'sendContactChannelVerification' | 'inviteToTeam';

/**
 * The service methods as one tab calls them: a callback URL the app left out is the tab's own
 * handler page (an e-mail's link opens where the person asked for it), as the official SDK does.
 * An explicit URL always wins.
 */
function withTabCallbacks(services: ServiceMethods, urls: TabHandlerUrls | undefined): ServiceMethods {
  if (urls === undefined) return services;
  const defaults: Pick<ServiceMethods, WithCallbacks> = {
    signUpWithPassword: (input) =>
      services.signUpWithPassword({
        ...input,
        verificationCallbackUrl: input.verificationCallbackUrl ?? urls.emailVerification,
      }),
    sendMagicLink: (input) =>
      services.sendMagicLink({ ...input, callbackUrl: input.callbackUrl ?? urls.magicLinkCallback }),
    sendPasswordResetEmail: (input) =>
      services.sendPasswordResetEmail({ ...input, callbackUrl: input.callbackUrl ?? urls.passwordReset }),
    sendContactChannelVerification: (channelId, callbackUrl) =>
      services.sendContactChannelVerification(channelId, callbackUrl ?? urls.emailVerification),
    inviteToTeam: (input) => services.inviteToTeam({ ...input, callbackUrl: input.callbackUrl ?? urls.teamInvitation }),
  };
  return { ...services, ...defaults };
}

/** Each service method, run by the copy `servicesFor` gives for that call (when it gives one). */
function perCall(
  services: ServiceMethods,
  servicesFor: (method: string) => ServiceMethods | undefined,
): ServiceMethods {
  const routed: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of Object.keys(services) as Array<keyof ServiceMethods>) {
    routed[name] = (...args: unknown[]) =>
      ((servicesFor(name) ?? services)[name] as (...a: unknown[]) => unknown)(...args);
  }
  return routed as unknown as ServiceMethods;
}

/** One tab's view of the broker: the service methods every tab shares, plus this tab's own plumbing. */
export function createTabApi(tab: Tab, context: TabApiContext, handlerUrls?: TabHandlerUrls): BrokerApi {
  const { tabs, queries, session, trace } = context;
  const cause = (via: CauseVia, name: string) => trace?.cause(tab, via, name);
  const services =
    trace === undefined ? context.services : perCall(context.services, (method) => trace.services(tab, method));
  // Unknown until the tab first reports; that first report is not a return.
  let visible: boolean | undefined;
  return {
    ...withTabCallbacks(services, handlerUrls),
    status: async () => context.status(),
    subscribe: async (subscriptionId, query) => {
      const waiting = context.ready?.(query);
      if (waiting) await waiting;
      return tabs.subscribe(tab, subscriptionId, query);
    },
    unsubscribe: async (subscriptionId) => {
      const waiting = context.ready?.();
      if (waiting) await waiting;
      tabs.unsubscribe(tab, subscriptionId);
    },
    read: async <Q extends QuerySpec>(query: Q): Promise<DataOf<Q>> => {
      // The session decides whose data it is: known before the entry is chosen.
      await Promise.all([session.start(), context.ready?.(query)]);
      return (await queries.entryFor(query).read(cause('read', query.kind))) as DataOf<Q>;
    },
    refetch: async (query) => {
      const waiting = context.ready?.(query);
      if (waiting) await waiting;
      await queries.entryFor(query).fetch(cause('refetch', query.kind));
    },
    reportBrowserState: async ({ online, visible: nowVisible }) => {
      if (online !== undefined) context.connectivity.reportBrowser(tab.label, online);
      if (nowVisible !== undefined) {
        if (nowVisible && visible === false) context.onReturn(cause('return', 'visible again'));
        // Someone is looking at this tab now (it became visible, or its window got the focus): what it shows of
        // connectivity must be current.
        if (nowVisible) context.connectivity.verifyContact();
        visible = nowVisible;
        tabs.setVisible(tab, nowVisible);
      }
    },
    goodbye: async () => tabs.release(tab),
    watchLifetime: async (lockName) => {
      tabs.watchLifetime(tab, lockName);
      return context.ownLockName();
    },
    getAccessToken: () => session.getAccessToken(cause('action', 'getAccessToken')),
    configProblems: () => context.configProblems(),
  };
}
