import { vi } from 'vitest';
import { createBroker } from '../../worker/index.js';
import type { BrokerHostOptions } from '../../worker/hostOptions.js';
import { brokerRegistry } from '../../worker/hosts/brokerRegistry.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';

/**
 * SharedWorkers by name, as a browser keeps them: one instance per name, its broker made by the
 * first tab that connects. Names in `silent` are instances that take connections and never answer;
 * names in `broken` are scripts that fail to load (the worker fires `error` at once); names in
 * `slow` start that many ms after they are first asked for; names in `busy` (which the test may
 * change at any time) serve each new connection that many ms late (a broker busy with other work).
 * `host`: what every instance's brokers are made with (one `locks` stands for the origin's).
 */
export function sharedWorkers(
  silent: Set<string>,
  broken = new Set<string>(),
  slow = new Map<string, number>(),
  host: Omit<BrokerHostOptions, 'mode'> = {},
  busy = new Map<string, number>(),
) {
  const created: Array<{ name: string; port: MessagePort }> = [];
  const instances = new Map<string, ReturnType<typeof brokerRegistry>>();
  /** When each instance has started (a cold start of `slow`'s milliseconds for the names in it). */
  const started = new Map<string, Promise<void>>();

  class FakeSharedWorker extends EventTarget {
    readonly port: MessagePort;
    constructor(_url: unknown, options: { name: string }) {
      super();
      const { port1, port2 } = new MessageChannel();
      this.port = port1;
      vi.spyOn(this.port, 'close');
      created.push({ name: options.name, port: port1 });
      if (broken.has(options.name)) queueMicrotask(() => this.dispatchEvent(new Event('error')));
      if (silent.has(options.name) || broken.has(options.name)) return;
      let getBroker = instances.get(options.name);
      if (getBroker === undefined) {
        getBroker = brokerRegistry({
          create: (config) => createBroker(config, { mode: 'shared-worker', ...host }),
          locks: host.locks ?? null,
        });
        instances.set(options.name, getBroker);
        started.set(options.name, new Promise((resolve) => setTimeout(resolve, slow.get(options.name) ?? 0)));
      }
      const serve = getBroker;
      void started
        .get(options.name)!
        .then(() => new Promise((resolve) => setTimeout(resolve, busy.get(options.name) ?? 0)))
        .then(() => exposeBrokerEntry(serve, port2));
    }
  }
  vi.stubGlobal('SharedWorker', FakeSharedWorker);
  return created;
}
