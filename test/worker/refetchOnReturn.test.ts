import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServerApp } from '../../protocol/server.js';
import type { Broker } from '../../worker/broker.js';
import { RETURN_REFETCH_INTERVAL_MILLIS } from '../../worker/cache/refetchOnReturn.js';
import type { User } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { useEmulator } from '../support/emulator.js';
import { EmulatorClock } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch, type RecordingFetch } from './network.js';

const emulator = useEmulator();
let broker: Broker;
let tabs: SimulatedTab[] = [];

let locks: Awaited<ReturnType<typeof startTestBroker>>['locks'];
/** The broker's timers (the 300 ms refetch throttle among them) run only when the test moves this clock. */
let clock: EmulatorClock;
let net: RecordingFetch;

async function tab(): Promise<SimulatedTab> {
  const t = await connectTab(broker, locks);
  tabs.push(t);
  return t;
}

async function start(options: { refetchOnReturn?: boolean } = {}): Promise<[SimulatedTab, SimulatedTab]> {
  clock = new EmulatorClock(emulator().env.clock);
  net = recordingFetch();
  ({ broker, locks } = await startTestBroker(emulator(), { ...options, clock, fetch: net.fetch }));
  return [await tab(), await tab()];
}

beforeEach(resetIndexedDb);
afterEach(() => {
  for (const tab of tabs) tab.close();
  tabs = [];
  broker.close();
});

/** GET /users/me calls the broker started (counted when it calls fetch, so nothing is missed by looking early). */
const usersMeReads = () => net.attempts.filter((a) => a.method === 'GET' && a.call === '/users/me').length;

/** Somebody else (an admin, a server job) renames the user: no tab hears of it. */
async function renameElsewhere(userId: string, displayName: string) {
  const { demo } = emulator().projects;
  const server = createServerApp({
    baseUrl: emulator().url,
    projectId: demo.id,
    secretServerKey: demo.secretServerKey,
  });
  await server.updateUser(userId, { displayName });
}

async function signedInWatching(a: SimulatedTab, b: SimulatedTab): Promise<User> {
  await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
  await b.subscribe('user', { kind: 'currentUser' });
  const seen = await b.waitFor('user', (s) => s.status === 'success' && s.data !== null);
  // Both tabs are on screen, then b goes to the background.
  await a.api.reportBrowserState({ visible: true, online: true });
  await b.api.reportBrowserState({ visible: true, online: true });
  await b.api.reportBrowserState({ visible: false });
  return seen.data as User;
}

describe('refetch on return', () => {
  it('a hidden tab that becomes visible again sees changes made elsewhere meanwhile', async () => {
    const [a, b] = await start();
    const user = await signedInWatching(a, b);
    await renameElsewhere(user.id, 'Renamed while away');
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS);
    const before = usersMeReads();
    await b.api.reportBrowserState({ visible: true });
    const seen = await b.waitFor('user', (s) => (s.data as User | null)?.displayName === 'Renamed while away');
    expect(seen.status).toBe('success');
    expect(usersMeReads()).toBe(before + 1);
  });

  it('the first report of a new tab, and visible-to-visible, are not returns', async () => {
    const [a, b] = await start();
    await signedInWatching(a, b);
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS);
    const before = usersMeReads();
    const c = await tab();
    await c.api.reportBrowserState({ visible: true });
    await a.api.reportBrowserState({ visible: true });
    await clock.advance(1000);
    expect(usersMeReads()).toBe(before);
  });

  it('many tabs returning together cause one refetch; another return within 5 s causes none', async () => {
    const [a, b] = await start();
    await signedInWatching(a, b);
    await a.api.reportBrowserState({ visible: false });
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS);
    const before = usersMeReads();
    await Promise.all([a.api.reportBrowserState({ visible: true }), b.api.reportBrowserState({ visible: true })]);
    await clock.advance(0);
    expect(usersMeReads()).toBe(before + 1);
    // Past the 300 ms refetch throttle: a second refetch would have started by now.
    await clock.advance(1000);
    expect(usersMeReads()).toBe(before + 1);
    await b.api.reportBrowserState({ visible: false });
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS - 2000);
    await b.api.reportBrowserState({ visible: true });
    await clock.advance(1000);
    expect(usersMeReads()).toBe(before + 1);
  });

  it('the network coming back refetches what is watched', async () => {
    const [a, b] = await start();
    const user = await signedInWatching(a, b);
    await renameElsewhere(user.id, 'Renamed while offline');
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS);
    // The network goes: the browser says so, and the broker's check finds the service unreachable.
    net.offline = true;
    await a.api.reportBrowserState({ online: false });
    await expect.poll(async () => (await a.api.status()).connectivity.state).toBe('offline');
    net.offline = false;
    await a.api.reportBrowserState({ online: true });
    await b.waitFor('user', (s) => (s.data as User | null)?.displayName === 'Renamed while offline');
  });

  it('refetchOnReturn: false leaves the cache alone', async () => {
    const [a, b] = await start({ refetchOnReturn: false });
    const user = await signedInWatching(a, b);
    await renameElsewhere(user.id, 'Not fetched');
    await clock.advance(RETURN_REFETCH_INTERVAL_MILLIS);
    const before = usersMeReads();
    await b.api.reportBrowserState({ visible: true });
    await clock.advance(1000);
    expect(usersMeReads()).toBe(before);
    expect((b.latest('user')?.data as User).displayName).not.toBe('Not fetched');
  });

  it('a visible that is not a boolean is a typed error', async () => {
    const [a] = await start();
    await expect(a.api.reportBrowserState({ visible: 'yes' as unknown as boolean })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'state.visible',
    });
  });
});
