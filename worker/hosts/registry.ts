import type { BrokerMode } from '../../contract/state.js';
import { createBroker, type Broker } from '../broker.js';
import { brokerKeyOf, resolveBrokerConfig } from '../config.js';
import type { BrokerHostOptions, LazyParts } from '../host.js';
import { brokerRegistry } from '../rpc/entry.js';

/** A worker host's brokers: one per service and project, made by the first tab that asks. */
export function brokerFor(mode: BrokerMode, options: Omit<BrokerHostOptions, 'mode'> & LazyParts): (config: unknown) => Promise<Broker> {
  return brokerRegistry(
    (config) => brokerKeyOf(resolveBrokerConfig(config)),
    (config) => createBroker(config, { ...options, mode }),
  );
}
