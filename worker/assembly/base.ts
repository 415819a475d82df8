/**
 * What every part of a broker is made from: its resolved config, the runtime's facilities (clock, fetch, locks), the
 * token store, the channel to other brokers, connectivity, warnings and the recording of its work.
 */
import { Emitter } from '../../contract/events.js';
import { systemClock, type Clock } from '../../protocol/clock.js';
import { brokerKeyOf, resolveBrokerConfig, type ResolvedBrokerConfig } from '../config.js';
import { Connectivity } from '../connectivity/connectivity.js';
import { createBus, type Bus } from '../coordination/bus.js';
import { browserLocks, type LockManagerLike } from '../coordination/locks.js';
import type { BrokerHostOptions } from '../hostOptions.js';
import type { RecorderSources } from '../diagnostics/recorder.js';
import type { LazyParts } from '../lazy/parts.js';
import { createRecording, type Recording } from '../lazy/recording.js';
import { Warnings } from '../status.js';
import { openTokenStore } from '../storage/tokenStore.js';
import type { BrokerStorage } from '../storage/types.js';

/** What every part below is made from. */
export interface Base {
  config: ResolvedBrokerConfig;
  brokerKey: string;
  host: BrokerHostOptions & LazyParts;
  clock: Clock;
  fetch: typeof fetch;
  locks: LockManagerLike | null;
  storage: BrokerStorage;
  bus: Bus;
  connectivity: Connectivity;
  warnings: Warnings;
  recording: Recording;
  /** A session renewed its access token (the status counts renewals). */
  refreshed: Emitter;
  /** What the recorder reads when it loads, once every part exists. */
  recorderSources(read: () => RecorderSources): void;
}

/** The config, the runtime's facilities and the storage every part is made from. */
export async function openBase(configInput: unknown, host: BrokerHostOptions & LazyParts): Promise<Base> {
  const config = resolveBrokerConfig(configInput);
  const brokerKey = brokerKeyOf(config);
  const clock = host.clock ?? systemClock;
  const fetchFn = host.fetch ?? globalThis.fetch.bind(globalThis);
  const warnings = new Warnings();
  const locks = host.locks === undefined ? browserLocks() : host.locks;
  const storage = await openTokenStore({
    tokenStore: config.tokenStore,
    brokerKey,
    durableBrokerKey: brokerKeyOf({ ...config, tokenStore: 'indexeddb' }),
    storage: host.storage,
    locks,
    clock,
    memoryTokens: host.memoryTokens,
    warn: (warning) => warnings.add(warning),
  });
  let sources: (() => RecorderSources) | null = null;
  const recording = createRecording(host.recorder, () => {
    if (sources === null) throw new TypeError('the recorder loaded before the broker was assembled');
    return sources();
  });
  return {
    config,
    brokerKey,
    host,
    clock,
    fetch: fetchFn,
    locks,
    storage,
    bus: host.bus ?? createBus(brokerKey),
    connectivity: new Connectivity({
      baseUrl: config.baseUrl,
      fetch: fetchFn,
      clock,
      watchIntervalMillis: config.connectivityCheckMillis,
    }),
    warnings,
    recording,
    refreshed: new Emitter(),
    recorderSources: (read) => (sources = read),
  };
}
