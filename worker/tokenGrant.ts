/**
 * The refresh-token grant as the broker calls it: oauth4webapi's module loads on the first renewal
 * (the host says from where), so a broker whose tokens are fresh never evaluates it. A load that
 * fails fails that renewal with BROKER_UNAVAILABLE and keeps the session, as any failed renewal
 * that is not the service's refusal does; the next renewal loads again.
 */
import type { RefreshAccessToken } from '../protocol/tokens.js';
import type { LoadTokenGrant } from './host.js';
import { loadOnDemand } from './lazyLoad.js';

export function lazyRefreshAccessToken(load: LoadTokenGrant): RefreshAccessToken {
  const grants = loadOnDemand(load, 'token renewal');
  return async (options, refreshToken) => (await grants()).refreshAccessToken(options, refreshToken);
}
