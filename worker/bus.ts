import { Emitter } from '../contract/events.js';
import type { SessionEnd } from '../contract/state.js';
import type { CacheMessage } from './cache/queryClient.js';

/** What brokers of one origin tell each other (several SharedWorker builds, or in-page brokers). */
export type BusMessage =
  /**
   * A slot's session changed (sign-in or end): re-read storage. `endedSessionKey` names a session
   * that ended, so that every broker holds the end even if its record never reaches storage.
   */
  | { type: 'session'; slot: string; sessionKey: string | null; end: SessionEnd | null; endedSessionKey?: string }
  /** A slot's access token was renewed: re-read storage instead of renewing again. */
  | { type: 'tokens'; slot: string; sessionKey: string }
  /** A mutation's answer or an invalidation, for the same session's entries. */
  | CacheMessage;

export interface Bus {
  post(message: BusMessage): void;
  onMessage(listener: (message: BusMessage) => void): void;
  close(): void;
}

/** One channel per service and project: brokers of another API URL never hear of this session. */
export function channelName(brokerKey: string): string {
  return `authbroker:${brokerKey}`;
}

/** A BroadcastChannel per broker key; no-op where BroadcastChannel does not exist. */
export function createBus(brokerKey: string): Bus {
  if (typeof BroadcastChannel === 'undefined') return { post: () => undefined, onMessage: () => undefined, close: () => undefined };
  const channel = new BroadcastChannel(channelName(brokerKey));
  const messages = new Emitter<BusMessage>();
  channel.onmessage = (event: MessageEvent<BusMessage>) => messages.emit(event.data);
  return {
    post: (message) => channel.postMessage(message),
    onMessage: (listener) => void messages.subscribe(listener),
    close: () => channel.close(),
  };
}
