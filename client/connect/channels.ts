/**
 * Reaching a broker: the hosts in order, the attempts within the connect timeout, the `connect`
 * request. Part of the tab's lazy connection (loaded by `connection.ts` after the first render):
 * what it needs from the main chunk (the error classes, the broker's config and name) comes in a
 * `BrokerTarget`, never from an import of a module the main chunk loads.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import type { BrokerMode } from '../../contract/state.js';
import { SERVICE_WORKER_CONNECT } from '../../contract/wire.js';
import { unansweredError } from './askAgain.js';
import { rejectAfter } from './lifetime.js';
import { connectOverPort as connectEntry, isRefusal, isStandby, refusal } from './rpc.js';
import type {
  AttemptedConnection,
  BrokerChannel,
  BrokerTarget,
  TabErrors,
  WatchedConnection,
} from './brokerChannel.js';

export type { AttemptedConnection, BrokerChannel, BrokerTarget, WatchedConnection };

/** The part of the options the broker itself receives (the base URL as the main chunk normalized it). */
export function brokerConfigOf({ options, baseUrl }: Pick<BrokerTarget, 'options' | 'baseUrl'>) {
  return {
    baseUrl,
    projectId: options.projectId,
    publishableClientKey: options.publishableClientKey,
    ...(options.internalPublishableClientKey === undefined
      ? {}
      : { internalPublishableClientKey: options.internalPublishableClientKey }),
    ...(options.tokenMarginMillis === undefined ? {} : { tokenMarginMillis: options.tokenMarginMillis }),
    ...(options.extraRequestHeaders === undefined ? {} : { extraRequestHeaders: options.extraRequestHeaders }),
    ...(options.refetchOnReturn === undefined ? {} : { refetchOnReturn: options.refetchOnReturn }),
    ...(options.tokenStore === undefined ? {} : { tokenStore: options.tokenStore }),
  };
}

export function withTimeout<T>(promise: Promise<T>, millis: number, what: string, errors: TabErrors): Promise<T> {
  return rejectAfter(
    promise,
    millis,
    () => new errors.ClientError('BROKER_UNAVAILABLE', `${what} did not answer within ${millis} ms.`),
  );
}

/** How long the first attempt to reach a broker waits for its answer (see `attemptDeadlines`). */
export const FIRST_ANSWER_MILLIS = 1000;

/**
 * How long each attempt to reach a broker waits, within the whole connect timeout: the first
 * FIRST_ANSWER_MILLIS, each next one twice as long, and the last whatever is left (never a sliver).
 * A warm broker answers in milliseconds and a cold one in a few hundred, so an attempt that hears
 * nothing for a second went to a worker that will not answer it (an instance being torn down as
 * the page reloaded), and a new attempt reaches the next instance.
 */
export function attemptDeadlines(totalMillis: number, firstMillis = FIRST_ANSWER_MILLIS): number[] {
  const deadlines: number[] = [];
  let left = totalMillis;
  let next = firstMillis;
  while (left > 0) {
    const wait = left - next < next ? left : next;
    deadlines.push(wait);
    left -= wait;
    next = wait * 2;
  }
  return deadlines;
}

/** One way into a broker: a fresh entry port for each attempt. */
export interface BrokerEntryAttempt {
  port: MessagePort;
  /** Rejects when the host cannot start at all (its script does not load): trying again would not help. */
  failed?: Promise<never>;
  close(): void;
}

/**
 * Connects through a fresh entry from `openEntry` per attempt (numbered from 0). The first attempt
 * starts at once; each later one starts when the ones before it have been silent for their deadline
 * (`attemptDeadlines`), without giving them up: every attempt may answer until the whole connect
 * timeout, and the first to answer wins (the others are closed, and one that answers later is told
 * goodbye). So a broker that is only slow to start (a cold worker on a busy device) still gets the
 * tab, as do the tabs that ask it after, rather than a second instance that would split them; and
 * one that will never answer (an instance being torn down, or lingering) costs a second, not the
 * whole timeout. An instance that answers `STANDBY` (another instance serves this config, whose
 * tokens are kept in memory) has the next attempt start at once, the others still waiting; when no
 * attempt is left, that is the answer (a refusal: a weaker host would split the tabs). Any other
 * failure (a refusal, a script that does not load) ends the attempts at once.
 */
