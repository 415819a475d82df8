import type { Clock } from '../../protocol/clock.js';
import type { createMemoryStorage } from './memory.js';
import type { liveKey, readSessionRecord, BrokerStorage, SessionRecord, StorageEvent, StoredSession } from './types.js';

/**
 * What this module uses of the broker's storage code, handed in rather than imported: a lazy chunk
 * that imported modules the broker's entry also loads would have bundlers split those into more
 * files the entry loads up front.
 */
export interface StorageKit {
  createMemoryStorage: typeof createMemoryStorage;
  readSessionRecord: typeof readSessionRecord;
  liveKey: typeof liveKey;
  /** Holds a lock until released, queueing again when another page takes it (worker/locks.ts). */
  keepLock(locks: LockRequester, name: string): { release(): void };
}

/**
 * Storage for `tokenStore: 'memory'`: sessions (and the sign-outs waiting to be sent, which hold a
 * refresh token too) live in the broker's memory only; OAuth flows, which hold no token and must
 * outlive the page that leaves for the provider, stay in `durable` (IndexedDB).
 *
 * A worker host has one broker for every tab, so its memory is all there is. In-page brokers (one
 * per tab) share sessions through `peers`: a broker that starts asks the others for theirs, and
 * every sign-in or renewal is told to them. That channel is open to every page of the origin, like
 * the database it stands in for, so what arrives on it is checked like a stored record.
 */
/** The part of Web Locks this storage uses (the broker's `LockManagerLike` is one). */
export interface LockRequester {
  request<T>(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<T> | T): Promise<T>;
}

export interface MemoryTokenOptions {
  durable: BrokerStorage;
  /** This broker's own slots (its user's and its project owner's): peers' records of any other slot are not read. */
  slots: readonly string[];
  /** The other in-page brokers of this origin and service (null for a worker host). */
  peers: PeerChannel | null;
  locks: LockRequester | null;
  clock: Pick<Clock, 'now' | 'setTimeout'>;
  kit: StorageKit;
  /** How long a starting broker waits for a peer that holds a session to answer. Default 1 s. */
  answerWaitMillis?: number;
}

export interface PeerChannel {
  readonly name: string;
  post(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  /**
   * The in-page host's channel leaves while its page is in the back/forward cache (a message, or a
   * lock it holds that another page asks for, would evict the page; worker/hosts/pageChannels.ts):
   * before it leaves, and after it is back (what was said meanwhile was not heard).
   */
  onPause?(listener: () => void): void;
  onResume?(listener: () => void): void;
  close(): void;
}

/** A BroadcastChannel for the memory-token brokers of one broker key (null where there is none). */
export function peerChannel(brokerKey: string): PeerChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  const name = `authbroker:memory-tokens:${brokerKey}`;
  const channel = new BroadcastChannel(name);
  const listeners: Array<(message: unknown) => void> = [];
  channel.onmessage = (event: MessageEvent) => listeners.forEach((listener) => listener(event.data));
  return { name, post: (message) => channel.postMessage(message), onMessage: (listener) => void listeners.push(listener), close: () => channel.close() };
}

/** How far ahead of this broker's clock a peer's record may be dated (a later one would outrank every real sign-in). */
const CLOCK_SLACK_MILLIS = 60_000;

