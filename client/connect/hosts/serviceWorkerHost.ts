/**
 * The service-worker host, for browsers without SharedWorker: part of the tab's lazy connection,
 * which connects to the broker in the worker; registering and activating the worker
 * (`serviceWorkerRegistration.ts`, with workbox-window) is a chunk of its own, loaded only on this
 * fallback path.
 */
import type { TabHello, TabListener } from '../../../contract/api.js';
import { SERVICE_WORKER_CONNECT } from '../../../contract/wire.js';
import { connectWithRetries, type BrokerEntryAttempt } from '../attempts.js';
import type { BrokerChannel, BrokerTarget, TabErrors } from '../brokerChannel.js';
import { rejectAfter } from '../lifetime.js';

/** `promise`, or BROKER_UNAVAILABLE naming `what` when it has not settled within `millis`. */
function withTimeout<T>(promise: Promise<T>, millis: number, what: string, errors: TabErrors): Promise<T> {
  return rejectAfter(
    promise,
    millis,
    () => new errors.ClientError('BROKER_UNAVAILABLE', `${what} did not answer within ${millis} ms.`),
  );
}

/** Registers the service worker (its module loaded now) and connects to the broker in it, a fresh port per attempt. */
export async function openServiceWorker(
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
): Promise<BrokerChannel> {
  const { options, errors } = target;
  return (await import('./serviceWorkerRegistration.js')).startServiceWorker(options, {
    async connect(worker, hostGone) {
      // A service worker has no port of its own: each attempt sends it one to serve this tab's entry on.
      const openEntry = (): BrokerEntryAttempt => {
        const { port1, port2 } = new MessageChannel();
        worker.postMessage({ type: SERVICE_WORKER_CONNECT }, [port2]);
        port1.start();
        return { port: port1, close: () => port1.close() };
      };
      return connectWithRetries(openEntry, target, hello, listener, hostGone);
    },
    withinTimeout: (promise, what) => withTimeout(promise, options.connectTimeoutMillis ?? 8000, what, errors),
    unavailable: (message) => new errors.ClientError('BROKER_UNAVAILABLE', message),
  });
}
