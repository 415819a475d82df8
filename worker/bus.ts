import type { SessionEnd } from './storage/types.js';

/** What brokers of one origin tell each other (several SharedWorker builds, or in-page brokers). */
export type BusMessage =
  /** A slot's session changed (sign-in or end): re-read storage. */
  | { type: 'session'; slot: string; sessionKey: string | null; end: SessionEnd | null }
  /** A slot's access token was renewed: re-read storage instead of renewing again. */
  | { type: 'tokens'; slot: string; sessionKey: string }
  /** A cache entry changed through a mutation (keys are session-qualified, values plain data). */
  | { type: 'cache-set'; key: string; value: unknown }
  | { type: 'cache-invalidate'; prefix: string };

export interface Bus {
  post(message: BusMessage): void;
  onMessage(listener: (message: BusMessage) => void): void;
  close(): void;
}

export function channelName(projectId: string): string {
  return `authbroker:${projectId}`;
}

/** A BroadcastChannel per project; no-op where BroadcastChannel does not exist. */
export function createBus(projectId: string): Bus {
  if (typeof BroadcastChannel === 'undefined') return { post: () => undefined, onMessage: () => undefined, close: () => undefined };
  const channel = new BroadcastChannel(channelName(projectId));
  const listeners: Array<(message: BusMessage) => void> = [];
  channel.onmessage = (event: MessageEvent<BusMessage>) => {
    for (const listener of listeners) listener(event.data);
  };
  return {
    post: (message) => channel.postMessage(message),
    onMessage: (listener) => void listeners.push(listener),
    close: () => channel.close(),
  };
}
