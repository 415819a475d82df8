import type { BrokerApi, BrokerEntry, TabHello, TabListener } from '../../contract/api.js';
import { checkPlainValues } from '../../contract/plainData.js';
import { tooManyArguments } from '../../contract/schema.js';
import { DELIVER, PING, PONG, STANDBY, type DeliverMessage, type PingMessage } from '../../contract/wire.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import { threadScheduler } from './fairness.js';
import { serveMethods, withTransfer, type ServedPort } from './server.js';

/** What the entry needs of a broker: a tab's connection, after checking the config it asked for. */
export interface ConnectableBroker {
  connectWithConfig(config: unknown, hello: TabHello, listener: TabListener, onRelease?: () => void): BrokerApi;
}

/**
 * How many tab connections one entry port may make in its life. A tab makes one (a reconnection opens a new
 * SharedWorker object, or sends the service worker a new port); the second is a margin. More is a page multiplying the
 * broker's ports (issue 39, item 2): each API port is a lane of the broker's thread, and the lanes of one entry port
 * share one budget (worker/rpc/fairness.ts).
 */
export const MAX_CONNECTIONS_PER_ENTRY = 2;

/**
 * Serves one tab's entry port (a SharedWorker's connect port, or a port a service worker was
 * sent): its only method is `connect(config, hello, listenerPort)`, answered with a port serving
 * the tab's own API. The broker is created by the first tab that connects. When the tab is released
 * (gone, or said goodbye) its ports are closed here: a dead tab never answers anything, so without
 * this each one would stay in memory for the worker's lifetime. The entry port and the API ports it
 * opened share one budget of the broker's thread; it opens at most MAX_CONNECTIONS_PER_ENTRY.
 */
export function exposeBrokerEntry(
  getBroker: (config: unknown) => Promise<ConnectableBroker | typeof STANDBY>,
  endpoint: ServedPort,
): void {
  const scheduler = threadScheduler();
  const group = scheduler.group();
  let connections = 0;
  const entry: BrokerEntry = {
    async connect(config, hello, listenerPort) {
      if (!(listenerPort instanceof MessagePort))
        throw new InvalidArgumentError('listenerPort', 'connect needs a MessagePort for updates.');
      if (++connections > MAX_CONNECTIONS_PER_ENTRY) {
        listenerPort.close();
        throw new ClientError(
          'BROKER_UNAVAILABLE',
          `This entry port has connected ${MAX_CONNECTIONS_PER_ENTRY} times, the most a tab needs: open a new one to connect again.`,
        );
      }
      const broker = await getBroker(config);
      if (broker === STANDBY) return STANDBY;
      const listener = askingListener(listenerPort);
      const { port1, port2 } = new MessageChannel();
      let stopServing = () => undefined as void;
      const release = () => {
        stopServing();
        port1.close();
        listenerPort.close();
        endpoint.close?.();
      };
      let api: BrokerApi;
      try {
        api = broker.connectWithConfig(config, hello, listener, release);
      } catch (error) {
        port1.close();
        listenerPort.close();
        throw error;
      }
      stopServing = serveMethods(port1, api as unknown as Record<string, (...args: unknown[]) => unknown>, {
        onRelease: () => void api.goodbye().catch(() => undefined),
        scheduler,
        group,
      });
      return withTransfer(port2, [port2]);
    },
  };
  serveMethods(
    endpoint,
    {
      connect: (...args: unknown[]) => {
        // The config and hello are a page's data like any call's: bounded before anything reads them.
        if (args.length > 3) throw tooManyArguments('connect', 3, args.length);
        checkPlainValues('connect', args.slice(0, 2), ['config', 'hello']);
        return entry.connect(args[0], args[1] as TabHello, args[2] as MessagePort);
      },
    },
    { scheduler, group },
  );
}

/**
 * Delivers on a tab's listener port, and asks the tab over it whether it is still there: the
 * answer comes back on that port, which only the tab holds. Where ports have a `close` event (Node;
 * not Chromium 156), a closed port answers at once.
 */
function askingListener(port: MessagePort): TabListener & { ping(): Promise<boolean> } {
  const waiting = new Map<number, (alive: boolean) => void>();
  let closed = false;
  let lastId = 0;
  port.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as Partial<PingMessage> | null;
    if (typeof message !== 'object' || message === null || message.type !== PONG || typeof message.id !== 'number')
      return;
    waiting.get(message.id)?.(true);
    waiting.delete(message.id);
  });
  port.addEventListener('close', () => {
    closed = true;
    for (const answer of waiting.values()) answer(false);
    waiting.clear();
  });
  port.start();
  return {
    deliver: (batch) => port.postMessage({ type: DELIVER, batch } satisfies DeliverMessage),
    ping: () =>
      new Promise((resolve) => {
        if (closed) return resolve(false);
        const id = ++lastId;
        waiting.set(id, resolve);
        port.postMessage({ type: PING, id } satisfies PingMessage);
      }),
  };
}
