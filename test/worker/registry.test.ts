import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { brokerWorkerName } from '../../contract/brokerKey.js';
import { attemptWorkerName, isAttemptOf, STANDBY, WORKER_FULL } from '../../contract/wire.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import { BROKER_IDLE_MILLIS, brokerRegistry, MAX_BROKERS_PER_WORKER } from '../../worker/hosts/brokerRegistry.js';
import { ownerLockName } from '../../worker/storage/tokenStore.js';
import { brokerKeyOf } from '../../worker/config.js';
import { TAB_PING_TIMEOUT_MILLIS } from '../../worker/tabs/liveness.js';
import { demoSessionSlot, resetIndexedDb } from '../support/broker.js';
import { useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import { EmulatorClock, flush } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';

/**
 * A worker host's brokers (issue 32, item 2): freed after their last tab left, at most
 * MAX_BROKERS_PER_WORKER configs at once; and (item 5) a config whose tokens are kept in memory is
 * served by one instance of a worker host at a time.
 */
const emulator = useEmulator();
const opened: Array<{ close(): void }> = [];
beforeEach(resetIndexedDb);
afterEach(() => {
  for (const thing of opened.splice(0)) thing.close();
});

function demoConfig(extra: Record<string, unknown> = {}) {
  const { demo } = emulator().projects;
  return { baseUrl: emulator().url, projectId: demo.id, publishableClientKey: demo.publishableClientKey, ...extra };
}

/** One worker instance: its registry, on a clock the test moves, sharing `locks` (the origin's) with others. */
function workerInstance(locks: LocalLockManager, clock: EmulatorClock) {
  const made: Broker[] = [];
  const getBroker = brokerRegistry({
    create: async (config) => {
      const broker = await createBroker(config, { mode: 'shared-worker', locks, clock });
      made.push(broker);
      opened.push(broker);
      return broker;
    },
    locks,
    clock,
  });
  return { getBroker, made };
}

async function tabOn(
  getBroker: (config: unknown) => Promise<Broker | typeof STANDBY>,
  locks: LocalLockManager,
  config: unknown,
): Promise<SimulatedTab & { broker: Broker }> {
  const broker = await getBroker(config);
  if (broker === STANDBY) throw new Error('standby');
  const tab = await connectTab(broker, locks);
  opened.push(tab);
  return Object.assign(tab, { broker });
}

describe('a broker whose last tab left', () => {
  it(`is freed ${BROKER_IDLE_MILLIS} ms later: its lock, timers and storage go; a tab arriving meanwhile keeps it, one after gets a new broker with the session`, async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const { getBroker } = workerInstance(locks, clock);
    const first = await tabOn(getBroker, locks, demoConfig());
    await first.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    const brokerLock = `authbroker:broker:${first.broker.status().brokerId}`;
    expect(locks.isHeld(brokerLock)).toBe(true);

    // Its only tab reloads: the next one comes within the grace and finds the same broker.
    first.close();
    await vi.waitFor(() => expect(first.broker.parts.tabs.count).toBe(0), { interval: 1 });
    await clock.advance(BROKER_IDLE_MILLIS - 1000);
    const reloaded = await tabOn(getBroker, locks, demoConfig());
    expect(reloaded.broker).toBe(first.broker);
    await clock.advance(BROKER_IDLE_MILLIS * 2);
    expect(locks.isHeld(brokerLock)).toBe(true);

    // The last tab goes (closed: its lock freed, its port gone): the broker is closed once the grace is over, and holds
    // nothing.
    reloaded.close();
    // The broker learns of it by asking the tab once its lock is free, some macrotasks later; and the
    // emulator's clock also moves with real time meanwhile, hence the margin of 100 ms.
    await vi.waitFor(() => expect(reloaded.broker.parts.tabs.count).toBe(0), { interval: 1 });
    await clock.advance(BROKER_IDLE_MILLIS - 100);
    expect(locks.isHeld(brokerLock)).toBe(true);
    await clock.advance(100);
    await flush();
    expect(locks.query()).toEqual({ held: [], pending: [] });
    expect(clock.pending).toBe(0);

    // A later tab gets a new broker, signed in from storage.
    const later = await tabOn(getBroker, locks, demoConfig());
    expect(later.broker).not.toBe(first.broker);
    await later.api.signOut().catch(() => undefined);
    expect(later.broker.status().session).toMatchObject({ status: 'signed-out' });
    expect(await later.broker.parts.storage.loadSession(demoSessionSlot(emulator()))).toMatchObject({
      status: 'ended',
    });
  });

  it('a broker nobody connected to (its one tab refused) is freed too', async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const { getBroker, made } = workerInstance(locks, clock);
    const broker = (await getBroker(demoConfig())) as Broker;
    expect(() =>
      broker.connectWithConfig(demoConfig({ tokenMarginMillis: 1000 }), { version: '' }, { deliver: () => undefined }),
    ).toThrow(/tokenMarginMillis/);
    await clock.advance(BROKER_IDLE_MILLIS);
    expect(locks.query()).toEqual({ held: [], pending: [] });
    expect(made).toHaveLength(1);
  });
});

