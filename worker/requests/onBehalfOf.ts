/**
 * How a request says whom it is for (the request scheduler's lanes, scheduler.ts). There is no async context in a
 * worker: the tab travels as the cause of a fetch (the cache's `FetchCause`), and as copies of the transports a fetch
 * or an action (tabActions.ts) runs with, whose requests carry it (`onBehalfOf`, read by the transport's
 * `waitForTurn`).
 */
import type { FetchContext } from '../../contract/queries.js';
import type { AccessType } from '../../protocol/resources/common.js';
import type { Transport } from '../../protocol/transport.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import { BROKER_PARTY, type OnBehalfOf, type Party } from './scheduler.js';

/**
 * The tab a cause names: a diagnostics trace (`{ cause: { tab } }`, worker/diagnostics/requestLog.ts) or `tabCause`'s;
 * the broker's own work for any other.
 */
export function partyOf(cause: FetchCause | undefined): Party {
  const tab = (cause as { cause?: { tab?: unknown } } | undefined)?.cause?.tab;
  return typeof tab === 'number' ? tab : BROKER_PARTY;
}

/** The cause of a tab's fetch while diagnostics record nothing: only which tab asked. */
export function tabCause(tab: number): FetchCause {
  const cause: FetchCause & { cause: { tab: number } } = {
    cause: { tab },
    fork: () => cause,
    join: () => undefined,
  };
  return cause;
}

/** `transport`, its requests sent on behalf of `who` (unless a request already says for whom). */
export function transportOnBehalfOf<A extends AccessType>(transport: Transport<A>, who: OnBehalfOf): Transport<A> {
  return {
    baseUrl: transport.baseUrl,
    projectId: transport.projectId,
    accessType: transport.accessType,
    options: transport.options,
    request: (request) => transport.request({ ...request, onBehalfOf: request.onBehalfOf ?? who }),
    withUserTokens: (tokens) => transportOnBehalfOf(transport.withUserTokens(tokens), who),
  };
}

/** What a cache fetch's definition gets: its requests sent on behalf of `who`. */
export function fetchContextOnBehalfOf(context: FetchContext, who: OnBehalfOf): FetchContext {
  return {
    client: transportOnBehalfOf(context.client, who),
    isSignedIn: () => context.isSignedIn(),
    internal: () => transportOnBehalfOf(context.internal(), who),
    admin: (projectId) => transportOnBehalfOf(context.admin(projectId), who),
    lazyFetches: () => context.lazyFetches(),
  };
}