export function connectWithRetries(
  openEntry: (attempt: number) => BrokerEntryAttempt,
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
  hostGone?: Promise<void>,
): Promise<AttemptedConnection> {
  const total = target.options.connectTimeoutMillis ?? 8000;
  const deadlines = attemptDeadlines(total);
  const { ClientError } = target.errors;
  const silence = new ClientError(
    'BROKER_UNAVAILABLE',
    deadlines.length === 1
      ? `The broker did not answer within ${total} ms.`
      : `The broker did not answer within ${total} ms (${deadlines.length} attempts).`,
  );
  return new Promise((resolve, reject) => {
    const entries: BrokerEntryAttempt[] = [];
    let nextAttempt: ReturnType<typeof setTimeout> | undefined;
    const startedAtMillis = performance.now();
    let settled = false;
    let started = 0;
    let unanswered = deadlines.length;
    let standby = false;
    const settle = () => {
      settled = true;
      clearTimeout(nextAttempt);
    };
    const fail = (error: unknown) => {
      settle();
      for (const other of entries) other.close();
      reject(error);
    };
    const attempt = () => {
      if (settled || started === deadlines.length) return;
      const index = started++;
      // The next one when this one has been silent for its deadline (sooner if it answers STANDBY).
      clearTimeout(nextAttempt);
      if (started < deadlines.length) nextAttempt = setTimeout(attempt, deadlines[index]);
      let entry: BrokerEntryAttempt;
      try {
        entry = openEntry(index);
      } catch (error) {
        // The host cannot even be asked (a SharedWorker blocked by the page's policy).
        return fail(error);
      }
      entries.push(entry);
      const left = total - (performance.now() - startedAtMillis);
      const connecting = connectOverPort(entry.port, target, hello, listener, hostGone, (promise) =>
        rejectAfter(promise, left, () => silence),
      );
      (entry.failed ? Promise.race([connecting, entry.failed]) : connecting).then(
        (connection) => {
          if (settled) {
            // Another attempt won meanwhile: this broker must not keep a tab nobody uses.
            void connection.api.goodbye().catch(() => undefined);
            connection.close();
            entry.close();
            return;
          }
          settle();
          for (const other of entries) if (other !== entry) other.close();
          resolve({
            ...connection,
            attempts: index + 1,
            close: () => {
              connection.close();
              entry.close();
            },
          });
        },
        (error: unknown) => {
          entry.close();
          unanswered -= 1;
          if (settled) return;
          if (isStandby(error)) {
            standby = true;
            attempt();
          } else if (error !== silence) return fail(error);
          if (unanswered === 0) {
            fail(
              standby
                ? refusal(
                    new ClientError(
                      'BROKER_UNAVAILABLE',
                      `Another instance of the broker serves this project (its tokens are kept in memory) and did not answer this tab within ${total} ms; no other host is tried, which would split the tabs.`,
                    ),
                  )
                : silence,
            );
          }
        },
      );
    };
    attempt();
  });
}

/**
 * Ports never say that the other end died, so the connection is lost when the host says so
 * (`hostGone`) or when the tab is told (`markLost`).
 */
async function connectOverPort(
  port: MessagePort,
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
  hostGone: Promise<void> | undefined,
  timeout: <T>(promise: Promise<T>) => Promise<T>,
): Promise<WatchedConnection> {
  const connection = await connectEntry(
    port,
    brokerConfigOf(target),
    hello,
    (batch) => listener.deliver(batch),
    timeout,
    target.errors,
  );
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  void hostGone?.then(markLost);
  return { api: failingWhenLost(connection.api, lost, target.errors), lost, markLost, close: () => connection.close() };
}

/**
 * The name each attempt gives its SharedWorker: the broker's name first, then a name of its own per
 * retry. A named instance that did not answer once will not answer a second time: it is being torn
 * down, or it lingers after its last tab closed (Chromium keeps one so while DevTools are attached
 * to it), and the browser hands that same instance to anyone who asks for its name. A new name
 * starts a new instance, whose broker shares the session with any other through IndexedDB, Web
 * Locks and the bus, as two deploys' brokers do; tabs that retry meet in the same one.
 */
export function sharedWorkerName(brokerName: string, attempt: number): string {
  return attempt === 0 ? brokerName : `${brokerName}#${attempt + 1}`;
}

export async function openSharedWorker(
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
): Promise<BrokerChannel> {
  const { name, errors } = target;
  const source = target.options.sharedWorker;
  if (source === undefined)
    throw new errors.ClientError('BROKER_UNAVAILABLE', 'No SharedWorker script was configured (options.sharedWorker).');
  if (typeof SharedWorker === 'undefined')
    throw new errors.ClientError(
      'BROKER_UNAVAILABLE',
      'This browser has no SharedWorker (Chrome on Android before 148, Android WebViews, a worker or an extension’s background): use the service-worker host or mode auto.',
    );
  const openEntry = (attempt: number): BrokerEntryAttempt => {
    const attemptName = sharedWorkerName(name, attempt);
    const early = attempt === 0 ? target.early : undefined;
    const worker =
      early?.worker ??
      (typeof source === 'function'
        ? source(attemptName)
        : new SharedWorker(source, { type: 'module', name: attemptName }));
    worker.port.start();
    // A script that does not load (missing, served as the app's HTML page, a syntax error) fires
    // `error` on the worker: fail now, saying why, rather than after the connect timeout.
    const failed = new Promise<never>((_, reject) => {
      const fail = () =>
        void import('./scriptProblem.js')
          .then(({ scriptProblem }) => scriptProblem(typeof source === 'function' ? null : source))
          .then((why) =>
            reject(
              new errors.ClientError(
                'BROKER_UNAVAILABLE',
                `The SharedWorker did not start: its ${why ?? 'script loaded but failed to run (check the browser console).'}`,
              ),
            ),
          );
      if (early?.failed) fail();
      else worker.addEventListener('error', fail, { once: true });
    });
    failed.catch(() => undefined);
    return { port: worker.port, failed, close: () => worker.port.close() };
  };
  const connection = await connectWithRetries(openEntry, target, hello, listener);
  return {
    mode: 'shared-worker',
    attempts: connection.attempts,
    api: connection.api,
    lost: connection.lost,
    markLost: connection.markLost,
    close: connection.close,
  };
}

