import * as Comlink from 'comlink';
import type { BrokerApi, BrokerEntry, TabHello, TabListener } from '../api/types.js';
import type { Broker } from '../broker.js';
import { installErrorTransfer } from './errors.js';

/**
 * Serves one tab's port: the tab first calls `connect(config, hello, listener)` and gets its own
 * API object (a Comlink proxy) back. The broker is created by the first tab that connects.
 */
export function exposeBrokerEntry(getBroker: (config: unknown) => Promise<Broker>, endpoint: Comlink.Endpoint): void {
  installErrorTransfer();
  const entry: BrokerEntry = {
    async connect(config: unknown, hello: TabHello, listener: TabListener): Promise<BrokerApi> {
      const broker = await getBroker(config);
      return Comlink.proxy(broker.connectWithConfig(config, hello, listener));
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
