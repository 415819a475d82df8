import * as Comlink from 'comlink';
import type { BrokerEntry, TabHello, TabListener } from '../api/types.js';
import type { Broker } from '../broker.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { installErrorTransfer } from './errors.js';

/**
 * Serves one tab's port: the tab first calls `connect(config, hello, listenerPort)` and gets a port
 * serving its own API back. The broker is created by the first tab that connects. When the tab is
 * released (gone, or said goodbye) its ports are closed here: a dead tab never answers Comlink's
 * own release handshake, so without this each one would stay in memory for the worker's lifetime.
 */
export function exposeBrokerEntry(getBroker: (config: unknown) => Promise<Broker>, endpoint: Comlink.Endpoint): void {
  installErrorTransfer();
  const entry: BrokerEntry = {
    async connect(config: unknown, hello: TabHello, listenerPort: MessagePort): Promise<MessagePort> {
      if (!(listenerPort instanceof MessagePort)) throw new InvalidArgumentError('listenerPort', 'connect needs a MessagePort on which the tab serves its listener.');
      const broker = await getBroker(config);
      const listener = Comlink.wrap<TabListener>(listenerPort) as unknown as TabListener;
      const { port1, port2 } = new MessageChannel();
      let api;
      try {
        api = broker.connectWithConfig(config, hello, listener, () => {
          port1.close();
          listenerPort.close();
          (endpoint as Partial<MessagePort>).close?.();
        });
      } catch (error) {
        port1.close();
        listenerPort.close();
        throw error;
      }
      Comlink.expose(api, port1);
      return Comlink.transfer(port2, [port2]);
    },
  };
  Comlink.expose(entry, endpoint);
}

/** One broker per project per host, created on first use; a failed start is retried by the next tab. */
export function brokerRegistry(create: (config: unknown) => Promise<Broker>): (config: unknown) => Promise<Broker> {
  const brokers = new Map<string, Promise<Broker>>();
  return (config) => {
    const c = (config ?? {}) as { baseUrl?: unknown; projectId?: unknown };
    const key = `${String(c.baseUrl)}|${String(c.projectId)}`;
    let broker = brokers.get(key);
    if (!broker) {
      broker = create(config);
      brokers.set(key, broker);
      broker.catch(() => brokers.delete(key));
    }
    return broker;
  };
}