/**
 * Calls made on a host that is gone would wait forever (its ports never answer): the calls still
 * waiting fail with BROKER_UNAVAILABLE when the loss is known, as does any call after it, so their
 * callers can try again.
 */
function failingWhenLost(api: BrokerApi, lost: Promise<void>, errors: TabErrors): BrokerApi {
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

/** The service-worker host, for browsers without SharedWorker: loaded only on that fallback path. */
export async function openServiceWorker(
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
): Promise<BrokerChannel> {
  const { options, errors } = target;
  return (await import('./hosts/serviceWorkerRegistration.js')).openServiceWorker(options, {
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

export async function openInProcess(
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
): Promise<BrokerChannel> {
  // The whole broker, loaded only when this page must host it itself: a bundle of its own, whose
  // errors come back as the tab's classes (see worker/hosts/inPage.ts).
  const { openInPageBroker } = await import('../../worker/hosts/inPage.js');
  try {
    return {
      mode: 'in-process',
      ...(await openInPageBroker(
        brokerConfigOf(target),
        hello,
        listener,
        target.errors.deserializeError,
        target.modes.length > 1,
      )),
    };
  } catch (error) {
    // The broker refused this tab's config (an extra header the protocol sets): the answer, as from a worker.
    throw (error as { code?: unknown }).code === 'INVALID_ARGUMENT' ? refusal(error as Error) : error;
  }
}

/** An extension's background is reached through `authbroker/extension`'s own connection, never chosen here. */
async function openExtension(target: BrokerTarget): Promise<BrokerChannel> {
  throw new target.errors.ClientError(
    'BROKER_UNAVAILABLE',
    "The extension's broker is reached with createExtensionClient from 'authbroker/extension'.",
  );
}

export const openers: Record<BrokerMode, typeof openSharedWorker> = {
  'shared-worker': openSharedWorker,
  'service-worker': openServiceWorker,
  'in-process': openInProcess,
  extension: openExtension,
};

/** The User Timing mark a tab leaves when it reaches its broker (its `detail`: `ConnectedMark`). */
export const CONNECTED_MARK = 'authbroker:connected';

/** What the connected mark says: the host reached, the attempts it took, the hosts that failed first. */
export interface ConnectedMark {
  mode: BrokerMode;
  attempts: number;
  fallbacks: number;
}

/**
 * Reaches a broker in the first host that starts, best first (`candidateModes`). A host that did
 * not start is a warning the broker shows in its status (and the console, once). A broker that
 * answered and refused this tab (`isRefusal`: options that differ from the running broker's, a
 * worker serving as many configs as it may) ends it: a weaker host would hide the refusal, split
 * the tabs, and a page that squats the worker could send the app to the in-page host. A forced host is
 * the only one tried. Leaves the `authbroker:connected` mark (`performance.getEntriesByName`), whose
 * start time is how long this page took to reach its broker: what devtools and the benchmarks read.
 */
export async function openBroker(target: BrokerTarget, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  const { options } = target;
  const failures: string[] = [];
  const forced = options.mode !== undefined && options.mode !== 'auto';
  for (const mode of target.modes) {
    const fallback =
      failures.length === 0
        ? {}
        : {
            warnings: [`The broker runs in ${mode} mode because a better host did not start: ${failures.join('; ')}.`],
          };
    let opened: BrokerChannel;
    try {
      opened = await openers[mode](target, { ...hello, ...fallback }, listener);
    } catch (error) {
      if (isRefusal(error)) throw error;
      failures.push(`${mode}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (fallback.warnings) console.warn(`authbroker: ${fallback.warnings[0]}`);
    markConnected({ mode, attempts: opened.attempts ?? 1, fallbacks: failures.length });
    return opened;
  }
  throw new target.errors.ClientError(
    'BROKER_UNAVAILABLE',
    forced
      ? `The broker could not start in the ${options.mode} mode you asked for (${failures.join('; ')}).`
      : `No broker could be started (${failures.join('; ')}).`,
  );
}

function markConnected(detail: ConnectedMark): void {
  try {
    globalThis.performance?.mark?.(CONNECTED_MARK, { detail });
  } catch {
    // A page without User Timing (or one that refuses `detail`) simply has no mark.
  }
}
