import * as Comlink from 'comlink';
import type { BrokerApi, Delivery, TabHello } from '../../contract/api.js';
import {
  DELIVER,
  PING,
  PONG,
  STANDBY,
  type CallMessage,
  type DeliverMessage,
  type PingMessage,
  type ReplyMessage,
  type ThrownValue,
} from '../../contract/wire.js';
import type { TabErrors } from './brokerChannel.js';
import { callWindow } from './callWindow.js';

type ThrowHandler = Comlink.TransferHandler<{ value: unknown }, ThrownValue>;

let installed = false;

/**
 * Comlink flattens thrown errors into plain `Error`s. The broker sends ours with their code,
 * details and status; this makes them arrive as the same classes (the tab's `deserializeError`,
 * handed over by the main chunk: see `TabErrors`).
 */
export function installErrorTransfer({ deserializeError }: Pick<TabErrors, 'deserializeError'>): void {
  if (installed) return;
  installed = true;
  const original = Comlink.transferHandlers.get('throw') as ThrowHandler;
  const handler: ThrowHandler = {
    canHandle: (value): value is { value: unknown } => original.canHandle(value),
    serialize: (thrown) => original.serialize(thrown),
    deserialize(serialized) {
      if (serialized.authbroker !== undefined) throw deserializeError(serialized.authbroker);
      return original.deserialize(serialized);
    },
  };
  Comlink.transferHandlers.set('throw', handler as Comlink.TransferHandler<unknown, unknown>);
}

/**
 * The remote API with each method looked up once: every property read on a Comlink proxy builds a
 * new proxy (and registers it for finalization), which a tab would otherwise pay on every call.
 */
function cachedMethods(remote: BrokerApi): BrokerApi {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(remote, {
    get(target, name) {
      // Not a thenable: the API is itself the value of a promise.
      if (name === 'then') return undefined;
      let method = methods.get(name);
      if (method === undefined) methods.set(name, (method = target[name as keyof BrokerApi]));
      return method;
    },
  });
}

/**
 * The API port as Comlink's endpoint, with the tab's calls going out through a `CallWindow`. A call
 * that waited its turn and then cannot be sent (its arguments do not clone) is answered on the port
 * with that error: Comlink is no longer there to catch it.
 */
function windowedEndpoint(port: MessagePort): Comlink.Endpoint {
  const window = callWindow();
  port.addEventListener('message', (event: MessageEvent<Partial<ReplyMessage> | null>) => {
    const id = event.data?.id;
    if (typeof id === 'string') window.answered(id);
  });
  const answerWithError = (id: string, error: unknown) => {
    const value: ThrownValue = {
      isError: true,
      value: {
        message: error instanceof Error ? error.message : String(error),
        name: error instanceof Error ? error.name : 'Error',
      },
    };
    port.dispatchEvent(
      new MessageEvent('message', { data: { id, type: 'HANDLER', name: 'throw', value } satisfies ReplyMessage }),
    );
  };
  return {
    postMessage(message: unknown, transfer: Transferable[] = []) {
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') return port.postMessage(message, transfer);
      let late = false;
      window.send(id, () => {
        // Sent at once: a refusal is thrown to Comlink, as without the window.
        if (!late) return (port.postMessage(message, transfer), true);
        try {
          port.postMessage(message, transfer);
          return true;
        } catch (error) {
          answerWithError(id, error);
          return false;
        }
      });
      late = true;
    },
    addEventListener: (type, listener) => port.addEventListener(type, listener),
    removeEventListener: (type, listener) => port.removeEventListener(type, listener),
    start: () => port.start(),
  };
}

export interface PortConnection {
  api: BrokerApi;
  close(): void;
}

/** Errors a broker answered `connect` with: it is there, and refused this tab (see `isRefusal`). */
const refusals = new WeakSet<object>();
/** Worker instances that answered `STANDBY`: another instance serves this config (see `isStandby`). */
const standbys = new WeakSet<object>();

/**
 * Whether a failure to connect is a worker's `STANDBY` (contract/wire.ts): the instance that serves this config is
 * another.
 */
export function isStandby(error: unknown): boolean {
  return typeof error === 'object' && error !== null && standbys.has(error);
}

/**
 * Whether a failure to connect is a broker's answer (its options differ from this tab's, its worker
 * serves as many configs as it may), rather than a host that did not start or answer: another host
 * would only hide it, and split the tabs of one config between brokers.
 */
export function isRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && refusals.has(error);
}

