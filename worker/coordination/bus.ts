import { parseQuerySpec } from '../../contract/arguments.js';
import { Emitter } from '../../contract/events.js';
import { isQueryKind, type QueryKind } from '../../contract/queries.js';
import {
  check,
  custom,
  fields,
  finiteNumber,
  literal,
  maxLength,
  nullable,
  optional,
  picklist,
  pipe,
  string,
  unknown,
  type Rule,
} from '../../contract/schema.js';
import { sessionEndReasons, type SessionEndReason } from '../../contract/state.js';
import type { CacheMessage } from '../cache/queryClient.js';

/**
 * What brokers of one origin tell each other (several SharedWorker builds, or in-page brokers).
 * Any page of the origin can post on the channel too, so every message is a hint, never a fact:
 * a broker re-reads storage, asks the service, or refetches, and takes nothing else from it.
 */
export type BusMessage =
  /**
   * A slot's session changed (sign-in or end): re-read storage. `endedSessionKey` names a session
   * that ended; a broker that still holds it asks the service whether it did (its end may never
   * reach storage), and `end` says why, for when it did.
   */
  | {
      type: 'session';
      slot: string;
      sessionKey: string | null;
      end: BusSessionEnd | null;
      endedSessionKey?: string | undefined;
    }
  /** A slot's access token was renewed: re-read storage instead of renewing again. */
  | { type: 'tokens'; slot: string; sessionKey: string }
  /** A mutation or an invalidation: the entries it names are refetched if watched. */
  | CacheMessage;

/** What a session message says of an end: only the reason and time are used (the sentence is ours). */
export interface BusSessionEnd {
  reason: SessionEndReason;
  atMillis: number;
  message?: string | undefined;
  code?: string | undefined;
}

export interface Bus {
  post(message: BusMessage): void;
  onMessage(listener: (message: BusMessage) => void): void;
  close(): void;
}

/** One channel per service and project: brokers of another API URL never hear of this session. */
export function channelName(brokerKey: string): string {
  return `authbroker:${brokerKey}`;
}

/**
 * A BroadcastChannel per broker key; no-op where BroadcastChannel does not exist. Messages that are not ours are
 * dropped.
 */
export function createBus(brokerKey: string): Bus {
  if (typeof BroadcastChannel === 'undefined')
    return { post: () => undefined, onMessage: () => undefined, close: () => undefined };
  const channel = new BroadcastChannel(channelName(brokerKey));
  const messages = new Emitter<BusMessage>();
  channel.onmessage = (event: MessageEvent) => {
    const message = readBusMessage(event.data);
    if (message !== null) messages.emit(message);
  };
  return {
    post: (message) => channel.postMessage(message),
    onMessage: (listener) => void messages.subscribe(listener),
    close: () => channel.close(),
  };
}

const key = () => pipe(string(), maxLength(200, 'must be at most 200 characters'));
const params = () =>
  custom<Record<string, string | number | boolean | null>>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype &&
      Object.keys(value).length <= 8 &&
      Object.entries(value).every(
        ([name, inner]) =>
          name.length <= 100 &&
          (inner === null ||
            typeof inner === 'number' ||
            typeof inner === 'boolean' ||
            (typeof inner === 'string' && inner.length <= 200)),
      ),
    'must be a few plain parameters',
  );
const queryKind = () => custom<QueryKind>(isQueryKind, 'must be a query kind');

/** What older deploys send for a mutation: its answer, which is never used here. */
interface LegacyCacheSet {
  type: 'cache-set';
  owner: string;
  spec: unknown;
}

/** Each message type's exact fields; anything else is not one of ours. */
const busRules: Record<BusMessage['type'] | LegacyCacheSet['type'], Rule<BusMessage | LegacyCacheSet>> = {
  session: fields({
    type: literal('session', 'session'),
    slot: key(),
    sessionKey: nullable(key()),
    end: nullable(
      fields({
        reason: picklist(sessionEndReasons, 'must be a reason'),
        atMillis: finiteNumber(),
        message: optional(pipe(string(), maxLength(1000, 'too long'))),
        code: optional(
          pipe(
            string(),
            check((s) => /^[A-Z][A-Z0-9_]{0,99}$/.test(s), 'must be an error code'),
          ),
        ),
      }),
    ),
    endedSessionKey: optional(key()),
  }),
  tokens: fields({ type: literal('tokens', 'tokens'), slot: key(), sessionKey: key() }),
  // Older deploys send the answer itself: only which entry it names is read.
  'cache-set': fields({ type: literal('cache-set', 'cache-set'), owner: key(), spec: unknown(), value: unknown() }),
  'cache-invalidate': fields({
    type: literal('cache-invalidate', 'cache-invalidate'),
    owner: key(),
    kind: queryKind(),
    params: params(),
  }),
};

/**
 * A message from the channel, checked field by field, or null when it is not one of ours. A
 * `cache-set` comes back as the invalidation of the entry it names: data on the bus is never used.
 */
export function readBusMessage(data: unknown): BusMessage | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const type = (data as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(busRules, type)) return null;
  try {
    const message = busRules[type as keyof typeof busRules].parse(data);
    if (message.type !== 'cache-set') return message;
    const { kind, ...spec } = parseQuerySpec(message.spec) as { kind: QueryKind } & Record<string, unknown>;
    return { type: 'cache-invalidate', owner: message.owner, kind, params: params().parse(spec) };
  } catch {
    return null;
  }
}
