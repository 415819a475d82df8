import type { Clock } from '../../protocol/clock.js';
import type { createMemoryStorage } from './memory.js';
import type { liveKey, readSessionRecord, BrokerStorage, SessionRecord, StorageEvent } from './types.js';

/**
 * What this module (and memoryPeers.ts) uses of the broker's storage code, handed in rather than
 * imported: a lazy chunk that imported modules the broker's entry also loads would have bundlers
 * split those into more files the entry loads up front.
 */
export interface StorageKit {
  createMemoryStorage: typeof createMemoryStorage;
  readSessionRecord: typeof readSessionRecord;
  liveKey: typeof liveKey;
  /** Holds a lock until released, queueing again when another page takes it (worker/locks.ts). */
  keepLock(locks: LockRequester, name: string): { release(): void };
}

/** The part of Web Locks this storage uses (the broker's `LockManagerLike` is one). */
export interface LockRequester {
  request<T>(
    name: string,
    options: { ifAvailable?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T>;
}

export interface MemoryTokenOptions {
  durable: BrokerStorage;
  /** The broker's key (`brokerKeyOf`): in-page brokers share sessions on a channel named after it. */
  brokerKey: string;
  /**
   * This broker's own slots (its user's and its project owner's): other brokers' records of any other slot are not
   * read.
   */
  slots: readonly string[];
  locks: LockRequester | null;
  clock: Pick<Clock, 'now' | 'setTimeout'>;
  kit: StorageKit;
  /** How long a starting in-page broker waits for a peer that holds a session to answer. Default 1 s. */
  answerWaitMillis?: number;
}

/**
 * The memory token store a host gives its brokers (`LazyParts['memoryTokens']`): this module's, or memoryPeers.ts's for
 * in-page brokers.
 */
export interface MemoryTokenStore {
  keepTokensInMemory(options: MemoryTokenOptions): BrokerStorage;
}

/**
 * How the sessions a broker keeps in memory reach the other brokers of the origin that keep the
 * same ones: in-page brokers (one per tab) share them over a channel (memoryPeers.ts); a worker
 * host's one broker has nobody to share with, and loads none of that.
 */
export interface SessionSharing {
  /** Before a slot's first read: ask for the session another broker holds. */
  beforeRead(slot: string): Promise<void>;
  /** This broker stored `record`. */
  stored(record: SessionRecord): void;
  /** This broker removed its session of `slot`. */
  removed(slot: string): void;
  close(): void;
}

/** What a sharing gets: the memory to put other brokers' sessions in, and how to say that a slot changed. */
export type ShareSessions = (
  options: MemoryTokenOptions,
  memory: BrokerStorage,
  changed: (slot: string) => void,
) => SessionSharing;

/**
 * Storage for `tokenStore: 'memory'`: sessions (and the sign-outs waiting to be sent, which hold a
 * refresh token too) live in the broker's memory only; OAuth flows, which hold no token and must
 * outlive the page that leaves for the provider, stay in `durable` (IndexedDB). A worker host has
 * one broker for every tab, so its memory is all there is; `share` is how in-page brokers share
 * theirs (memoryPeers.ts).
 */
export function keepTokensInMemory(options: MemoryTokenOptions, share?: ShareSessions): BrokerStorage {
  const { durable } = options;
  const memory = options.kit.createMemoryStorage();
  const listeners: Array<(event: StorageEvent) => void> = [];
  const emit = (event: StorageEvent) => listeners.forEach((listener) => listener(event));
  const sharing = share?.(options, memory, (slot) => emit({ kind: 'changed', slot }));
  durable.onEvent((event) => emit(event));
  return {
    kind: 'memory',
    async loadSession(slot) {
      await sharing?.beforeRead(slot);
      return memory.loadSession(slot);
    },
    async saveSession(record) {
      await memory.saveSession(record);
      sharing?.stored(record);
    },
    async replaceSession(record, expected) {
      const replaced = await memory.replaceSession(record, expected);
      if (replaced) sharing?.stored(record);
      return replaced;
    },
    async removeSession(slot, expected) {
      const removed = await memory.removeSession(slot, expected);
      if (removed) sharing?.removed(slot);
      return removed;
    },
    putOAuthFlow: (flow) => durable.putOAuthFlow(flow),
    takeOAuthFlow: (state) => durable.takeOAuthFlow(state),
    pruneOAuthFlows: (olderThan) => durable.pruneOAuthFlows(olderThan),
    addOutbox: (item) => memory.addOutbox(item),
    listOutbox: (projectId) => memory.listOutbox(projectId),
    removeOutbox: (id) => memory.removeOutbox(id),
    onEvent: (listener) => void listeners.push(listener),
    close() {
      sharing?.close();
      memory.close();
      durable.close();
    },
  };
}
