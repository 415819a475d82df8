/**
 * Like refetch-on-window-focus: someone looking at a tab again, or a network that is back, should see today's data,
 * not what was fetched before they left. Rate-limited per broker, because ten tabs becoming visible together are one
 * return, not ten.
 */
import type { Clock } from '../../protocol/clock.js';
import type { FetchCause } from './cacheEntry.js';
import type { QueryClient } from './queryClient.js';

/** Returns closer together than this share one refetch of what is on screen. */
export const RETURN_REFETCH_INTERVAL_MILLIS = 5000;

/** Refetches what tabs watch (not the broker's own values) on a return; off when the config says so. */
export function refetchOnReturn(
  enabled: boolean,
  clock: Pick<Clock, 'now'>,
  queries: QueryClient,
): (cause?: FetchCause) => void {
  let lastReturnMillis = Number.NEGATIVE_INFINITY;
  return (cause) => {
    if (!enabled) return;
    const now = clock.now();
    if (now - lastReturnMillis < RETURN_REFETCH_INTERVAL_MILLIS) return;
    lastReturnMillis = now;
    queries.cache.refetchWatched((entry) => entry.scope !== 'broker', cause);
  };
}
