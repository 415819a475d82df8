import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { candidateModes, createBrokerClient, detectCapabilities, type Capabilities } from '../../client/index.js';
import { workerName } from '../../client/connectOptions.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import { brokerRegistry } from '../../worker/hosts/brokerRegistry.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { useEmulator } from '../support/emulator.js';
import { createUser, demoOptions, newClient, resetBrowser } from './react/helpers.js';

/** Lets one test make the in-page host fail too, to see what happens when nothing starts. */
const inProcess = vi.hoisted(() => ({ fail: false }));
vi.mock('../../worker/hosts/inProcess.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../worker/hosts/inProcess.js')>();
  return {
    ...original,
    createInProcessBroker: (...args: Parameters<typeof original.createInProcessBroker>) =>
      inProcess.fail
        ? Promise.reject(new Error('the page cannot host a broker either'))
        : original.createInProcessBroker(...args),
  };
});

const emulator = useEmulator();
beforeEach(() => {
  inProcess.fail = false;
});
afterEach(async () => {
  delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  await resetBrowser();
});

const everything: Capabilities = {
  sharedWorker: true,
  serviceWorker: true,
  secureContext: true,
  sharedWorkerScript: true,
  serviceWorkerScript: true,
};

describe('candidateModes: the hosts to try, best first, the page always last', () => {
  it.each([
    ['everything available', {}, ['shared-worker', 'service-worker', 'in-process']],
    ['no SharedWorker (older Android Chrome, WebViews)', { sharedWorker: false }, ['service-worker', 'in-process']],
    ['no service worker', { serviceWorker: false }, ['shared-worker', 'in-process']],
    ['an insecure context (no service worker there)', { secureContext: false }, ['shared-worker', 'in-process']],
    ['no SharedWorker and an insecure context', { sharedWorker: false, secureContext: false }, ['in-process']],
    ['neither worker', { sharedWorker: false, serviceWorker: false }, ['in-process']],
    ['no SharedWorker script configured', { sharedWorkerScript: false }, ['service-worker', 'in-process']],
    ['no service worker script configured', { serviceWorkerScript: false }, ['shared-worker', 'in-process']],
    ['no scripts configured at all', { sharedWorkerScript: false, serviceWorkerScript: false }, ['in-process']],
  ] as const)('%s', (_, missing, expected) => {
    expect(candidateModes({ ...everything, ...missing })).toEqual(expected);
    expect(candidateModes({ ...everything, ...missing }, 'auto')).toEqual(expected);
  });

  it('a forced host is the only one tried, whatever the page has (no silent fallback)', () => {
    const nothing: Capabilities = {
      sharedWorker: false,
      serviceWorker: false,
      secureContext: false,
      sharedWorkerScript: false,
      serviceWorkerScript: false,
    };
    for (const capabilities of [everything, nothing]) {
      expect(candidateModes(capabilities, 'shared-worker')).toEqual(['shared-worker']);
      expect(candidateModes(capabilities, 'service-worker')).toEqual(['service-worker']);
      expect(candidateModes(capabilities, 'in-process')).toEqual(['in-process']);
    }
  });
});

describe('detectCapabilities', () => {
  it('jsdom has neither worker, and is not a secure context', () => {
    expect(detectCapabilities({})).toEqual({
      sharedWorker: false,
      serviceWorker: false,
      secureContext: false,
      sharedWorkerScript: false,
      serviceWorkerScript: false,
    });
  });

  it('sees SharedWorker, navigator.serviceWorker, isSecureContext and the configured scripts', () => {
    vi.stubGlobal('SharedWorker', class {});
    vi.stubGlobal('isSecureContext', true);
    Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: {} });
    expect(detectCapabilities({ sharedWorker: '/sw.js', serviceWorker: '/service-worker.js' })).toEqual(everything);
    expect(detectCapabilities({ sharedWorker: () => ({}) as SharedWorker })).toEqual({
      ...everything,
      serviceWorkerScript: false,
    });
  });
});

/** A SharedWorker that starts but never answers: its port leads nowhere. */
function silentSharedWorker() {
  const created: Array<{ url: unknown; options: unknown; port: MessagePort }> = [];
  class SilentSharedWorker extends EventTarget {
    readonly port: MessagePort;
    constructor(url: unknown, options: unknown) {
      super();
      this.port = new MessageChannel().port1;
      vi.spyOn(this.port, 'close');
      created.push({ url, options, port: this.port });
    }
  }
  vi.stubGlobal('SharedWorker', SilentSharedWorker);
  return created;
}

/** A secure page with a service worker container whose registration fails or never activates. */
function serviceWorkerContainer(register: (url: string) => Promise<unknown>) {
  vi.stubGlobal('isSecureContext', true);
  const container = {
    controller: null,
    register: vi.fn(register),
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  };
  Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: container });
  return container;
}

const TIMEOUT = 150;

/**
 * A service worker as the page sees it, hosting a real broker (as `installAuthBroker` does).
 * `replace()` stops it the way a new deploy does: its broker dies at once, its state turns
 * `redundant` a little later.
 */
