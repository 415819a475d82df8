/**
 * The SharedWorker host, the first choice: one broker for every tab of the origin. Part of the
 * tab's lazy connection; the script, the broker's name and the worker the main chunk may have
 * started already come in the `BrokerTarget`.
 */
import type { TabHello, TabListener } from '../../../contract/api.js';
import { attemptWorkerName } from '../../../contract/wire.js';
import { connectWithRetries, type BrokerEntryAttempt } from '../attempts.js';
import type { BrokerChannel, BrokerTarget } from '../brokerChannel.js';

/**
 * The name each attempt gives its SharedWorker: the broker's name first, then a name of its own per
 * retry. A named instance that did not answer once will not answer a second time: it is being torn
 * down, or it lingers after its last tab closed (Chromium keeps one so while DevTools are attached
 * to it), and the browser hands that same instance to anyone who asks for its name. A new name
 * starts a new instance, whose broker shares the session with any other through IndexedDB, Web
 * Locks and the bus, as two deploys' brokers do; tabs that retry meet in the same one.
 */
export function sharedWorkerName(brokerName: string, attempt: number): string {
  return attemptWorkerName(brokerName, attempt);
}

/** Starts (or joins) the broker's SharedWorker and connects to it, a fresh name per attempt (`sharedWorkerName`). */
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
        void import('../scriptProblem.js')
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
