/**
 * Sessions in memory shared between in-page brokers (one per tab, worker/hosts/inProcess.ts): a
 * broker that starts asks the others for theirs, and every sign-in or renewal is told to them. Only
 * the in-page host loads this; a worker host's one broker has no peers.
 *
 * That channel is open to every page of the origin, like the database it stands in for, so what
 * arrives on it is checked like a stored record.
 */
import {
  keepTokensInMemory,
  type MemoryTokenOptions,
  type MemoryTokenStore,
  type ShareSessions,
} from './memoryTokens.js';
import type { BrokerStorage, SessionRecord, StoredSession } from './types.js';

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
  return {
    name,
    post: (message) => channel.postMessage(message),
    onMessage: (listener) => void listeners.push(listener),
    close: () => channel.close(),
  };
}

/** How far ahead of this broker's clock a peer's record may be dated (a later one would outrank every real sign-in). */
const CLOCK_SLACK_MILLIS = 60_000;

/** Sharing over `peers`: what this broker holds is told to them, and theirs is adopted. */
function shareWithPeers(peers: PeerChannel): ShareSessions {
  return (options: MemoryTokenOptions, memory: BrokerStorage, changed: (slot: string) => void) => {
    const { locks, clock } = options;
    const { liveKey, readSessionRecord } = options.kit;
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
    const holderLock = (slot: string) => `${peers.name}:${slot}`;
    function holdWhileLive(slot: string): void {
      if (locks === null) return;
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
      if (tellPeers && record.status === 'active') peers.post({ type: 'record', record });
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
      if (
        current !== undefined &&
        (record.updatedAtMillis <= current.updatedAtMillis || (ours && current.status === 'ended'))
      )
        return;
      const copy: StoredSession = { ...record };
      void memory.saveSession(copy);
      remember(copy, false);
      waiting.get(slot)?.forEach((resolve) => resolve());
      waiting.delete(slot);
      changed(slot);
    }

    peers.onMessage((message) => {
      if (typeof message !== 'object' || message === null) return;
      const { type } = message as { type?: unknown };
      if (type === 'record') adopt((message as { record?: unknown }).record);
      else if (type === 'ask') {
        const slot = (message as { slot?: unknown }).slot;
        const record = typeof slot === 'string' && options.slots.includes(slot) ? records.get(slot) : undefined;
        if (record?.status === 'active') peers.post({ type: 'record', record });
      }
    });

    // Into the back/forward cache: no holder lock (another page asking for it would evict this one).
    // Back: what peers said meanwhile was not heard (the next read asks again), and the locks are held again.
    peers.onPause?.(() => {
      for (const holder of holders.values()) holder.release();
      holders.clear();
    });
    peers.onResume?.(() => {
      asked.clear();
      for (const slot of records.keys()) holdWhileLive(slot);
    });

    return {
      /** On a slot's first read, the session of a peer that holds one (when a peer holds one). */
      async beforeRead(slot) {
        if (asked.has(slot)) return;
        asked.add(slot);
        const someoneHolds =
          locks === null
            ? true
            : await locks.request(holderLock(slot), { ifAvailable: true }, (lock) => lock === null).catch(() => false);
        if (!someoneHolds) return;
        const answered = new Promise<void>((resolve) => waiting.set(slot, [...(waiting.get(slot) ?? []), resolve]));
        peers.post({ type: 'ask', slot });
        await Promise.race([
          answered,
          new Promise<void>((resolve) => clock.setTimeout(resolve, options.answerWaitMillis ?? 1000)),
        ]);
      },
      stored: (record) => remember(record, true),
      removed(slot) {
        records.delete(slot);
        holdWhileLive(slot);
      },
      close() {
        for (const holder of holders.values()) holder.release();
        holders.clear();
        peers.close();
      },
    };
  };
}

/**
 * The memory token store of in-page brokers, sharing over `channel` (default a BroadcastChannel; the page's, which
 * leaves while the page is in the back/forward cache, worker/hosts/pageChannels.ts).
 */
export function sharedWithPeers(channel: (brokerKey: string) => PeerChannel | null = peerChannel): MemoryTokenStore {
  return {
    keepTokensInMemory(options) {
      const peers = channel(options.brokerKey);
      return keepTokensInMemory(options, peers === null ? undefined : shareWithPeers(peers));
    },
  };
}
