/**
 * Issue 26: with a broker running and the service gone (connection refused), a reloaded tab used to
 * show "online" until the broker's next request. Tabs arriving (or becoming visible) now have the
 * broker check once when its last word from the service is a few seconds old: the state is right
 * within CONTACT_FRESH_MILLIS, one check however many tabs arrive, and the same when the service returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import type { Broker } from '../../worker/broker.js';
import { CONTACT_FRESH_MILLIS } from '../../worker/connectivity/connectivity.js';
import type { ConnectivitySnapshot } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { EmulatorClock } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch } from './network.js';

const TABS = 6;
const opened: { emulators: RunningEmulator[]; brokers: Broker[]; tabs: SimulatedTab[] } = {
  emulators: [],
  brokers: [],
  tabs: [],
};

afterEach(async () => {
  for (const tab of opened.tabs.splice(0)) tab.close();
  for (const broker of opened.brokers.splice(0)) broker.close();
  await Promise.all(opened.emulators.splice(0).map((em) => em.stop().catch(() => undefined)));
});

async function emulatorOn(port = 0): Promise<RunningEmulator> {
  const em = await startEmulator({ port });
  opened.emulators.push(em);
  return em;
}

const stateOf = (tab: SimulatedTab) => (tab.latest('connectivity')?.data as ConnectivitySnapshot | undefined)?.state;

describe('tabs arriving while a broker runs', () => {
  it(`${TABS} reloaded tabs: the service gone is offline at once, back is online within CONTACT_FRESH_MILLIS, one check each time`, async () => {
    await resetIndexedDb();
    const em = await emulatorOn();
    // The broker's clock: the test moves it (no real waiting); the emulator's tokens follow it.
    const clock = new EmulatorClock(em.env.clock);
    const net = recordingFetch();
    const { broker, locks } = await startTestBroker(em, { clock, fetch: net.fetch });
    opened.brokers.push(broker);
    const open = async () => {
      const tab = await connectTab(broker, locks);
      opened.tabs.push(tab);
      await tab.subscribe('connectivity', { kind: 'connectivity' });
      return tab;
    };
    const first = await open();
    await first.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    expect(stateOf(first)).toBe('online');
    const checks = () => net.urls.filter((url) => url.endsWith('/health')).length;

    // The service goes away (its listener closed: connection refused); nothing is asked of it for a while.
    await em.stop();
    opened.emulators.splice(opened.emulators.indexOf(em), 1);
    await clock.advance(10_000);
    const before = checks();
    // Every tab but the first reloads: each connects and says it is visible.
    const reloaded = await Promise.all(Array.from({ length: TABS }, () => open()));
    await Promise.all(reloaded.map((tab) => tab.api.reportBrowserState({ online: true, visible: true })));
    await Promise.all(
      reloaded.map((tab) => tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline')),
    );
    expect(checks() - before).toBe(1);
    expect(stateOf(first)).toBe('offline');

    // The outage lasts: the broker's probes back off (1, 2, 4 s; the next is 8 s later). Each probe
    // is let settle before time moves on (a refused connection takes real time).
    const lastProbeAt = () => broker.parts.connectivity.snapshot().diagnostics?.checkedAtMillis;
    for (const step of [1000, 2000, 4000]) {
      const [probes, previous] = [checks(), lastProbeAt()];
      await clock.advance(step);
      await expect.poll(() => checks()).toBe(probes + 1);
      await expect.poll(lastProbeAt).not.toBe(previous);
    }
    expect(broker.parts.connectivity.snapshot().state).toBe('offline');
    // The service comes back on the same port; the next probe is still seconds away. Tabs that come
    // back into view have it checked at once, since the last check is older than CONTACT_FRESH_MILLIS.
    await emulatorOn(em.port);
    await clock.advance(CONTACT_FRESH_MILLIS);
    expect(broker.parts.connectivity.snapshot().state).toBe('offline');
    const beforeReturn = checks();
    await Promise.all(reloaded.map((tab) => tab.api.reportBrowserState({ visible: false })));
    await Promise.all(reloaded.map((tab) => tab.api.reportBrowserState({ visible: true })));
    await Promise.all(
      reloaded.map((tab) => tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'online')),
    );
    expect(checks() - beforeReturn).toBe(1);
  });
});
