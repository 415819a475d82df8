/**
 * A host that goes away under the tab (a service worker replaced, a worker killed) never answers
 * the calls still waiting on its ports. Part of the tab's lazy connection.
 */
import type { BrokerApi } from '../../contract/api.js';
import { unansweredError } from './askAgain.js';
import type { TabErrors } from './brokerChannel.js';

/**
 * Calls made on a host that is gone would wait forever (its ports never answer): the calls still
 * waiting fail with BROKER_UNAVAILABLE when the loss is known, as does any call after it, so their
 * callers can try again.
 */
export function failingWhenLost(api: BrokerApi, lost: Promise<void>, errors: TabErrors): BrokerApi {
  // The calls still waiting, failed all at once on loss. (Racing each call against one `lost`
  // promise would leave a reaction on it per call, held for the connection's life.)
  const waiting = new Set<(error: unknown) => void>();
  let isLost = false;
  const lostError = () =>
    unansweredError(errors, 'The broker stopped before it answered (its worker was replaced or stopped). Try again.');
  void lost.then(() => {
    isLost = true;
    for (const fail of waiting) fail(lostError());
  });
  return new Proxy(api, {
    get(target, name) {
      // Not a thenable: the API object is itself the value of a promise.
      if (name === 'then') return undefined;
      const method = target[name as keyof BrokerApi] as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) =>
        isLost
          ? Promise.reject(lostError())
          : new Promise((resolve, reject) => {
              waiting.add(reject);
              void method(...args)
                .then(resolve, reject)
                .finally(() => waiting.delete(reject));
            });
    },
  });
}