/** Marks an error as a refusal (`isRefusal`), and returns it. */
export function refusal<E extends object>(error: E): E {
  refusals.add(error);
  return error;
}

/** What a `throw` answer carries, as the tab's callers should see it (our classes for our errors). */
function thrownError(value: unknown, { deserializeError }: TabErrors): unknown {
  const thrown = value as Partial<ThrownValue> | null;
  if (thrown?.authbroker !== undefined) return deserializeError(thrown.authbroker);
  const inner = thrown?.value as { message?: unknown; name?: unknown } | undefined;
  return Object.assign(
    new Error(typeof inner?.message === 'string' ? inner.message : 'The broker refused the connection.'),
    typeof inner?.name === 'string' ? { name: inner.name } : {},
  );
}

/**
 * Asks a broker's entry to connect this tab: one APPLY of `connect` in the broker's wire format and
 * its answer, matched by id. Not through a Comlink proxy: Comlink releases a port once every proxy
 * it made for that port has been garbage collected (it sends RELEASE, and both ends close the port),
 * and nothing holds the entry's proxy while its answer is awaited. A page that collected garbage
 * in that window (WebKit does, right after a reload) had the entry port closed under the pending
 * call, and the answer was lost. This request owns its listener and holds nothing the collector
 * could release.
 */
function requestConnect(
  entryPort: MessagePort,
  config: unknown,
  hello: TabHello,
  listenerPort: MessagePort,
  errors: TabErrors,
): { answer: Promise<MessagePort>; abandon(): void } {
  const id = `connect-${crypto.randomUUID()}`;
  let onMessage: (event: MessageEvent<ReplyMessage | null>) => void = () => undefined;
  const answer = new Promise<MessagePort>((resolve, reject) => {
    onMessage = (event) => {
      const reply = event.data;
      if (reply?.id !== id) return;
      entryPort.removeEventListener('message', onMessage);
      if (reply.type === 'RAW' && reply.value instanceof MessagePort) resolve(reply.value);
      else if (reply.type === 'RAW' && reply.value === STANDBY) {
        const standby = new errors.ClientError(
          'BROKER_UNAVAILABLE',
          'Another instance of the broker serves this project (its tokens are kept in memory).',
        );
        standbys.add(standby);
        reject(standby);
      } else if (reply.type === 'HANDLER' && reply.name === 'throw') {
        const refused = thrownError(reply.value, errors);
        reject(typeof refused === 'object' && refused !== null ? refusal(refused) : refused);
      } else reject(new errors.ProtocolError('The broker answered connect with something that is not a port.'));
    };
  });
  entryPort.addEventListener('message', onMessage);
  entryPort.start();
  const call: CallMessage = {
    id,
    type: 'APPLY',
    path: ['connect'],
    argumentList: [config, hello, listenerPort].map((value) => ({ type: 'RAW', value }) as const),
  };
  entryPort.postMessage(call, [listenerPort]);
  return { answer, abandon: () => entryPort.removeEventListener('message', onMessage) };
}

/**
 * Connects over a broker's entry port: sends `connect` with a port on which the broker delivers
 * this tab's updates, and gets back a port serving this tab's API. Both are owned here.
 */
export async function connectOverPort(
  entryPort: MessagePort,
  config: unknown,
  hello: TabHello,
  deliver: (batch: Delivery) => void,
  timeout: <T>(promise: Promise<T>) => Promise<T>,
  errors: TabErrors,
): Promise<PortConnection> {
  installErrorTransfer(errors);
  const { port1: listenerPort, port2: brokerSide } = new MessageChannel();
  listenerPort.addEventListener('message', (event: MessageEvent<DeliverMessage | PingMessage>) => {
    const message = event.data;
    if (message?.type === DELIVER && Array.isArray(message.batch)) deliver(message.batch);
    // The broker checks that this tab is still here (another page may have freed its lock).
    else if (message?.type === PING) listenerPort.postMessage({ type: PONG, id: message.id } satisfies PingMessage);
  });
  listenerPort.start();
  const request = requestConnect(entryPort, config, hello, brokerSide, errors);
  let apiPort: MessagePort;
  try {
    apiPort = await timeout(request.answer);
  } catch (error) {
    request.abandon();
    listenerPort.close();
    throw error;
  }
  return {
    api: cachedMethods(Comlink.wrap<BrokerApi>(windowedEndpoint(apiPort)) as unknown as BrokerApi),
    close() {
      listenerPort.close();
      apiPort.close();
    },
  };
}