export function keepTokensInMemory(options: MemoryTokenOptions): BrokerStorage {
  const { durable, peers, locks, clock } = options;
  const { liveKey, readSessionRecord } = options.kit;
  const memory = options.kit.createMemoryStorage();
  const listeners: Array<(event: StorageEvent) => void> = [];
  const emit = (event: StorageEvent) => listeners.forEach((listener) => listener(event));
  /** Per slot: what this broker holds now (memory's copy, kept here too to answer peers synchronously). */
  const records = new Map<string, SessionRecord>();
  const holders = new Map<string, { release(): void }>();
  const waiting = new Map<string, Array<() => void>>();
  const asked = new Set<string>();

  /**
   * While this broker holds a live session of a slot, it queues for (and in turn holds) a lock named
   * after it: a broker that starts can then tell at once whether anyone has a session to share
   * (the lock is taken) instead of waiting for answers that may never come. A page that takes the
   * lock from its holder (`steal`) has that holder queue again (`keepLock`): two steals used to leave
   * no holder, and a new tab started signed out while the others were signed in.
   */
  const holderLock = (slot: string) => `${peers!.name}:${slot}`;
  function holdWhileLive(slot: string): void {
    if (peers === null || locks === null) return;
    const live = liveKey(records.get(slot)) !== null;
    if (live && !holders.has(slot)) holders.set(slot, options.kit.keepLock(locks, holderLock(slot)));
    else if (!live && holders.has(slot)) {
      holders.get(slot)!.release();
      holders.delete(slot);
    }
  }

  function remember(record: SessionRecord, tellPeers: boolean): void {
    records.set(record.slot, record);
    holdWhileLive(record.slot);
    // Only live sessions travel: an end is told on the bus, where other brokers check it with the service.
    if (tellPeers && record.status === 'active') peers?.post({ type: 'record', record });
  }

  /**
   * A peer's record replaces ours when it is of one of our slots, a live session we do not know to
   * have ended, and newer. (Whether its tokens are the held session's user's is the session's to say.)
   */
  function adopt(raw: unknown): void {
    const slot = (raw as { slot?: unknown } | null)?.slot;
    if (typeof slot !== 'string' || !options.slots.includes(slot)) return;
    const { record } = readSessionRecord(raw, slot);
    if (record?.status !== 'active' || record.updatedAtMillis > clock.now() + CLOCK_SLACK_MILLIS) return;
    const current = records.get(slot);
    const ours = current !== undefined && current.sessionKey === record.sessionKey;
    if (current !== undefined && (record.updatedAtMillis <= current.updatedAtMillis || (ours && current.status === 'ended'))) return;
    const copy: StoredSession = { ...record };
    void memory.saveSession(copy);
    remember(copy, false);
    waiting.get(slot)?.forEach((resolve) => resolve());
    waiting.delete(slot);
    emit({ kind: 'changed', slot });
  }

  peers?.onMessage((message) => {
    if (typeof message !== 'object' || message === null) return;
    const { type } = message as { type?: unknown };
    if (type === 'record') adopt((message as { record?: unknown }).record);
    else if (type === 'ask') {
      const slot = (message as { slot?: unknown }).slot;
      const record = typeof slot === 'string' && options.slots.includes(slot) ? records.get(slot) : undefined;
      if (record?.status === 'active') peers.post({ type: 'record', record });
    }
  });

  /** On a slot's first read, the session of a peer that holds one (when a peer holds one). */
  async function askPeers(slot: string): Promise<void> {
    if (peers === null || asked.has(slot)) return;
    asked.add(slot);
    const someoneHolds = locks === null ? true : await locks.request(holderLock(slot), { ifAvailable: true }, (lock) => lock === null).catch(() => false);
    if (!someoneHolds) return;
    const answered = new Promise<void>((resolve) => waiting.set(slot, [...(waiting.get(slot) ?? []), resolve]));
    peers.post({ type: 'ask', slot });
    await Promise.race([answered, new Promise<void>((resolve) => clock.setTimeout(resolve, options.answerWaitMillis ?? 1000))]);
  }

  // Into the back/forward cache: no holder lock (another page asking for it would evict this one).
  // Back: what peers said meanwhile was not heard (the next read asks again), and the locks are held again.
  peers?.onPause?.(() => {
    for (const holder of holders.values()) holder.release();
    holders.clear();
  });
  peers?.onResume?.(() => {
    asked.clear();
    for (const slot of records.keys()) holdWhileLive(slot);
  });
  durable.onEvent((event) => emit(event));
  return {
    kind: 'memory',
    async loadSession(slot) {
      await askPeers(slot);
      return memory.loadSession(slot);
    },
    async saveSession(record) {
      await memory.saveSession(record);
      remember(record, true);
    },
    async replaceSession(record, expected) {
      const replaced = await memory.replaceSession(record, expected);
      if (replaced) remember(record, true);
      return replaced;
    },
    async removeSession(slot, expected) {
      const removed = await memory.removeSession(slot, expected);
      if (removed) {
        records.delete(slot);
        holdWhileLive(slot);
      }
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
      for (const holder of holders.values()) holder.release();
      holders.clear();
      peers?.close();
      memory.close();
      durable.close();
    },
  };
}
