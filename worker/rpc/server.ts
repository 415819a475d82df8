import {
  MAX_CALL_ARGUMENTS,
  MAX_CALL_ID_LENGTH,
  type CallMessage,
  type ReplyMessage,
  type ThrownValue,
  type WireValue,
} from '../../contract/wire.js';
import { AuthBrokerError, InvalidArgumentError, messageOf } from '../../protocol/errors/errors.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import { threadScheduler, type FairScheduler, type LaneGroup } from './fairness.js';

/** The part of a MessagePort the server uses (a worker's, or Node's in tests). */
export interface ServedPort {
  postMessage(message: unknown, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  start?(): void;
  close?(): void;
}

type Method = (...args: unknown[]) => unknown;

const transfers = new WeakMap<object, Transferable[]>();

/** Marks a return value whose parts (ports) are moved to the caller rather than copied. */
export function withTransfer<T extends object>(value: T, transfer: Transferable[]): T {
  transfers.set(value, transfer);
  return value;
}

export interface ServeOptions {
  /** The caller released the connection (Comlink's RELEASE): after the answer has gone out. */
  onRelease?: () => void;
  /** Shares the thread between ports (worker/rpc/fairness.ts); default the one of this thread. */
  scheduler?: FairScheduler;
  /** The ports this one shares a budget with (those of one entry port), made by `scheduler`; default none. */
  group?: LaneGroup;
}

/**
 * Serves named methods on a port, and nothing else. Tabs call through Comlink; this answers only
 * APPLY of one own method name (with plain arguments) and RELEASE. GET, SET, CONSTRUCT, ENDPOINT,
 * nested paths, inherited or unknown names, and arguments that are Comlink handlers (proxies) are
 * answered with INVALID_ARGUMENT and reach no code of the broker. Messages are taken in the port's
 * turn (`FairScheduler`): one port's backlog does not hold the others'. Returns a function that stops serving.
 */
export function serveMethods(
  port: ServedPort,
  methods: Readonly<Record<string, Method>>,
  options: ServeOptions = {},
): () => void {
  const own = (name: string): Method | undefined => (Object.hasOwn(methods, name) ? methods[name] : undefined);
  const reply = (id: string, value: WireValue, transfer: Transferable[] = []) => {
    try {
      port.postMessage({ ...value, id } satisfies ReplyMessage, transfer);
    } catch {
      // The answer cannot be cloned or the port is closed: the caller is gone or asked for nonsense.
      if (value.type === 'RAW')
        reply(id, thrown(new InvalidArgumentError('result', 'The answer could not be sent to the tab.')));
    }
  };
  // This port's turn on the thread: its messages in order, and no port's backlog holds another's. A
  // port with more calls waiting than a tab ever has is a page flooding the broker: closed.
  const lane = (options.scheduler ?? threadScheduler()).lane(
    answer,
    () => {
      stop();
      port.close?.();
      options.onRelease?.();
    },
    options.group,
  );
  const stop = () => {
    port.removeEventListener('message', onMessage);
    lane.close();
  };
  const onMessage = (event: MessageEvent) => lane.push(event.data);

  function answer(data: unknown): void {
    const message = data as Partial<CallMessage> | null;
    if (typeof message !== 'object' || message === null) return;
    const id = message.id;
    // Without a usable id there is nobody to answer.
    if (typeof id !== 'string' || id === '' || id.length > MAX_CALL_ID_LENGTH) return;
    if (message.type === 'RELEASE') {
      reply(id, { type: 'RAW', value: undefined });
      stop();
      port.close?.();
      options.onRelease?.();
      return;
    }
    const call = readCall(message, own);
    if (call instanceof InvalidArgumentError) return reply(id, thrown(call));
    let result: unknown;
    try {
      result = call.method(...call.args);
    } catch (error) {
      return reply(id, thrown(error));
    }
    Promise.resolve(result).then(
      (value) =>
        reply(
          id,
          { type: 'RAW', value },
          value !== null && typeof value === 'object' ? (transfers.get(value) ?? []) : [],
        ),
      (error: unknown) => reply(id, thrown(error)),
    );
  }

  port.addEventListener('message', onMessage);
  port.start?.();
  return stop;
}

function readCall(
  message: Partial<CallMessage>,
  own: (name: string) => Method | undefined,
): { method: Method; args: unknown[] } | InvalidArgumentError {
  if (message.type !== 'APPLY') {
    return new InvalidArgumentError(
      'message.type',
      `Only method calls are answered, not ${JSON.stringify(String(message.type)).slice(0, 40)}.`,
    );
  }
  const path: unknown = message.path;
  if (!Array.isArray(path) || path.length !== 1 || typeof path[0] !== 'string') {
    return new InvalidArgumentError('message.path', 'A call names one method.');
  }
  const method = own(path[0]);
  if (method === undefined)
    return new InvalidArgumentError(
      'message.path',
      `The broker has no method ${JSON.stringify(path[0].slice(0, 100))}.`,
    );
  const list: unknown = (message as { argumentList?: unknown }).argumentList;
  if (!Array.isArray(list))
    return new InvalidArgumentError('message.argumentList', 'A call carries a list of arguments.');
  if (list.length > MAX_CALL_ARGUMENTS)
    return new InvalidArgumentError('arguments', `${path[0]}: no call takes ${list.length} arguments.`);
  const args: unknown[] = [];
  for (const wire of list as unknown[]) {
    // Only plain values: a "proxy" handler would hand the broker a callable into the caller.
    if (typeof wire !== 'object' || wire === null || (wire as WireValue).type !== 'RAW') {
      return new InvalidArgumentError('message.argumentList', `${path[0]}: arguments must be plain data.`);
    }
    args.push((wire as { value: unknown }).value);
  }
  return { method, args };
}

/** A thrown error as Comlink's "throw" handler carries it; ours keep their class, code and details. */
function thrown(error: unknown): WireValue {
  const value: ThrownValue =
    error instanceof AuthBrokerError
      ? { isError: true, value: { message: error.message, name: error.name }, authbroker: serializeError(error) }
      : { isError: true, value: { message: messageOf(error), name: error instanceof Error ? error.name : 'Error' } };
  return { type: 'HANDLER', name: 'throw', value };
}
