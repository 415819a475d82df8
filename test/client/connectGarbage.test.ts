// @vitest-environment node
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BrokerApi } from '../../contract/api.js';
import type { connectOverPort as ConnectOverPort } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import { exposeBrokerEntry, type ConnectableBroker } from '../../worker/rpc/brokerEntry.js';

/**
 * The WebKit reload stall (issue 24). Comlink releases a port (it sends RELEASE, and both ends close
 * the port) once the garbage collector has taken every proxy Comlink made for it. Right after a
 * reload WebKit collects garbage, and the tab's `connect` went through a proxy nobody held while the
 * answer was awaited: the entry port was closed under the pending call, and the page waited out the
 * whole connect timeout.
 *
 * V8 happens to keep that proxy alive, so a real collection here proves nothing. Instead the
 * finalization registry is replaced by one that lets the test "collect" everything registered so
 * far, as a collector may once nothing holds it: the connection must not depend on any object the
 * collector could take.
 */
const registered: Array<() => void> = [];
class CollectableRegistry<T> {
  constructor(private readonly cleanup: (held: T) => void) {}
  register(_target: object, held: T): void {
    registered.push(() => this.cleanup(held));
  }
  unregister(): boolean {
    return false;
  }
}

/** Everything registered so far is taken by the collector, and its finalizers run. */
async function collectEverything(): Promise<void> {
  for (const finalize of registered.splice(0)) finalize();
  await new Promise((resolve) => setTimeout(resolve, 20));
}

let connectOverPort: typeof ConnectOverPort;
beforeAll(async () => {
  vi.stubGlobal('FinalizationRegistry', CollectableRegistry);
  vi.resetModules();
  ({ connectOverPort } = await import('../../client/connect/rpc.js'));
  vi.unstubAllGlobals();
});

const opened: MessagePort[] = [];
afterEach(() => {
  for (const port of opened.splice(0)) port.close();
});

/** A broker that starts when told to, and whose API answers `status` with a fixed value. */
function slowBroker() {
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const broker: ConnectableBroker = {
    connectWithConfig: () =>
      ({ status: async () => ({ mode: 'shared-worker' }), goodbye: async () => undefined }) as unknown as BrokerApi,
  };
  return { getBroker: async () => (await started, broker), start };
}

function within<T>(promise: Promise<T>, millis: number): Promise<T | 'no answer'> {
  return Promise.race([promise, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), millis))]);
}

function connect(getBroker: () => Promise<ConnectableBroker>, tabId: string) {
  const { port1, port2 } = new MessageChannel();
  opened.push(port1, port2);
  exposeBrokerEntry(getBroker, port2);
  return connectOverPort(
    port1,
    { projectId: 'p' },
    { tabId, version: 'test' },
    () => undefined,
    (promise) => promise,
    tabErrors,
  );
}

describe('a tab connecting while the page collects garbage', () => {
  it('gets the answer of a broker that answers after the collection, and the connection works', async () => {
    const broker = slowBroker();
    const connecting = connect(broker.getBroker, 'tab-1');
    await collectEverything();
    broker.start();
    const connection = await within(connecting, 2000);
    expect(connection).not.toBe('no answer');
    if (connection === 'no answer') return;
    expect(await within(connection.api.status(), 2000)).toEqual({ mode: 'shared-worker' });
    connection.close();
  });

  it('twenty tabs at once, a collection while they wait: every one is answered', async () => {
    const broker = slowBroker();
    const connections = Array.from({ length: 20 }, (_, index) => connect(broker.getBroker, `tab-${index}`));
    await collectEverything();
    broker.start();
    const answered = await within(Promise.all(connections), 3000);
    expect(answered).not.toBe('no answer');
    if (answered !== 'no answer') for (const connection of answered) connection.close();
  });

  it('a broker that refuses the connection: the tab gets the typed error at once', async () => {
    const refusing: ConnectableBroker = {
      connectWithConfig: () => {
        throw Object.assign(new Error('wrong project'), { name: 'TypeError' });
      },
    };
    const outcome = await within(
      connect(async () => refusing, 'tab-x').then(
        () => 'connected',
        (error: Error) => `${error.name}: ${error.message}`,
      ),
      2000,
    );
    expect(outcome).toBe('TypeError: wrong project');
  });
});
