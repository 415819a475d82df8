import type { BrokerApi, TabHello, TabListener } from '../contract/api.js';
import type { BrokerMode } from '../contract/state.js';
import { SERVICE_WORKER_CONNECT } from '../contract/wire.js';
import { normalizeBaseUrl } from '../protocol/credentials.js';
import { ClientError } from '../protocol/errors/errors.js';
import type { ConnectOptions } from './options.js';
import { brokerConfigOf } from './options.js';
import { connectOverPort as connectEntry } from './rpc.js';
import type { BrokerChannel, WatchedConnection } from './brokerChannel.js';

export type { BrokerChannel, WatchedConnection };

export function workerName(options: Pick<ConnectOptions, 'projectId' | 'baseUrl'>): string {
  return `authbroker:${options.projectId}@${normalizeBaseUrl(options.baseUrl)}`;
}

export function withTimeout<T>(promise: Promise<T>, millis: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new ClientError('BROKER_UNAVAILABLE', `${what} did not answer within ${millis} ms.`)), millis);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Ports never say that the other end died, so the connection is lost when the host says so
 * (`hostGone`) or when the tab is told (`markLost`).
 */
export async function connectOverPort(port: MessagePort, options: ConnectOptions, hello: TabHello, listener: TabListener, hostGone?: Promise<void>): Promise<WatchedConnection> {
  const connection = await connectEntry(port, brokerConfigOf(options), hello, (batch) => listener.deliver(batch), (promise) =>
    withTimeout(promise, options.connectTimeoutMillis ?? 8000, 'The broker'),
  );
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  void hostGone?.then(markLost);
  return { api: failingWhenLost(connection.api, lost), lost, markLost, close: () => connection.close() };
}

export async function openSharedWorker(options: ConnectOptions, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  const name = workerName(options);
  const source = options.sharedWorker;
  if (source === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'No SharedWorker script was configured (options.sharedWorker).');
  const worker = typeof source === 'function' ? source(name) : new SharedWorker(source, { type: 'module', name });
  worker.port.start();
  // A script that does not load (missing, served as the app's HTML page, a syntax error) fires
  // `error` on the worker: fail now, saying why, rather than after the connect timeout.
  const failed = new Promise<never>((_, reject) => {
    worker.addEventListener(
      'error',
      () =>
        void import('./scriptProblem.js')
          .then(({ scriptProblem }) => scriptProblem(typeof source === 'function' ? null : source))
            .then((why) => reject(new ClientError('BROKER_UNAVAILABLE', `The SharedWorker did not start: its ${why ?? 'script loaded but failed to run (check the browser console).'}`))),
      { once: true },
    );
  });
  failed.catch(() => undefined);
  let connection: WatchedConnection;
  try {
    connection = await Promise.race([connectOverPort(worker.port, options, hello, listener), failed]);
  } catch (error) {
    // We fall back to another host: a worker that answers late must not keep a tab nobody uses.
    worker.port.close();
    throw error;
  }
  return {
    mode: 'shared-worker',
    api: connection.api,
    lost: connection.lost,
    markLost: connection.markLost,
    close: () => {
      connection.close();
      worker.port.close();
    },
  };
}

/**
 * Calls made on a host that is gone would wait forever (its ports never answer): the calls still
 * waiting fail with BROKER_UNAVAILABLE when the loss is known, as does any call after it, so their
 * callers can try again.
 */
function failingWhenLost(api: BrokerApi, lost: Promise<void>): BrokerApi {
  // The calls still waiting, failed all at once on loss. (Racing each call against one `lost`
  // promise would leave a reaction on it per call, held for the connection's life.)
  const waiting = new Set<(error: unknown) => void>();
  let isLost = false;
  const lostError = () => new ClientError('BROKER_UNAVAILABLE', 'The broker stopped before it answered (its worker was replaced or stopped). Try again.');
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

/** The service-worker host, for browsers without SharedWorker: loaded only on that fallback path. */
export async function openServiceWorker(options: ConnectOptions, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  return (await import('./serviceWorkerHost.js')).openServiceWorker(options, {
    // A service worker has no port of its own: it is sent one to serve this tab's entry on.
    async connect(worker, hostGone) {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ type: SERVICE_WORKER_CONNECT }, [port2]);
      port1.start();
      try {
        const connection = await connectOverPort(port1, options, hello, listener, hostGone);
        return {
          ...connection,
          close: () => {
            connection.close();
            port1.close();
          },
        };
      } catch (error) {
        port1.close();
        throw error;
      }
    },
    withinTimeout: (promise, what) => withTimeout(promise, options.connectTimeoutMillis ?? 8000, what),
    unavailable: (message) => new ClientError('BROKER_UNAVAILABLE', message),
  });
}

export async function openInProcess(options: ConnectOptions, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  // The whole broker, loaded only when this page must host it itself.
  const { createInProcessBroker } = await import('../worker/hosts/inProcess.js');
  const broker = await createInProcessBroker(brokerConfigOf(options));
  return { mode: 'in-process', api: broker.connect(hello, listener), close: () => broker.close() };
}

export const openers: Record<BrokerMode, typeof openSharedWorker> = {
  'shared-worker': openSharedWorker,
  'service-worker': openServiceWorker,
  'in-process': openInProcess,
};
