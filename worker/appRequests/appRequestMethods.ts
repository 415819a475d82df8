/**
 * The broker's methods for the app's own requests, among the service methods (loaded with them, worker/api/methods.ts):
 * the token for `client.fetch`, a queueable call sent by the broker, and forgetting a refused or dropped change.
 */
import type { BrokerApi } from '../../contract/api.js';
import type { Clock } from '../../protocol/clock.js';
import { appTokensOf } from './appTokens.js';
import type { AppRequestsContext } from './appRequestsContext.js';
import { tokenWithheld } from './tokenGuard.js';

export function appRequestMethods({
  appRequests,
  clock,
}: {
  appRequests: AppRequestsContext;
  clock: Clock;
}): Pick<BrokerApi, 'appToken' | 'sendAppRequest' | 'dismissPendingChange'> {
  return {
    async appToken(refused) {
      if (appRequests.config.attachInServiceWorker) throw tokenWithheld();
      return appTokensOf(appRequests.session, clock, appRequests.marginMillis).token(refused);
    },
    sendAppRequest: (request) => appRequests.writes.sendAppRequest(request),
    dismissPendingChange: (id) => appRequests.writes.dismiss(id),
  };
}
