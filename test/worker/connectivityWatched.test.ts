/**
 * Issue 40, items 1–3. An idle page that shows connectivity sees a stopped service within the check interval, named;
 * nobody looking (every tab hidden, or nothing watching connectivity) costs the service nothing; a busy page costs
 * nothing more; the device being offline and the service not answering are told apart; and a wrong project id is
 * said when a tab connects, naming the option, rather than at the first sign-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import type { Broker } from '../../worker/broker.js';
import { DEFAULT_CONNECTIVITY_CHECK_MILLIS, resolveBrokerConfig } from '../../worker/config.js';
import { CONTACT_FRESH_MILLIS } from '../../worker/connectivity/connectivity.js';
import type { ConnectivitySnapshot } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { EmulatorClock } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch, type RecordingFetch } from './network.js';

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

interface World {
  em: RunningEmulator;
  clock: EmulatorClock;
  net: RecordingFetch;
  broker: Broker;
  tab(subscribe?: 'connectivity' | 'currentUser'): Promise<SimulatedTab>;
  /** Requests of the broker's own checks so far (the API root and `/health`). */
  checks(): number;
  stopService(): Promise<void>;
}

async function world(options: { projectId?: string; connectivityCheckMillis?: number } = {}): Promise<World> {
  await resetIndexedDb();
  const em = await startEmulator({ port: 0 });
  opened.emulators.push(em);
  const clock = new EmulatorClock(em.env.clock);
  const net = recordingFetch();
  const { broker, locks } = await startTestBroker(em, { clock, fetch: net.fetch, ...options });
  opened.brokers.push(broker);
  return {
    em,
    clock,
    net,
    broker,
    async tab(subscribe = 'connectivity') {
      const tab = await connectTab(broker, locks);
      opened.tabs.push(tab);
      await tab.subscribe(subscribe, { kind: subscribe });
      return tab;
    },
    checks: () => net.urls.filter((url) => url.endsWith('/api/v1') || url.endsWith('/health')).length,
    async stopService() {
      await em.stop();
      opened.emulators.splice(opened.emulators.indexOf(em), 1);
    },
  };
}

const connectivityOf = (broker: Broker): ConnectivitySnapshot => broker.parts.connectivity.snapshot();

/** A tab that connects has the broker check the service once its last word is CONTACT_FRESH_MILLIS old. */
async function arrived(w: World): Promise<void> {
  await w.clock.advance(CONTACT_FRESH_MILLIS);
  await expect.poll(() => connectivityOf(w.broker).lastSuccessAtMillis).not.toBeNull();
}