function hostingServiceWorker() {
  const brokers: Broker[] = [];
  const getBroker = brokerRegistry({
    create: async (config) => {
      const broker = await createBroker(config, { mode: 'service-worker' });
      brokers.push(broker);
      return broker;
    },
    locks: null,
  });
  const worker = Object.assign(new EventTarget(), {
    state: 'activated' as ServiceWorkerState,
    scriptURL: '/service-worker.js',
    postMessage(message: { type?: string }, transfer?: Transferable[]) {
      const port = transfer?.[0];
      if (message.type === 'authbroker:connect' && port instanceof MessagePort) exposeBrokerEntry(getBroker, port);
    },
    replace() {
      for (const broker of brokers) broker.close();
      setTimeout(() => {
        worker.state = 'redundant';
        worker.dispatchEvent(new Event('statechange'));
      }, 50);
    },
    stop() {
      for (const broker of brokers) broker.close();
    },
  });
  return worker;
}

async function expectWorkingInProcess(client: ReturnType<typeof createBrokerClient>) {
  expect(client.mode).toBe('in-process');
  const project = await client.read({ kind: 'project' });
  expect(project.displayName).toBe('Authbroker Demo');
  const account = await createUser(emulator());
  await expect(client.signInWithPassword({ email: account.email, password: account.password })).resolves.toMatchObject({
    status: 'signed-in',
    userId: account.id,
  });
  expect((await client.read({ kind: 'currentUser' }))?.primaryEmail).toBe(account.email);
}

