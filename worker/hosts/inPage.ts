/**
 * The in-page broker as a tab opens it: the last fallback, where no worker can host the broker.
 * The tab's lazy connection loads this module with import(), and `npm run build` ships it as a
 * bundle of its own (`dist/worker/hosts/inPage.js`, with its own copies of the protocol modules it
 * shares with the tab), so that no chunk of the tab's entry carries what only the broker uses. Its
 * errors therefore reach the tab rebuilt as the tab's own classes (`toTabError`, the tab's
 * `deserializeError`), as they do over a worker's port.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import { AuthBrokerError, type SerializedError } from '../../protocol/errors/errors.js';
import type { BrokerConfig } from '../config.js';
import { createInProcessBroker } from './inProcess.js';

export interface InPageBroker {
  api: BrokerApi;
  close(): void;
}

type Method = (...args: unknown[]) => Promise<unknown>;

export async function openInPageBroker(config: BrokerConfig, hello: TabHello, listener: TabListener, toTabError: (serialized: SerializedError) => Error): Promise<InPageBroker> {
  const forTab = (error: unknown) => (error instanceof AuthBrokerError ? toTabError(error.toJSON()) : error);
  try {
    const broker = await createInProcessBroker(config);
    const api = broker.connect(hello, listener) as unknown as Record<string, Method>;
    // The checked API is a prototype-less object of the contract's methods: the same, each failure rebuilt.
    const methods = Object.create(null) as Record<string, Method>;
    for (const name of Object.keys(api)) {
      const method = api[name]!;
      methods[name] = (...args) => method(...args).catch((error: unknown) => Promise.reject(forTab(error)));
    }
    return { api: methods as unknown as BrokerApi, close: () => broker.close() };
  } catch (error) {
    throw forTab(error);
  }
}
