/**
 * The messages between a tab and the broker, apart from the code that sends them.
 *
 * Calls: the tab uses Comlink, whose wire format has several message types (GET, SET, APPLY,
 * CONSTRUCT, ENDPOINT, RELEASE) on arbitrary property paths. The broker answers exactly two: APPLY
 * of one named method, and RELEASE of the connection. Anything else is answered with a typed
 * INVALID_ARGUMENT error and changes nothing.
 *
 * Deliveries: the broker pushes subscription updates on the tab's listener port as plain
 * `{ type: 'deliver', batch }` messages; nothing is called on the tab. On the same port it may ask
 * `{ type: 'ping', id }`, which a live tab answers `{ type: 'pong', id }`.
 */
import type { SerializedError } from '../protocol/errors/errors.js';
import type { BrokerEntry, Delivery } from './api.js';

/** An argument or a return value. `HANDLER` values are Comlink's transfer handlers ("proxy", "throw"). */
export type WireValue = { type: 'RAW'; value: unknown } | { type: 'HANDLER'; name: string; value: unknown };

/** The calls the broker serves. */
export type CallMessage =
  { id: string; type: 'APPLY'; path: [method: string]; argumentList: WireValue[] } | { id: string; type: 'RELEASE' };

/** The answer to a call, matched by `id`. */
export type ReplyMessage = WireValue & { id: string };

/** How a thrown error travels (Comlink's "throw" handler); ours carry `authbroker`, read by the tab's handler. */
export interface ThrownValue {
  isError: boolean;
  value: unknown;
  authbroker?: SerializedError;
}

export const DELIVER = 'deliver';

export interface DeliverMessage {
  type: typeof DELIVER;
  batch: Delivery;
}

/**
 * The broker asks a tab whether it is still there, on the tab's listener port (which only that tab
 * holds); the tab answers on the same port with the same id. Asked when the tab's lifetime lock is
 * freed (a lock any page can take) or when it never named one.
 */
export const PING = 'ping';
export const PONG = 'pong';

export interface PingMessage {
  type: typeof PING | typeof PONG;
  id: number;
}

/** The longest call id the broker answers (Comlink's are four hex numbers joined by dashes). */
export const MAX_CALL_ID_LENGTH = 100;

/** More arguments than any call takes: a longer list is refused before any of it is looked at. */
export const MAX_CALL_ARGUMENTS = 8;

/**
 * The most calls a tab leaves unanswered on its port at once: more wait in the tab, in order, and go
 * as answers come back (client/callWindow.ts). So a tab never has more than this many calls waiting
 * their turn in the broker, and a port with more than twice as many (MAX_WAITING_PER_LANE) is a page
 * flooding the broker, whose port is closed early: every message a page posts is dispatched on the
 * broker's thread ahead of the other tabs' messages, whatever the broker then does with it.
 */
export const MAX_CALLS_IN_FLIGHT = 128;

/** The message a service worker receives to start serving a tab on the port it carries. */
export const SERVICE_WORKER_CONNECT = 'authbroker:connect';

/**
 * A worker's answer to `connect`, instead of a port, when its broker for the tab's config is not the
 * one serving the config's tabs: a broker that keeps its tokens in memory serves them from one
 * instance of a worker host at a time (worker/registry.ts), so another instance (a SharedWorker
 * started under a retry's name, the service worker beside a SharedWorker) says so, and the tab
 * waits for the instance that serves it rather than splitting the tabs between two sessions.
 */
export const STANDBY: Exclude<Awaited<ReturnType<BrokerEntry['connect']>>, MessagePort> = 'authbroker:standby';

/**
 * How a worker's refusal begins (a BROKER_UNAVAILABLE) when it serves as many configs as it may: not a refusal of
 * this tab's config, so the tab tries its next host. Only the service worker, which has no name to bind it to one
 * config, and a SharedWorker under a name of the app's own choosing can be full: any page of the origin can fill
 * them with made-up configs (client/connect/openBroker.ts).
 */
export const WORKER_FULL = 'This worker already serves';

/*
 * The names of a broker SharedWorker's instances (contract/brokerKey.ts gives the first, `authbroker:<brokerKey>`):
 * each retry of a tab starts a new instance under that name with `#2`, `#3`… (client/connect/hosts/sharedWorkerHost.ts),
 * and a worker bound to a config by its name (worker/hosts/brokerRegistry.ts) is bound under any of them.
 */

/** The name a tab's attempt gives the SharedWorker of `name` (numbered from 0): the name itself first, then `#2`, `#3`… */
export function attemptWorkerName(name: string, attempt: number): string {
  return attempt === 0 ? name : `${name}#${attempt + 1}`;
}

/**
 * Whether `name` is `first` or the name of one of its retries. Checked against the name a config would have, never
 * read back into a config: a service URL may itself end in `#2`.
 */
export function isAttemptOf(name: string, first: string): boolean {
  return name === first || (name.startsWith(`${first}#`) && /^[1-9][0-9]*$/.test(name.slice(first.length + 1)));
}
