import type { BrokerMode } from '../../contract/state.js';
import type { STANDBY } from '../../contract/wire.js';
import { createBroker, type Broker } from '../broker.js';
import type { BrokerHostOptions, LazyParts } from '../host.js';
import { brokerRegistry } from '../registry.js';

/**
 * A worker host's brokers: one per service, project and token store, made by the first tab that asks, freed after the
 * last leaves (worker/registry.ts).
 */
export function brokerFor(
  mode: BrokerMode,
  options: Omit<BrokerHostOptions, 'mode'> & LazyParts,
): (config: unknown) => Promise<Broker | typeof STANDBY> {
  return brokerRegistry({
    create: (config) => createBroker(config, { ...options, mode }),
    ...(options.locks === undefined ? {} : { locks: options.locks }),
  });
}