describe('createBrokerClient falls back for real', () => {
  it('a SharedWorker that never answers: waits connectTimeoutMillis, closes its port, then hosts the broker in the page', async () => {
    const created = silentSharedWorker();
    const em = emulator();
    const client = newClient(em, {
      mode: 'auto',
      sharedWorker: '/authbroker-shared-worker.js',
      connectTimeoutMillis: TIMEOUT,
    });
    const started = performance.now();
    await client.connect();
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(created).toHaveLength(1);
    expect(created[0]!.url).toBe('/authbroker-shared-worker.js');
    expect(created[0]!.options).toEqual({ type: 'module', name: workerName(demoOptions(em)) });
    expect(created[0]!.port.close).toHaveBeenCalled();
    await expectWorkingInProcess(client);
  });

  it('a SharedWorker factory that throws (blocked by policy): falls back at once', async () => {
    const factory = vi.fn((_name: string): SharedWorker => {
      throw new DOMException('Blocked by Content-Security-Policy', 'SecurityError');
    });
    vi.stubGlobal('SharedWorker', class {});
    const em = emulator();
    const client = newClient(em, { mode: 'auto', sharedWorker: factory, connectTimeoutMillis: 5000 });
    const started = performance.now();
    await client.connect();
    // Well before the 5 s connect timeout that a waited-out attempt would have taken.
    expect(performance.now() - started).toBeLessThan(4000);
    expect(factory).toHaveBeenCalledWith(workerName(demoOptions(em)));
    await expectWorkingInProcess(client);
  });

  it('no SharedWorker, a service worker whose registration fails: the page hosts the broker', async () => {
    const container = serviceWorkerContainer(() =>
      Promise.reject(new DOMException('Registration failed', 'SecurityError')),
    );
    const client = newClient(emulator(), {
      mode: 'auto',
      sharedWorker: '/shared.js',
      serviceWorker: '/service-worker.js',
      connectTimeoutMillis: TIMEOUT,
    });
    await client.connect();
    expect(container.register).toHaveBeenCalledTimes(1);
    expect(String(container.register.mock.calls[0]![0])).toBe('/service-worker.js');
    await expectWorkingInProcess(client);
  });

  it('a service worker that registers but never becomes active: falls back after the timeout', async () => {
    const stuck = { state: 'installing', scriptURL: '/service-worker.js', addEventListener: () => undefined };
    const registration = {
      installing: stuck,
      waiting: null,
      active: null,
      addEventListener: () => undefined,
      update: () => Promise.resolve(),
    };
    const container = serviceWorkerContainer(async () => registration);
    const client = newClient(emulator(), {
      mode: 'auto',
      serviceWorker: '/service-worker.js',
      connectTimeoutMillis: TIMEOUT,
    });
    const started = performance.now();
    await client.connect();
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(container.register).toHaveBeenCalledTimes(1);
    await expectWorkingInProcess(client);
  });

  it('a registration left with no worker (its install failed): falls back at once, without waiting for the timeout', async () => {
    const registration = {
      installing: null,
      waiting: null,
      active: null,
      addEventListener: () => undefined,
      update: () => Promise.resolve(),
    };
    serviceWorkerContainer(async () => registration);
    const client = newClient(emulator(), {
      mode: 'auto',
      serviceWorker: '/service-worker.js',
      connectTimeoutMillis: 60_000,
    });
    await client.connect();
    await expectWorkingInProcess(client);
  });

  it('a service worker replaced by a new deploy: the client moves to the new one, signed in and subscribed; a call in flight that changes nothing is answered there, one that changes something fails with BROKER_UNAVAILABLE', async () => {
    let active = hostingServiceWorker();
    const first = active;
    const registration = {
      installing: null,
      waiting: null,
      get active() {
        return active;
      },
      addEventListener: () => undefined,
      update: () => Promise.resolve(),
    };
    serviceWorkerContainer(async () => registration);
    const em = emulator();
    const client = newClient(em, { mode: 'service-worker', serviceWorker: '/service-worker.js' });
    await client.connect();
    expect(client.mode).toBe('service-worker');
    const account = await createUser(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    const before = (await client.status()).brokerId;
    const onScreen = { kind: 'currentUser' } as const;
    const unsubscribe = client.subscribe(onScreen, () => undefined);
    await vi.waitFor(() => expect(client.getSnapshot(onScreen)?.status).toBe('success'));

    active = hostingServiceWorker();
    first.replace();
    // Once the old broker's ports are shut (it closes them a task after it stops), nothing answers.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const readInFlight = client.status();
    const changeInFlight = client.updateUser({ displayName: 'Sent to the old broker' });
    await expect(changeInFlight).rejects.toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    // Asked again of the new broker, which answers it.
    expect((await readInFlight).brokerId).not.toBe(before);

    expect((await client.status()).brokerId).not.toBe(before);
    expect(client.mode).toBe('service-worker');
    expect((await client.status()).session).toMatchObject({ status: 'signed-in', userId: account.id });
    // What the tab watches is subscribed on the new broker.
    await client.updateUser({ displayName: 'After the deploy' });
    await vi.waitFor(() =>
      expect((client.getSnapshot(onScreen)?.data as { displayName?: string } | null)?.displayName).toBe(
        'After the deploy',
      ),
    );
    unsubscribe();
    client.close();
    active.stop();
  });

  it('an insecure context never registers the service worker', async () => {
    const container = serviceWorkerContainer(() => Promise.reject(new Error('must not be called')));
    vi.stubGlobal('isSecureContext', false);
    const client = newClient(emulator(), { mode: 'auto', serviceWorker: '/service-worker.js' });
    await client.connect();
    expect(container.register).not.toHaveBeenCalled();
    expect(client.mode).toBe('in-process');
  });

  it('forcing shared-worker where there is none is an error naming why, never a quiet fallback to the page', async () => {
    const client = newClient(emulator(), { mode: 'shared-worker', sharedWorker: '/shared.js' });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/shared-worker mode you asked for.*This browser has no SharedWorker/);
    expect(client.mode).toBeNull();
  });

  it('forcing service-worker whose registration fails is an error naming why; nothing else is tried', async () => {
    const container = serviceWorkerContainer(() =>
      Promise.reject(new DOMException('Registration failed: the script threw', 'SecurityError')),
    );
    const client = newClient(emulator(), {
      mode: 'service-worker',
      serviceWorker: '/service-worker.js',
      connectTimeoutMillis: TIMEOUT,
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(
      /service-worker mode you asked for.*could not be registered: .*Registration failed: the script threw/,
    );
    expect(container.register).toHaveBeenCalledTimes(1);
    expect(client.mode).toBeNull();
  });

  it('forcing service-worker whose script answers 404 is an error naming the script and the status, before registering', async () => {
    const container = serviceWorkerContainer(() => Promise.reject(new Error('never asked')));
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) =>
      String(input).endsWith('/missing-service-worker.js')
        ? new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } })
        : realFetch(input, init),
    );
    const client = newClient(emulator(), {
      mode: 'service-worker',
      serviceWorker: '/missing-service-worker.js',
      connectTimeoutMillis: TIMEOUT,
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(
      /service-worker mode you asked for.*script http:\/\/localhost:3000\/missing-service-worker\.js answered HTTP 404/,
    );
    expect(container.register).not.toHaveBeenCalled();
    expect(client.mode).toBeNull();
  });

  it('an automatic fallback leaves a warning in the broker status (and the console)', async () => {
    silentSharedWorker();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = newClient(emulator(), { mode: 'auto', sharedWorker: '/shared.js', connectTimeoutMillis: TIMEOUT });
    await client.connect();
    expect(client.mode).toBe('in-process');
    expect((await client.status()).warnings.join(' ')).toMatch(
      /runs in in-process mode because a better host did not start: shared-worker: .*did not answer/,
    );
    // One console line per fallback, however many parts of the client and broker know about it.
    expect(warn.mock.calls.filter(([line]) => String(line).includes('better host did not start'))).toHaveLength(1);
  });

  it('when no host starts, BROKER_UNAVAILABLE names every failure, and a later call tries again', async () => {
    silentSharedWorker();
    inProcess.fail = true;
    const client = newClient(emulator(), { mode: 'auto', sharedWorker: '/shared.js', connectTimeoutMillis: TIMEOUT });
    const error = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(
      /shared-worker: .*did not answer within 150 ms.*in-process: the page cannot host a broker either/,
    );
    expect(client.mode).toBeNull();
    inProcess.fail = false;
    await client.connect();
    expect(client.mode).toBe('in-process');
  });
});
