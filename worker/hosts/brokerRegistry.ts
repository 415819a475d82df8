/**
 * A worker host's brokers (SharedWorker, service worker): one per service, project and token store
 * (`brokerKeyOf`), made by the first tab that asks for it and freed after its last tab left. A
 * SharedWorker named for one config (contract/brokerKey.ts) serves only that one.
 */
import { BROKER_WORKER_PREFIX, brokerWorkerName } from '../../contract/brokerKey.js';
import { isAttemptOf, STANDBY, WORKER_FULL } from '../../contract/wire.js';
import { systemClock, type Clock } from '../../protocol/clock.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { BrokerMode } from '../../contract/state.js';
import { createBroker, type Broker } from '../broker.js';
import type { BrokerHostOptions } from '../hostOptions.js';
import type { LazyParts } from '../lazy/parts.js';
import { keepsTokensInMemory, ownerLockName } from '../storage/tokenStore.js';
import { brokerKeyOf, resolveBrokerConfig, type ResolvedBrokerConfig } from '../config.js';
import { browserLocks, keepLock, type LockManagerLike } from '../coordination/locks.js';

/**
 * How long a broker whose last tab left is kept: a reload of the only tab of a config, or a tab on
 * its way, finds it; then it is closed (its database connection, channel, locks, timers and cache
 * go), so that what a page made the worker build does not outlive the page.
 */
export const BROKER_IDLE_MILLIS = 10_000;

/**
 * How many brokers (configs) one worker serves at once. An app has one, or a few (projects, token
 * stores); a page asking for more, each with a new project id or URL, gets a typed refusal rather
 * than a worker that grows with every ask.
 */
export const MAX_BROKERS_PER_WORKER = 8;

export interface BrokerRegistryOptions {
  create(config: ResolvedBrokerConfig): Promise<Broker>;
  /** Default: `navigator.locks`. */
  locks?: LockManagerLike | null;
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  idleMillis?: number;
  maxBrokers?: number;
  /**
   * The SharedWorker's name (`self.name`). A name of the form `authbroker:<brokerKey>[#N]` binds the worker to that
   * key: any other config is refused at once, taking no slot, so that no page of the origin can fill the app's worker
   * with brokers of made-up configs. A name of the app's own choosing (and the service worker, which has none) binds
   * to nothing: up to `maxBrokers` configs.
   */
  workerName?: string;
}

/**
 * The broker for a tab's config. A broker that keeps its tokens in memory has the only copy of its
 * session: two of them for one config would split its tabs (a tab's retry under a new SharedWorker
 * name reaches a second instance, which has no session). So the broker of such a config is made
 * only where its owner lock is free, and held for its life; elsewhere (another instance, or the
 * service worker beside a SharedWorker that serves it) the answer is `STANDBY`, and the tab waits
 * for the instance that serves it. A broker is freed `idleMillis` after its last tab left, and a
 * worker serves at most `maxBrokers` configs at once, or only the one its name gives.
 */
export function brokerRegistry(options: BrokerRegistryOptions): (config: unknown) => Promise<Broker | typeof STANDBY> {
  const { clock = systemClock, idleMillis = BROKER_IDLE_MILLIS, maxBrokers = MAX_BROKERS_PER_WORKER } = options;
  const locks = options.locks === undefined ? browserLocks() : options.locks;
  const brokers = new Map<string, Promise<Broker | typeof STANDBY>>();
  const { workerName } = options;
  const bound = workerName !== undefined && workerName.startsWith(BROKER_WORKER_PREFIX);

  async function start(key: string, config: ResolvedBrokerConfig): Promise<Broker | typeof STANDBY> {
    const owner =
      keepsTokensInMemory(config.tokenStore) && locks !== null
        ? keepLock(locks, ownerLockName(key), { ifAvailable: true })
        : null;
    if (owner !== null && !(await owner.held)) {
      brokers.delete(key);
      return STANDBY;
    }
    let broker: Broker;
    try {
      broker = await options.create(config);
    } catch (error) {
      owner?.release();
      throw error;
    }
    let idle: unknown = null;
    const free = () => {
      brokers.delete(key);
      broker.close();
      owner?.release();
    };
    const watch = () => {
      if (broker.parts.tabs.count > 0) {
        if (idle !== null) clock.clearTimeout(idle);
        idle = null;
      } else idle ??= clock.setTimeout(free, idleMillis);
    };
    broker.parts.tabs.changed.subscribe(watch);
    // The tab that asked connects at once; one that is refused leaves it idle from the start.
    watch();
    return broker;
  }

  return async (input) => {
    const config = resolveBrokerConfig(input);
    const key = brokerKeyOf(config);
    if (bound && !isAttemptOf(workerName, brokerWorkerName(key))) {
      throw new ClientError(
        'BROKER_UNAVAILABLE',
        `This SharedWorker's name binds it to another project or service: it serves no other. Name it authbroker:<project id>@<service URL> for this one (workerName in authbroker/client).`,
      );
    }
    let broker = brokers.get(key);
    if (broker === undefined) {
      if (brokers.size >= maxBrokers) {
        // Worded from WORKER_FULL: the tab tries its next host.
        throw new ClientError(
          'BROKER_UNAVAILABLE',
          `${WORKER_FULL} ${maxBrokers} projects or services, the most it may.`,
        );
      }
      broker = start(key, config);
      brokers.set(key, broker);
      broker.catch(() => brokers.delete(key));
    }
    return broker;
  };
}

/** A worker host's brokers, made with `createBroker` for that host's mode and lazy parts. */
export function brokerFor(
  mode: BrokerMode,
  options: Omit<BrokerHostOptions, 'mode'> & LazyParts,
  workerName?: string,
): (config: unknown) => Promise<Broker | typeof STANDBY> {
  return brokerRegistry({
    create: (config) => createBroker(config, { ...options, mode }),
    ...(options.locks === undefined ? {} : { locks: options.locks }),
    ...(workerName === undefined ? {} : { workerName }),
  });
}
