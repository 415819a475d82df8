/**
 * The in-page broker as a tab opens it: the last fallback, where no worker can host the broker.
 * The tab's lazy connection loads this module with import(), and `npm run build` ships it as a
 * bundle of its own (`dist/worker/hosts/inPage.js`, with its own copies of the protocol modules it
 * shares with the tab), so that no chunk of the tab's entry carries what only the broker uses. Its
 * errors therefore reach the tab rebuilt as the tab's own classes (`toTabError`, the tab's
 * `deserializeError`), as they do over a worker's port.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import { AuthBrokerError, ClientError, type SerializedError } from '../../protocol/errors/errors.js';
import { brokerKeyOf, resolveBrokerConfig, type BrokerConfig } from '../config.js';
import { browserLocks } from '../coordination/locks.js';
import { keepsTokensInMemory, ownerLockName } from '../storage/tokenStore.js';
import { sharedWithPeers } from '../storage/memoryPeers.js';
import { createInProcessBroker } from './inProcess.js';
import { catchUpWhenShown, pageBus, pageLifecycle, pagePeerChannel } from './pageChannels.js';

export interface InPageBroker {
  api: BrokerApi;
  close(): void;
}

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * Whether a worker host's broker serves `config`'s tokens kept in memory now (it holds the config's
 * owner lock, worker/registry.ts): a broker in this page would have another session.
 */
async function servedByAWorker(config: BrokerConfig): Promise<boolean> {
  const resolved = resolveBrokerConfig(config);
  const locks = browserLocks();
  if (!keepsTokensInMemory(resolved.tokenStore) || locks === null) return false;
  return locks.request(ownerLockName(brokerKeyOf(resolved)), { ifAvailable: true }, (lock) => lock === null);
}

/**
 * `fallback`: the page hosts the broker because the better hosts did not start for it (not by the
 * app's choice); then, for tokens kept in memory, only while no worker serves the config, since
 * this tab's session would not be theirs.
 */
export async function openInPageBroker(
  config: BrokerConfig,
  hello: TabHello,
  listener: TabListener,
  toTabError: (serialized: SerializedError) => Error,
  fallback = false,
): Promise<InPageBroker> {
  const forTab = (error: unknown) => (error instanceof AuthBrokerError ? toTabError(error.toJSON()) : error);
  try {
    if (fallback && (await servedByAWorker(config))) {
      throw new ClientError(
        'BROKER_UNAVAILABLE',
        "A worker's broker serves this project's session (tokens kept in memory) but did not answer this tab; a broker of its own in the page would have another session, so none was started.",
      );
    }
    // In a page that may go into the back/forward cache, channels that leave while it is there.
    const page = pageLifecycle();
    const key = brokerKeyOf(resolveBrokerConfig(config));
    const broker = await createInProcessBroker(
      config,
      page === undefined
        ? {}
        : {
            bus: pageBus(key, page),
            memoryTokens: async () => sharedWithPeers((brokerKey) => pagePeerChannel(brokerKey, page)),
          },
    );
    if (page !== undefined) catchUpWhenShown(broker, page);
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