describe(`one worker serves at most ${MAX_BROKERS_PER_WORKER} configs`, () => {
  it('one more is refused with BROKER_UNAVAILABLE, saying why; a freed one makes room', async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const { getBroker, made } = workerInstance(locks, clock);
    // A page asking with a new project id each time (as the 600 connects did).
    const configs = Array.from({ length: MAX_BROKERS_PER_WORKER + 1 }, (_, i) =>
      demoConfig({ projectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }),
    );
    const tabs = [];
    for (const config of configs.slice(0, -1)) tabs.push(await tabOn(getBroker, locks, config));
    const refused = await getBroker(configs.at(-1)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientError);
    expect(refused).toMatchObject({ code: 'BROKER_UNAVAILABLE' });
    expect((refused as Error).message).toMatch(
      new RegExp(`already serves ${MAX_BROKERS_PER_WORKER} projects or services`),
    );
    expect(made).toHaveLength(MAX_BROKERS_PER_WORKER);
    expect(locks.query().held.filter((name) => name.startsWith('authbroker:broker:'))).toHaveLength(
      MAX_BROKERS_PER_WORKER,
    );

    // The page closes: its brokers go, and the worker serves others again.
    for (const tab of tabs) tab.close();
    await clock.advance(TAB_PING_TIMEOUT_MILLIS + BROKER_IDLE_MILLIS);
    expect(locks.query()).toEqual({ held: [], pending: [] });
    await expect(tabOn(getBroker, locks, configs.at(-1))).resolves.toBeDefined();
  });
});

describe('a SharedWorker named for a config serves only that one (issue 39, item 1)', () => {
  /** An instance of the SharedWorker host under `name`, as worker/hosts/sharedWorker.ts makes it. */
  function namedInstance(locks: LocalLockManager, clock: EmulatorClock, name: string) {
    const made: Broker[] = [];
    const getBroker = brokerRegistry({
      create: async (config) => {
        const broker = await createBroker(config, { mode: 'shared-worker', locks, clock });
        made.push(broker);
        opened.push(broker);
        return broker;
      },
      locks,
      clock,
      workerName: name,
    });
    return { getBroker, made };
  }
  const madeUp = (i: number) => demoConfig({ projectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` });

  it("any other config is refused at once, taking no slot, under its name and its retries' names; the app is served", async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const appKey = brokerKeyOf(demoConfig());
    for (const name of [brokerWorkerName(appKey), attemptWorkerName(brokerWorkerName(appKey), 2)]) {
      const { getBroker, made } = namedInstance(locks, clock, name);
      for (let i = 0; i < MAX_BROKERS_PER_WORKER + 2; i++) {
        const refused = await getBroker(madeUp(i)).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ClientError);
        expect(refused).toMatchObject({ code: 'BROKER_UNAVAILABLE' });
        expect((refused as Error).message).toMatch(/name binds it to another project or service/);
      }
      // Another token store is another config: refused too.
      await expect(getBroker(demoConfig({ tokenStore: 'memory' }))).rejects.toMatchObject({
        code: 'BROKER_UNAVAILABLE',
      });
      expect(made).toHaveLength(0);
      const app = await tabOn(getBroker, locks, demoConfig());
      expect(app.broker.status().tabsConnected).toBe(1);
      expect(made).toHaveLength(1);
    }
  });

  it(`a name of the app's own binds to nothing: up to ${MAX_BROKERS_PER_WORKER} configs, the next refused as full`, async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const { getBroker, made } = namedInstance(locks, clock, 'my-app-broker');
    for (let i = 0; i < MAX_BROKERS_PER_WORKER; i++) await tabOn(getBroker, locks, madeUp(i));
    const refused = await getBroker(demoConfig()).catch((error: unknown) => error);
    expect((refused as Error).message).toMatch(new RegExp(`^${WORKER_FULL}`));
    expect(made).toHaveLength(MAX_BROKERS_PER_WORKER);
  });

  it('a name binds the worker to the key it was made from, under any retry, whatever that key ends with', () => {
    const key = brokerKeyOf(demoConfig({ baseUrl: `${emulator().url}/#2` }));
    const first = brokerWorkerName(key);
    expect(isAttemptOf(first, first)).toBe(true);
    expect(isAttemptOf(attemptWorkerName(first, 1), first)).toBe(true);
    expect(isAttemptOf(attemptWorkerName(first, 11), first)).toBe(true);
    expect(isAttemptOf(first, brokerWorkerName(brokerKeyOf(demoConfig())))).toBe(false);
    expect(isAttemptOf(`${first}#0`, first)).toBe(false);
    expect(isAttemptOf(`${first}#x`, first)).toBe(false);
  });
});

describe('a config whose tokens are kept in memory: one instance of a worker host serves it', () => {
  it('a second instance (a retry under another SharedWorker name) answers STANDBY while the first holds the session, and serves once it is gone', async () => {
    const locks = new LocalLockManager();
    const clock = new EmulatorClock(emulator().env.clock);
    const first = workerInstance(locks, clock);
    const second = workerInstance(locks, clock);
    const memory = demoConfig({ tokenStore: 'memory' });
    const tab = await tabOn(first.getBroker, locks, memory);
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    expect(locks.isHeld(ownerLockName(brokerKeyOf({ ...memory, tokenStore: 'memory' })))).toBe(true);
    expect(await second.getBroker(memory)).toBe(STANDBY);
    expect(second.made).toHaveLength(0);
    // A stolen owner lock comes back to its broker: a second instance never gets it meanwhile for good.
    await locks.request(
      ownerLockName(brokerKeyOf({ ...memory, tokenStore: 'memory' })),
      { steal: true },
      () => undefined,
    );
    await flush();
    expect(await second.getBroker(memory)).toBe(STANDBY);
    // Stores of the other kind are not concerned: they share the session through storage.
    expect(await second.getBroker(demoConfig())).not.toBe(STANDBY);

    await tab.api.goodbye();
    await clock.advance(BROKER_IDLE_MILLIS);
    const next = await tabOn(second.getBroker, locks, memory);
    expect(next.broker.status().session).toMatchObject({ status: 'signed-out' });
  });
});