describe('connectivity while someone looks at it', () => {
  it('an idle shown tab watching connectivity sees the service stop within the interval, named, with one truth', async () => {
    const w = await world();
    const tab = await w.tab('connectivity');
    await tab.api.reportBrowserState({ online: true, visible: true });
    await arrived(w);
    await w.stopService();
    await w.clock.advance(DEFAULT_CONNECTIVITY_CHECK_MILLIS);
    await tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline');
    const snapshot = connectivityOf(w.broker);
    // What the banner shows, the error, the count and the devtools are the same failure.
    expect(snapshot.lastError).toMatchObject({ code: 'NETWORK_UNREACHABLE' });
    expect(snapshot.lastError?.message).toContain(`The service at ${w.em.url}`);
    expect(snapshot.lastError?.message).toContain('npx authbroker-emulator');
    expect(snapshot.consecutiveFailures).toBeGreaterThan(0);
    expect(snapshot.lastErrorAtMillis).not.toBeNull();
  });

  it('nobody looking costs nothing: every tab hidden, or no tab watching connectivity, sends no request in a minute', async () => {
    const hidden = await world();
    const watching = await hidden.tab('connectivity');
    await watching.api.reportBrowserState({ online: true, visible: false });
    await arrived(hidden); // a tab connecting has the contact checked once, shown or not
    const unwatched = await world();
    const reading = await unwatched.tab('currentUser');
    await reading.api.reportBrowserState({ online: true, visible: true });
    await arrived(unwatched);
    const before = [hidden.checks(), unwatched.checks()];
    for (let second = 0; second < 60; second++) {
      await hidden.clock.advance(1000);
      await unwatched.clock.advance(1000);
    }
    expect([hidden.checks(), unwatched.checks()]).toEqual(before);
  });

  it('a shown watcher costs one light request per interval while idle, none while the app is busy, none once hidden', async () => {
    const w = await world();
    const tab = await w.tab('connectivity');
    await tab.api.reportBrowserState({ online: true, visible: true });
    await arrived(w);
    const apiRoots = () => w.net.urls.filter((url) => url.endsWith('/api/v1')).length;
    const idleStart = apiRoots();
    for (let tick = 0; tick < 5; tick++) {
      await w.clock.advance(DEFAULT_CONNECTIVITY_CHECK_MILLIS);
      await expect.poll(apiRoots).toBe(idleStart + tick + 1);
    }
    expect(w.net.urls.filter((url) => url.endsWith('/health'))).toHaveLength(1); // the arrival's check only
    // Busy: an answer every 3 s keeps the service confirmed; no check is needed.
    const busyStart = apiRoots();
    for (let tick = 0; tick < 5; tick++) {
      await tab.api.refetch({ kind: 'project' });
      await w.clock.advance(3000);
    }
    expect(apiRoots()).toBe(busyStart);
    await tab.api.reportBrowserState({ visible: false });
    const hiddenStart = w.checks();
    await w.clock.advance(10 * DEFAULT_CONNECTIVITY_CHECK_MILLIS);
    expect(w.checks()).toBe(hiddenStart);
  });

  it('connectivityCheckMillis: 0 turns the confirmations off; a value out of range is refused, naming the option', async () => {
    const w = await world({ connectivityCheckMillis: 0 });
    const tab = await w.tab('connectivity');
    await tab.api.reportBrowserState({ online: true, visible: true });
    await arrived(w);
    const before = w.checks();
    await w.clock.advance(60_000);
    expect(w.checks()).toBe(before);
    const base = { baseUrl: 'http://127.0.0.1:1', projectId: 'internal', publishableClientKey: 'pck_abcdef' };
    expect(resolveBrokerConfig(base).connectivityCheckMillis).toBe(DEFAULT_CONNECTIVITY_CHECK_MILLIS);
    for (const wrong of [500, -1, 1.5, '4000', 7_200_000])
      expect(() => resolveBrokerConfig({ ...base, connectivityCheckMillis: wrong })).toThrow(/connectivityCheckMillis/);
  });
});

describe('offline, or the service not answering', () => {
  it('a write while the service is down says which service, and how to start the emulator; while the device is offline, that', async () => {
    const w = await world();
    const tab = await w.tab('connectivity');
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await tab.api.reportBrowserState({ online: true, visible: true });
    await w.stopService();
    await w.clock.advance(DEFAULT_CONNECTIVITY_CHECK_MILLIS);
    await tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline');
    const unreachable = await tab.api.updateUser({ displayName: 'Not sent' }).catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ code: 'NETWORK_UNREACHABLE' });
    expect((unreachable as Error).message).toContain(w.em.url);
    await tab.api.reportBrowserState({ online: false });
    const offline = await tab.api.updateUser({ displayName: 'Not sent' }).catch((e: unknown) => e);
    expect(offline).toMatchObject({ code: 'NETWORK_OFFLINE', message: 'You are offline: this change was not sent.' });
  });
});

describe('a wrong project id is said when a tab connects', () => {
  it('configProblems names the projectId option after one request, however many tabs ask; a right config has none', async () => {
    const wrongId = '5f0c8a3e-1b2d-4c6e-8f9a-0b1c2d3e4f50';
    const wrong = await world({ projectId: wrongId });
    const tabs = await Promise.all([wrong.tab('currentUser'), wrong.tab('currentUser'), wrong.tab('currentUser')]);
    const answers = await Promise.all(tabs.map((tab) => tab.api.configProblems()));
    expect(answers.every((problems) => problems.length === 1)).toBe(true);
    expect(answers[0]![0]).toContain(`No project has the ID ${wrongId}`);
    expect(answers[0]![0]).toContain('projectId option');
    expect(wrong.net.attempts.filter((a) => a.call.startsWith('/projects/current'))).toHaveLength(1);
    expect((await tabs[0]!.api.status()).warnings).toContain(answers[0]![0]);
    const right = await world();
    expect(await (await right.tab('currentUser')).api.configProblems()).toEqual([]);
  });
});
