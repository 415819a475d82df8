/**
 * With `appRequests.attachInServiceWorker`, no page ever receives the user's access token: every way a tab could ask
 * for one answers TOKEN_WITHHELD, whichever code calls it (the app's, or a script injected into the page). Only the
 * host that attaches tokens itself (the service worker with app requests) may serve such a config: on any other the
 * pages' requests would go without one.
 */
import type { BrokerApi } from '../../contract/api.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { ResolvedAppRequests } from './appRequestOptions.js';

/** What `getAccessToken`, `getAuthHeaders` and `appToken` answer when the service worker attaches tokens itself. */
export function tokenWithheld(): ClientError {
  return new ClientError(
    'TOKEN_WITHHELD',
    'The service worker attaches the access token to your own requests (appRequests.attachInServiceWorker): no page is given one. Call your API with fetch.',
  );
}

/**
 * Refuses a config asking the service worker to attach tokens on a host that does not (read before the config is
 * resolved, so that nothing of the broker starts).
 */
export function checkAttachingHost(configInput: unknown, attachesTokens: boolean | undefined): void {
  const asked = (configInput as { appRequests?: { attachInServiceWorker?: unknown } } | null)?.appRequests;
  if (asked?.attachInServiceWorker === true && attachesTokens !== true)
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      "appRequests.attachInServiceWorker needs mode: 'service-worker' with the service-worker script with app requests (authbroker/worker/service-app-entry).",
    );
}

/** `connect`, its tabs' APIs giving no access token when the service worker attaches them. */
export function withholdTokens<A extends unknown[]>(
  config: ResolvedAppRequests,
  connect: (...args: A) => BrokerApi,
): (...args: A) => BrokerApi {
  if (!config.attachInServiceWorker) return connect;
  const refuse = () => Promise.reject(tokenWithheld());
  return (...args) => ({ ...connect(...args), getAccessToken: refuse, getAuthHeaders: refuse, appToken: refuse });
}
