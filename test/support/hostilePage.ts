import * as Comlink from 'comlink';
import { afterEach } from 'vitest';
import { installErrorTransfer } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import type { BrokerApi, BrokerEntry } from '../../contract/api.js';
import type { Broker } from '../../worker/broker.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';

/**
 * A hostile page's means against the broker, in Node: connections of its own, spoken by hand, with
 * whatever hello it likes and a listener port it keeps open but never answers on. Each test's are
 * closed after it.
 */
export function useHandMadeConnections() {
  const closers: Array<() => void> = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  return {
    async connect(broker: Broker, hello: Record<string, unknown>): Promise<BrokerApi> {
      installErrorTransfer(tabErrors);
      const entryPorts = new MessageChannel();
      exposeBrokerEntry(async () => broker, entryPorts.port2);
      const listener = new MessageChannel();
      const entry = Comlink.wrap<BrokerEntry>(entryPorts.port1);
      const apiPort = await entry.connect(
        broker.config,
        { version: '', tabId: crypto.randomUUID(), ...hello } as never,
        Comlink.transfer(listener.port2, [listener.port2]),
      );
      if (!(apiPort instanceof MessagePort)) throw new Error(`connect answered ${String(apiPort)}`);
      closers.push(() => {
        entryPorts.port1.close();
        listener.port1.close();
        apiPort.close();
      });
      return Comlink.wrap<BrokerApi>(apiPort) as unknown as BrokerApi;
    },
    /** Something else the test opened, closed after it. */
    track(close: () => void): void {
      closers.push(close);
    },
  };
}

/** What a call answered within a second, or 'no answer' (a released tab's calls hang: its ports are closed). */
export async function answered<T>(call: Promise<T>): Promise<T | 'no answer'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silence = new Promise<'no answer'>((resolve) => (timer = setTimeout(() => resolve('no answer'), 1000)));
  try {
    return await Promise.race([call, silence]);
  } finally {
    clearTimeout(timer);
  }
}
