/**
 * The in-page host: the broker runs in the tab itself. Used by tests, by Node, and as the last
 * fallback where neither SharedWorker nor service workers are available; tabs then coordinate
 * through Web Locks, BroadcastChannel and the shared IndexedDB.
 */
import { createBroker, type Broker } from '../broker.js';
import type { BrokerConfig } from '../config.js';
import type { BrokerHostOptions } from '../host.js';

export function createInProcessBroker(config: BrokerConfig, options: Omit<BrokerHostOptions, 'mode'> = {}): Promise<Broker> {
  return createBroker(config, { ...options, mode: 'in-process' });
}
