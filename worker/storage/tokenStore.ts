/**
 * Where a broker keeps its tokens, decided in one place: IndexedDB (the default; memory, with a warning, where
 * IndexedDB fails) or, for `tokenStore: 'memory'`, the broker's memory, shared by the open tabs and gone with them.
 * What that choice implies elsewhere is named here too: only one broker instance may hold such a session (its
 * owner lock), and an end told while a page was away must be asked of the service.
 */
import type { TokenStore } from '../../contract/brokerKey.js';
import type { Clock } from '../../protocol/clock.js';
import { messageOf } from '../../protocol/errors/errors.js';
import { keepLock, type LockManagerLike } from '../coordination/locks.js';
import type { LazyParts } from '../lazy/parts.js';
import { createIndexedDbStorage } from './indexedDb.js';
import { createMemoryStorage } from './memory.js';
import { liveKey, readSessionRecord, type BrokerStorage } from './types.js';

/** Whether a broker of this token store holds the only copy of its session (no record on the device). */
export function keepsTokensInMemory(tokenStore: TokenStore): boolean {
  return tokenStore === 'memory';
}

/** The lock held by the one instance of a worker host whose broker serves a config with `tokenStore: 'memory'`. */
export function ownerLockName(brokerKey: string): string {
  return `authbroker:owner:${brokerKey}`;
}

/** How the host opens durable storage: given, made on demand, or IndexedDB (memory where IndexedDB fails). */
export type StorageOption = BrokerStorage | (() => Promise<BrokerStorage>);

export interface TokenStoreOptions {
  tokenStore: TokenStore;
  /** The broker's key (`brokerKeyOf`), and the key its config would have with tokens in IndexedDB. */
  brokerKey: string;
  durableBrokerKey: string;
  storage: StorageOption | undefined;
  locks: LockManagerLike | null;
  clock: Clock;
  memoryTokens: LazyParts['memoryTokens'];
  warn(warning: string): void;
}

/** Opens the broker's storage for its token store. */
export async function openTokenStore(options: TokenStoreOptions): Promise<BrokerStorage> {
  const durable = await openDurableStorage(options.storage, options.warn);
  const storage = keepsTokensInMemory(options.tokenStore) ? await tokensInMemory(durable, options) : durable;
  storage.onEvent((event) => {
    if (event.kind === 'discarded') options.warn(`A stored session could not be read (${event.problem}): signed out.`);
  });
  return storage;
}

async function openDurableStorage(
  option: StorageOption | undefined,
  warn: (warning: string) => void,
): Promise<BrokerStorage> {
  if (option !== undefined && typeof option !== 'function') return option;
  try {
    return await (option ?? createIndexedDbStorage)();
  } catch (error) {
    warn(`IndexedDB is not available (${messageOf(error)}): the session is kept in memory until the broker stops.`);
    return createMemoryStorage();
  }
}

/**
 * Sessions in memory (shared with the other in-page brokers where each tab is one: the in-page host's store), OAuth
 * flows in `durable`. A session this origin stored before the app chose memory is deleted from storage: the app
 * asked that no refresh token stay on the device.
 */
async function tokensInMemory(durable: BrokerStorage, options: TokenStoreOptions): Promise<BrokerStorage> {
  const { brokerKey, durableBrokerKey, locks, clock } = options;
  const { keepTokensInMemory } = await options.memoryTokens();
  for (const slot of [durableBrokerKey, `admin:${durableBrokerKey}`]) {
    const key = liveKey(await durable.loadSession(slot).catch(() => null));
    if (key !== null) await durable.removeSession(slot, key).catch(() => false);
  }
  return keepTokensInMemory({
    durable,
    brokerKey,
    slots: [brokerKey, `admin:${brokerKey}`],
    locks,
    clock,
    kit: { createMemoryStorage, readSessionRecord, liveKey, keepLock },
  });
}
