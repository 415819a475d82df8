import * as Comlink from 'comlink';
import type { BrokerApi, BrokerEntry, Delivery, TabHello } from '../contract/api.js';
import { DELIVER, PING, PONG, type DeliverMessage, type PingMessage, type ThrownValue } from '../contract/wire.js';
import { deserializeError } from '../protocol/errors/serialize.js';

type ThrowHandler = Comlink.TransferHandler<{ value: unknown }, ThrownValue>;

let installed = false;

/**
 * Comlink flattens thrown errors into plain `Error`s. The broker sends ours with their code,
 * details and status; this makes them arrive as the same classes.
 */
export function installErrorTransfer(): void {
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

export interface PortConnection {
  api: BrokerApi;
  close(): void;
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
): Promise<PortConnection> {
  installErrorTransfer();
  const entry = Comlink.wrap<BrokerEntry>(entryPort);
  const { port1: listenerPort, port2: brokerSide } = new MessageChannel();
  listenerPort.addEventListener('message', (event: MessageEvent<DeliverMessage | PingMessage>) => {
    const message = event.data;
    if (message?.type === DELIVER && Array.isArray(message.batch)) deliver(message.batch);
    // The broker checks that this tab is still here (another page may have freed its lock).
    else if (message?.type === PING) listenerPort.postMessage({ type: PONG, id: message.id } satisfies PingMessage);
  });
  listenerPort.start();
  let apiPort: MessagePort;
  try {
    apiPort = await timeout(entry.connect(config, hello, Comlink.transfer(brokerSide, [brokerSide])));
  } catch (error) {
    listenerPort.close();
    throw error;
  }
  return {
    api: cachedMethods(Comlink.wrap<BrokerApi>(apiPort) as unknown as BrokerApi),
    close() {
      listenerPort.close();
      apiPort.close();
    },
  };
}
