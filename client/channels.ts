import * as Comlink from 'comlink';
import { ClientError } from '../protocol/errors/errors.js';
import type { BrokerApi, BrokerEntry, BrokerMode, TabHello, TabListener } from '../worker/api/types.js';
import { installErrorTransfer } from '../worker/rpc/errors.js';
import type { ConnectOptions } from './options.js';
import { brokerConfigOf } from './options.js';

/** A connection to a broker, whatever hosts it. */
export interface BrokerChannel {
  mode: BrokerMode;
  api: BrokerApi;
  /** Settles if the host goes away under the tab (a service worker replaced by a new deploy, a worker killed). */
  lost?: Promise<void>;
  /** Says the host is gone, when the tab learns it another way (the broker's lifetime lock). */
  markLost?(): void;
  close(): void;
}

export function workerName(options: Pick<ConnectOptions, 'projectId' | 'baseUrl'>): string {
  return `authbroker:${options.projectId}@${options.baseUrl}`;
}

function withTimeout<T>(promise: Promise<T>, millis: number, what: string): Promise<T> {
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
 * The tab serves its listener on a port of its own and gets a port serving its API back. Ports
 * never say that the other end died, so the connection is lost when the host says so (`hostGone`)
 * or when the tab is told (`markLost`).
 */
async function connectOverPort(
  port: MessagePort,
  options: ConnectOptions,
  hello: TabHello,
  listener: TabListener,
  hostGone?: Promise<void>,
): Promise<{ api: BrokerApi; lost: Promise<void>; markLost(): void; close(): void }> {
  installErrorTransfer();
  const entry = Comlink.wrap<BrokerEntry>(port);
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(listener, port1);
  let apiPort: MessagePort;
  try {
    apiPort = await withTimeout(entry.connect(brokerConfigOf(options), hello, Comlink.transfer(port2, [port2])), options.connectTimeoutMillis ?? 8000, 'The broker');
  } catch (error) {
    port1.close();
    throw error;
  }
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  void hostGone?.then(markLost);
  return {
    api: failingWhenLost(Comlink.wrap<BrokerApi>(apiPort) as unknown as BrokerApi, lost),
    lost,
    markLost,
    close() {
      port1.close();
      apiPort.close();
    },
  };
}

export async function openSharedWorker(options: ConnectOptions, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  const name = workerName(options);
  const source = options.sharedWorker;
  if (source === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'No SharedWorker script was configured (options.sharedWorker).');
  const worker = typeof source === 'function' ? source(name) : new SharedWorker(source, { type: 'module', name });
  worker.port.start();
  let connection: Awaited<ReturnType<typeof connectOverPort>>;
  try {
    connection = await connectOverPort(worker.port, options, hello, listener);
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
 * Calls made on a host that is gone would wait forever (its ports never answer): each call is
 * raced against the loss, so its caller gets BROKER_UNAVAILABLE and can try again.
 */
function failingWhenLost(api: BrokerApi, lost: Promise<void>): BrokerApi {
  const gone = lost.then(() => {
    throw new ClientError('BROKER_UNAVAILABLE', 'The broker stopped before it answered (its worker was replaced or stopped). Try again.');
  });
  gone.catch(() => undefined);
  return new Proxy(api, {
    get(target, name) {
      // Not a thenable: the API object is itself the value of a promise.
      if (name === 'then') return undefined;
      const method = target[name as keyof BrokerApi] as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => Promise.race([method(...args), gone]);
    },
  });
}

/** Service workers stop when idle; a message now and then keeps ours alive while a tab is open. */
const SERVICE_WORKER_KEEPALIVE_MILLIS = 10_000;

/** The registration's worker once activated: a newer one being installed wins over the active one. */
function activatedWorker(registration: ServiceWorkerRegistration): Promise<ServiceWorker> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      const next = registration.installing ?? registration.waiting ?? registration.active;
      if (next === null) reject(new ClientError('BROKER_UNAVAILABLE', 'The service worker failed to install.'));
      else if (next.state === 'activated') resolve(next);
      else next.addEventListener('statechange', settle, { once: true });
    };
    settle();
  });
}

/**
 * Dev servers and single-page-app hosts answer a missing file with the app's HTML (200 text/html),
 * which the browser then refuses to register with an error that does not name the file. Checked
 * first, so the error says what is wrong and how to fix it.
 */
async function assertJavaScriptScript(url: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch {
    return; // Unreachable: registering reports it.
  }
  void response.body?.cancel().catch(() => undefined);
  const type = response.headers.get('content-type') ?? '';
  const fix =
    "With Vite, add the authbroker() plugin from 'authbroker/vite' to vite.config.ts; otherwise copy node_modules/authbroker/dist/authbroker-service-worker.js to your public folder.";
  if (!response.ok) throw new ClientError('BROKER_UNAVAILABLE', `The service worker script ${url} answered HTTP ${response.status}. ${fix}`);
  if (!/\b(java|ecma)script\b/i.test(type)) {
    throw new ClientError('BROKER_UNAVAILABLE', `The service worker script ${url} is not JavaScript (content-type: ${type || 'none'}); a server that answers missing files with the app's page does this. ${fix}`);
  }
}

export async function openServiceWorker(options: ConnectOptions, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  if (options.serviceWorker === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'No service worker script was configured (options.serviceWorker).');
  await assertJavaScriptScript(new URL(options.serviceWorker, location.href).toString());
  // Loaded only on this fallback path, so SharedWorker browsers never download it.
  const { Workbox } = await import('workbox-window');
  const workbox = new Workbox(String(options.serviceWorker), { type: 'module' });
  const registration = await workbox.register();
  if (registration === undefined) throw new ClientError('BROKER_UNAVAILABLE', 'The service worker could not be registered.');
  // Not `workbox.active`: it only settles for a worker this page installed or is controlled by, and a
  // page loaded while another tab's worker was activating (or hard-reloaded) is neither.
  const sw = await withTimeout(activatedWorker(registration), options.connectTimeoutMillis ?? 8000, 'The service worker');
  // A new version that activates makes this one redundant: the browser stops it, and its ports
  // go silent rather than failing.
  const replaced = new Promise<void>((resolve) => {
    const check = () => {
      if (sw.state === 'redundant') resolve();
      else sw.addEventListener('statechange', check, { once: true });
    };
    check();
  });
  const { port1, port2 } = new MessageChannel();
  sw.postMessage({ type: 'authbroker:connect' }, [port2]);
  port1.start();
  let connection: Awaited<ReturnType<typeof connectOverPort>>;
  try {
    connection = await connectOverPort(port1, options, hello, listener, replaced);
  } catch (error) {
    port1.close();
    throw error;
  }
  const keepAlive = setInterval(() => sw.postMessage({ type: 'authbroker:ping' }), SERVICE_WORKER_KEEPALIVE_MILLIS);
  return {
    mode: 'service-worker',
    api: connection.api,
    lost: connection.lost,
    markLost: connection.markLost,
    close: () => {
      clearInterval(keepAlive);
      connection.close();
      port1.close();
    },
  };
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
