/**
 * The in-page broker and the back/forward cache (issue 32, item 7). A page kept in the cache is
 * evicted when a BroadcastChannel delivers it a message (Chromium's `broadcastchannel-message`) or
 * when another page asks for a Web Lock it holds (`WebLocksContention`), so Back reloaded a page
 * whose broker heard another tab's broker. Here the page's broker leaves its channels (the brokers'
 * bus and, for tokens in memory, the peers' channel, whose holder locks it lets go) when the page is
 * hidden into the cache, and when it comes back joins them again and catches up on what it missed.
 * Only the in-page host loads this: a worker's broker lives in no page.
 */
import { createBus, type Bus, type BusMessage } from '../coordination/bus.js';
import type { Broker } from '../broker.js';
import { peerChannel, type PeerChannel } from '../storage/memoryPeers.js';
import { keepsTokensInMemory } from '../storage/tokenStore.js';

/** The page going into the back/forward cache and coming back out of it. */
export interface PageLifecycle {
  onHide(listener: () => void): void;
  onShow(listener: () => void): void;
}

/** The page's own `pagehide`/`pageshow` with `persisted` (into and out of the cache), where there is a page. */
export function pageLifecycle(): PageLifecycle | undefined {
  const page = globalThis as {
    addEventListener?: (type: string, listener: (event: { persisted?: boolean }) => void) => void;
  };
  if (typeof page.addEventListener !== 'function' || !('onpageshow' in globalThis)) return undefined;
  const on = (type: string) => (listener: () => void) =>
    page.addEventListener!(type, (event) => void (event.persisted === true && listener()));
  return { onHide: on('pagehide'), onShow: on('pageshow') };
}

/** A channel closed while the page is cached and opened again when it is back, keeping its listeners. */
function leftWhileCached<C extends { close(): void }, M>(
  open: () => C | null,
  listen: (channel: C, deliver: (message: M) => void) => void,
  page: PageLifecycle,
) {
  const listeners: Array<(message: M) => void> = [];
  const deliver = (message: M) => listeners.forEach((listener) => listener(message));
  const start = () => {
    const opened = open();
    if (opened !== null) listen(opened, deliver);
    return opened;
  };
  let channel = start();
  let closed = false;
  const paused: Array<() => void> = [];
  const resumed: Array<() => void> = [];
  page.onHide(() => {
    paused.forEach((listener) => listener());
    channel?.close();
    channel = null;
  });
  page.onShow(() => {
    if (closed || channel !== null) return;
    channel = start();
    resumed.forEach((listener) => listener());
  });
  return {
    current: () => channel,
    onMessage: (listener: (message: M) => void) => void listeners.push(listener),
    onPause: (listener: () => void) => void paused.push(listener),
    onResume: (listener: () => void) => void resumed.push(listener),
    close() {
      closed = true;
      channel?.close();
      channel = null;
    },
  };
}

/** The brokers' bus of an in-page broker: nothing reaches the page while it is in the cache. */
export function pageBus(brokerKey: string, page: PageLifecycle): Bus {
  const bus = leftWhileCached<Bus, BusMessage>(
    () => createBus(brokerKey),
    (opened, deliver) => opened.onMessage(deliver),
    page,
  );
  return { post: (message) => bus.current()?.post(message), onMessage: bus.onMessage, close: bus.close };
}

/** The memory-token peers' channel of an in-page broker, left while the page is in the cache. */
export function pagePeerChannel(brokerKey: string, page: PageLifecycle): PeerChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  const peers = leftWhileCached<PeerChannel, unknown>(
    () => peerChannel(brokerKey),
    (opened, deliver) => opened.onMessage(deliver),
    page,
  );
  return {
    name: `authbroker:memory-tokens:${brokerKey}`,
    post: (message) => peers.current()?.post(message),
    onMessage: peers.onMessage,
    onPause: peers.onPause,
    onResume: peers.onResume,
    close: peers.close,
  };
}

/**
 * Back from the cache, what other brokers said meanwhile is caught up on: the session re-read (for
 * tokens in memory, which have no record to re-read, an end told meanwhile is asked of the service),
 * what tabs watch refetched, connectivity verified.
 */
export function catchUpWhenShown(broker: Broker, page: PageLifecycle): void {
  const { session, adminSession, queries, connectivity } = broker.parts;
  const memory = keepsTokensInMemory(broker.config.tokenStore);
  page.onShow(() => {
    for (const held of [session, adminSession])
      void held?.reload().then(() => (memory ? held.confirmAlive() : undefined));
    queries.cache.refetchWatched((entry) => entry.scope !== 'broker');
    connectivity.verifyContact();
  });
}
