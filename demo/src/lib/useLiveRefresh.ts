import { useEffect } from 'react';
import type { QuerySpec } from '../../../client/index.js';
import { useBrokerClient } from '../../../client/react/index.js';

/** How often a shown list that other people change is asked for again. */
export const LIVE_REFRESH_MILLIS = 3000;

/**
 * For data other people change (a team's members when someone accepts an invitation): the broker
 * hears of its own tabs' changes at once, but the service pushes nothing, so while the tab is shown
 * we ask again every few seconds, and at once when the person comes back to the tab.
 */
export function useLiveRefresh(spec: QuerySpec | null, everyMillis = LIVE_REFRESH_MILLIS): void {
  const client = useBrokerClient();
  const key = spec === null ? null : JSON.stringify(spec);
  useEffect(() => {
    if (spec === null) return;
    const refresh = () => {
      if (document.visibilityState === 'visible') void client.refetch(spec).catch(() => undefined);
    };
    const timer = setInterval(refresh, everyMillis);
    document.addEventListener('visibilitychange', refresh);
    window.addEventListener('focus', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
      window.removeEventListener('focus', refresh);
    };
    // The key, not the object, decides identity (callers build a new spec each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, everyMillis]);
}
