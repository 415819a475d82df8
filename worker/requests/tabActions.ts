/**
 * A tab's actions (the service methods it calls) send their requests in that tab's turn (scheduler.ts): each tab runs
 * the methods with transports whose requests name it.
 */
import type { ApiContext, ApiTransports, ServiceMethods } from '../api/context.js';
import { transportOnBehalfOf } from './onBehalfOf.js';
import type { OnBehalfOf } from './scheduler.js';

/** What an action's API modules get: every request they send is `who`'s. */
export function transportsOnBehalfOf(transports: ApiTransports, who: OnBehalfOf): ApiTransports {
  return {
    client: transportOnBehalfOf(transports.client, who),
    internal: () => transportOnBehalfOf(transports.internal(), who),
    internalSignIn: () => transportOnBehalfOf(transports.internalSignIn(), who),
    admin: (projectId) => transportOnBehalfOf(transports.admin(projectId), who),
    withAccessToken: (token) => transportOnBehalfOf(transports.withAccessToken(token), who),
    tokenEndpoint: (slot) => transports.tokenEndpoint(slot),
  };
}

/** The API modules' context for tab `tab`'s actions. */
export function contextOnBehalfOf(context: ApiContext, tab: number): ApiContext {
  return { ...context, transports: transportsOnBehalfOf(context.transports, tab) };
}

/**
 * The service methods each tab runs: made once per tab (forgotten when it is `released`), or per call with the
 * context diagnostics recorded for it (`recorded`, when they record).
 */
export function servicesByTab(
  servicesOf: (context: ApiContext) => ServiceMethods,
  context: ApiContext,
  released: { subscribe(listener: (tab: number) => void): unknown },
  recorded: (tab: number, method: string) => ApiContext | undefined,
): (tab: { label: number }, method: string) => ServiceMethods {
  const byTab = new Map<number, ServiceMethods>();
  released.subscribe((tab) => byTab.delete(tab));
  return ({ label }, method) => {
    const own = recorded(label, method);
    if (own !== undefined) return servicesOf(contextOnBehalfOf(own, label));
    let services = byTab.get(label);
    if (services === undefined) byTab.set(label, (services = servicesOf(contextOnBehalfOf(context, label))));
    return services;
  };
}
