import { afterEach, describe, expect, it, vi } from 'vitest';
import { workerName } from '../../client/connectOptions.js';
import { createBroker } from '../../worker/index.js';
import { brokerRegistry, MAX_BROKERS_PER_WORKER } from '../../worker/hosts/brokerRegistry.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { useEmulator } from '../support/emulator.js';
import { demoOptions, newClient, resetBrowser } from './react/helpers.js';

/**
 * Broker slots a page of the origin cannot squat (issue 39, item 1): the app's SharedWorker, named for its config,
 * serves no other; and a worker that serves any config (the service worker, a SharedWorker under a name of the app's
 * own choosing) and is full sends the tab to its next host rather than leaving it without a broker.
 */
const emulator = useEmulator();
afterEach(resetBrowser);

/** SharedWorkers by name, one instance per name, each serving as worker/hosts/sharedWorker.ts does (its name given). */
function namedSharedWorkers(): void {
  const instances = new Map<string, ReturnType<typeof brokerRegistry>>();
  class FakeSharedWorker extends EventTarget {
    readonly port: MessagePort;
    constructor(_url: unknown, options: { name: string }) {
      super();
      const { port1, port2 } = new MessageChannel();
      this.port = port1;
      let getBroker = instances.get(options.name);
      if (getBroker === undefined) {
        getBroker = brokerRegistry({
          create: (config) => createBroker(config, { mode: 'shared-worker', locks: null }),
          locks: null,
          workerName: options.name,
        });
        instances.set(options.name, getBroker);
      }
      exposeBrokerEntry(getBroker, port2);
    }
  }
  vi.stubGlobal('SharedWorker', FakeSharedWorker);
}

const madeUpProject = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('broker slots a page cannot squat', () => {
  it(`the app's worker, named for its config, refuses made-up configs at once; the app's tabs are served`, async () => {
    const em = emulator();
    namedSharedWorkers();
    const appWorker = workerName(demoOptions(em));
    // A page of the origin asks the app's worker (by its name) for brokers of made-up projects.
    const refusals: unknown[] = [];
    for (let i = 0; i < MAX_BROKERS_PER_WORKER; i++) {
      const squatter = newClient(em, {
        mode: 'shared-worker',
        projectId: madeUpProject(i),
        sharedWorker: () => new SharedWorker('/s.js', { name: appWorker }),
      });
      refusals.push(await squatter.connect().catch((error: unknown) => error));
    }
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ code: 'BROKER_UNAVAILABLE' });
      expect((refusal as Error).message).toMatch(/name binds it to another project or service/);
    }
    const app = newClient(em, { mode: 'auto', sharedWorker: '/s.js' });
    await app.connect();
    expect(app.mode).toBe('shared-worker');
    expect((await app.status()).tabsConnected).toBe(1);
  });

  it(`a worker under a name of the app's own choosing, filled with ${MAX_BROKERS_PER_WORKER} made-up configs: the app's tab goes to its next host`, async () => {
    const em = emulator();
    namedSharedWorkers();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const ownName = () => new SharedWorker('/s.js', { name: 'my-app-broker' });
    for (let i = 0; i < MAX_BROKERS_PER_WORKER; i++) {
      const squatter = newClient(em, { mode: 'shared-worker', projectId: madeUpProject(i), sharedWorker: ownName });
      await squatter.connect();
    }
    const app = newClient(em, { mode: 'auto', sharedWorker: ownName });
    await app.connect();
    // Before: refused with BROKER_UNAVAILABLE, no other host tried.
    expect(app.mode).toBe('in-process');
    expect(warn.mock.calls.map((call) => String(call[0]))).toContainEqual(
      expect.stringMatching(
        /in-process mode because a better host did not start: shared-worker: This worker already serves/,
      ),
    );
  });
});
