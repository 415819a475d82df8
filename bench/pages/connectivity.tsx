/**
 * The page side of benchmark 15 (bench/serviceStopped.ts): a banner that shows connectivity with `useConnectivity`, as
 * an app's offline banner does (so a shown tab watches it, and the broker confirms the service while the tab is idle),
 * and the times at which the banner changed, for the harness to read.
 */
import { useLayoutEffect } from 'react';
import { useConnectivity } from '../../client/react/index.js';

/** What the banner showed, from when (epoch ms, at the commit that showed it). */
export interface BannerChange {
  atEpoch: number;
  state: string;
  message: string | null;
}

const changes: BannerChange[] = [];

/** `?connectivity=1`: the page renders the banner. */
export const showConnectivityBanner = new URLSearchParams(location.search).get('connectivity') === '1';

export function ConnectivityBanner() {
  const connectivity = useConnectivity();
  const state = connectivity?.state ?? 'unknown';
  const message = connectivity?.lastError?.message ?? null;
  useLayoutEffect(() => {
    const last = changes.at(-1);
    if (last?.state !== state || last.message !== message) changes.push({ atEpoch: Date.now(), state, message });
  }, [state, message]);
  return (
    <p id="connectivity" role="status">
      {state === 'online' ? 'Online' : `${state}: ${message ?? ''}`}
    </p>
  );
}

/** What the harness calls in the page (`window.__bench.connectivity`). */
export function connectivityKit() {
  return {
    /** Every change the banner showed, in order. */
    changes: (): BannerChange[] => [...changes],
  };
}
