/**
 * The refresh-token grant as the broker calls it: oauth4webapi's module loads on the first renewal
 * (the host says from where), not at the broker's start, so a tab's first answers never wait for
 * it. A broker with a session to renew fetches it a little after its start (or the sign-in), in the
 * background: a long-lived worker whose chunks a deploy removes later must still be able to renew.
 * A load that fails fails that renewal with BROKER_UNAVAILABLE and keeps the session, as any failed
 * renewal that is not the service's refusal does; the next renewal loads again.
 */
import type { Clock } from '../../protocol/clock.js';
import type { RefreshAccessToken } from '../../protocol/tokens.js';
import type { LoadTokenGrant } from './parts.js';
import { loadOnDemand } from './loadOnDemand.js';

/** How long after the broker's start, or a sign-in, a session's grants are fetched in the background. */
export const GRANT_PREFETCH_MILLIS = 2000;

export interface LazyTokenGrant {
  refreshAccessToken: RefreshAccessToken;
  /**
   * A session will need renewing: load the grants after GRANT_PREFETCH_MILLIS (once; a failure is left for the renewal
   * to report).
   */
  prefetchSoon(): void;
  close(): void;
}

export function lazyTokenGrant(load: LoadTokenGrant, clock: Clock): LazyTokenGrant {
  const grants = loadOnDemand(load, 'token renewal');
  let timer: unknown = null;
  let prefetched = false;
  return {
    refreshAccessToken: async (options, refreshToken) => (await grants()).refreshAccessToken(options, refreshToken),
    prefetchSoon() {
      if (prefetched || timer !== null) return;
      timer = clock.setTimeout(() => {
        timer = null;
        prefetched = true;
        grants().catch(() => (prefetched = false));
      }, GRANT_PREFETCH_MILLIS);
    },
    close() {
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
    },
  };
}
