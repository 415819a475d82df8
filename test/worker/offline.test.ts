import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import type { Broker } from '../../worker/broker.js';
import { brokerKeyOf } from '../../worker/config.js';
import type { ConnectivitySnapshot, SessionInfo } from '../../worker/index.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import type { LocalLockManager } from '../support/locks.js';
import { EmulatorClock } from '../support/scheduler.js';
import type { SimulatedTab } from '../support/tabs.js';
import { recordingFetch, settle, type RecordingFetch } from './network.js';

const emulator = useEmulator();
const APP = 'http://localhost:5173';

const scope = useBrokerScope(emulator);

interface World {
  broker: Broker;
  locks: LocalLockManager;
  net: RecordingFetch;
  tabs: SimulatedTab[];
  refreshToken: string;
}

async function signedIn(tabCount: number, net = recordingFetch()): Promise<World> {
  const { tabs: opened, ...started } = await scope.startWithTabs(tabCount, { fetch: net.fetch });
  await opened[0]!.api.signUpWithPassword({
    email: uniqueEmail('offline'),
    password: 'offline-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  const bodies = (await Promise.all(net.bodies)) as Array<{ refresh_token?: string } | null>;
  const refreshToken = bodies.map((b) => b?.refresh_token).find((t) => typeof t === 'string')!;
  return { broker: started.broker, locks: started.locks, net, tabs: opened, refreshToken };
}

const state = (tab: SimulatedTab) => (tab.latest('connectivity')?.data as ConnectivitySnapshot | undefined)?.state;
const apiAttempts = (net: RecordingFetch, prefix: string) =>
  net.attempts.filter((a) => a.call.startsWith(prefix)).map((a) => a.outcome);

/** Settles a promise into a flag, so a test can see that it is still waiting. */
function track<T>(promise: Promise<T>) {
  const t = { done: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(t, { done: true, value }),
    (error: unknown) => Object.assign(t, { done: true, error }),
  );
  return Object.assign(t, { promise });
}

function deliveredStates(tab: SimulatedTab): string[] {
  const states = tab.deliveries.get('connectivity')!.map((s) => (s.data as ConnectivitySnapshot).state);
  return states.filter((s, i) => i === 0 || s !== states[i - 1]);
}

describe('connectivity', () => {
  it('a failed request takes the broker offline (with diagnostics and the error); reads wait without spending attempts; the /health probes bring it back with no tab reporting online', async () => {
    const {
      net,
      tabs: [a, b],
    } = await signedIn(2);
    await b!.subscribe('connectivity', { kind: 'connectivity' });
    expect(state(b!)).toBe('online');

    net.offline = true;
    const first = track(a!.api.read({ kind: 'teams' }));
    const offline = (await b!.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline'))
      .data as ConnectivitySnapshot;
    expect(offline.lastError).toMatchObject({ kind: 'network', code: 'NETWORK_UNREACHABLE' });
    expect(offline.lastErrorAtMillis).not.toBeNull();
    expect(offline.consecutiveFailures).toBeGreaterThanOrEqual(1);
    expect(offline.diagnostics).toMatchObject({
      health: { reachable: false, status: null },
      apiRoot: { reachable: false },
    });
    expect(offline.diagnostics!.health.url).toBe(`${emulator().url}/health`);

    // Issued while offline: it waits, sends nothing, fails nothing.
    const second = track(b!.api.read({ kind: 'contactChannels' }));
    await settle(200);
    expect([first.done, second.done]).toEqual([false, false]);
    expect(apiAttempts(net, '/teams')).toEqual(['network']);
    expect(apiAttempts(net, '/contact-channels')).toEqual([]);
    // The broker itself still answers, and says why.
    expect((await a!.api.status()).connectivity.state).toBe('offline');
    const probes = net.urls.filter((u) => u.endsWith('/health')).length;
    expect(probes).toBeGreaterThan(1);

    net.offline = false;
    expect(await first.promise).toEqual([]);
    expect(await second.promise).toHaveLength(1);
    expect(apiAttempts(net, '/teams')).toEqual(['network', 200]);
    expect(apiAttempts(net, '/contact-channels')).toEqual([200]);
    const back = (await b!.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'online'))
      .data as ConnectivitySnapshot;
    expect(back).toMatchObject({ browserOnline: null, consecutiveFailures: 0 });
    expect(back.lastSuccessAtMillis).toBeGreaterThanOrEqual(offline.lastErrorAtMillis!);
    const seen = deliveredStates(b!);
    expect(seen[0]).toBe('online');
    expect(seen.indexOf('offline')).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe('online');
    expect((await a!.api.status()).session.status).toBe('signed-in');
  });

  it('the browser saying offline, the service unreachable: reads wait, a mutation fails at once with NETWORK_OFFLINE and sends nothing; the service back: both go', async () => {
    const {
      net,
      tabs: [a, b],
    } = await signedIn(2);
    await b!.subscribe('connectivity', { kind: 'connectivity' });
    net.offline = true;
    await a!.api.reportBrowserState({ online: false });
    await b!.waitFor(
      'connectivity',
      (s) =>
        (s.data as ConnectivitySnapshot).state === 'offline' &&
        (s.data as ConnectivitySnapshot).browserOnline === false,
    );

    const read = track(b!.api.read({ kind: 'sessions' }));
    // It settles while the network is still down: it did not wait for it.
    const error = await a!.api.updateUser({ displayName: 'Offline edit' }).catch((e: unknown) => e);
    expect(net.offline).toBe(true);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK_OFFLINE', attempts: 0 });
    await settle(100);
    expect(read.done).toBe(false);
    expect(apiAttempts(net, '/users/me')).toEqual([]);
    expect(apiAttempts(net, '/auth/sessions')).toEqual([]);

    // The network is back and no tab has said so: the broker's probes find the service, and an
    // answer from the service outweighs what the tabs last reported.
    net.offline = false;
    expect(await read.promise).toHaveLength(1);
    expect((await a!.api.updateUser({ displayName: 'Online edit' })).displayName).toBe('Online edit');
    expect(apiAttempts(net, '/users/me')).toEqual([200]);
    expect(state(b!)).toBe('online');
  });
});

/**
 * A signed-in tab watching connectivity, its broker on a clock that moves only when the test says:
 * a probe's backoff never ends by itself, so only what the test does can bring the next check.
 */
async function onStandingClock() {
  const clock = new EmulatorClock(emulator().env.clock);
  const net = recordingFetch();
  const started = await scope.start({ fetch: net.fetch, clock });
  const tab = await scope.tab(started);
  await tab.api.signUpWithPassword({
    email: uniqueEmail('backoff'),
    password: 'backoff-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  await tab.subscribe('connectivity', { kind: 'connectivity' });
  return { clock, net, tab };
}

describe('the network returning', () => {
  it.each([
    { who: "the tab that said offline (the browser's `offline` event)", saidOffline: true },
    { who: 'a tab that never said offline (the service unreachable with the browser online)', saidOffline: false },
  ])(
    '$who hearing `online`: a read sleeping its backoff after an outage goes at once, not when the backoff or the next probe ends',
    async ({ saidOffline }) => {
      const { net, tab } = await onStandingClock();
      if (!saidOffline) await tab.api.reportBrowserState({ online: true });
      net.offline = true;
      // The first attempt fails, the probes find the service unreachable, the retry sleeps its backoff
      // (on a clock that only moves when the test says so: neither it nor the next probe ever ends).
      const read = track(tab.api.refetch({ kind: 'sessions' }));
      if (saidOffline) await tab.api.reportBrowserState({ online: false });
      await tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline');
      await settle(50);
      expect(read.done).toBe(false);
      net.offline = false;
      // The browser's `online` event, forwarded by the tab.
      await tab.api.reportBrowserState({ online: true });
      await read.promise;
      expect(read.error).toBeUndefined();
      expect(apiAttempts(net, '/auth/sessions')).toEqual(['network', 200]);
      expect(state(tab)).toBe('online');
    },
  );

  it('a page repeating `online` while the service stays unreachable gets at most one check a second', async () => {
    const { clock, net, tab } = await onStandingClock();
    net.offline = true;
    void tab.api.refetch({ kind: 'sessions' }).catch(() => undefined);
    await tab.waitFor('connectivity', (s) => (s.data as ConnectivitySnapshot).state === 'offline');
    await settle(50);
    const probes = () => net.urls.filter((url) => new URL(url).pathname === '/health').length;
    const before = probes();
    for (let i = 0; i < 20; i++) await tab.api.reportBrowserState({ online: true });
    await settle(100);
    expect(probes() - before).toBe(1);
    await clock.advance(1000);
    await settle(100);
    for (let i = 0; i < 20; i++) await tab.api.reportBrowserState({ online: true });
    await settle(100);
    expect(probes() - before).toBeLessThanOrEqual(3);
  });

  it('a single dropped connection, the service never found unreachable, waits its whole backoff', async () => {
    const em = emulator();
    const clock = new EmulatorClock(em.env.clock);
    let drop = true;
    const fetchFn: typeof fetch = (input, init) =>
      drop && String(input).includes('/auth/sessions')
        ? ((drop = false), Promise.reject(new TypeError('connection reset')))
        : fetch(input, init);
    const started = await scope.start({ fetch: fetchFn, clock });
    const tab = await scope.tab(started);
    await tab.api.signUpWithPassword({
      email: uniqueEmail('backoff'),
      password: 'backoff-password',
      verificationCallbackUrl: `${APP}/x`,
    });
    const read = track(tab.api.refetch({ kind: 'sessions' }));
    await settle(100);
    expect(read.done).toBe(false);
    await clock.advance(1500);
    await read.promise;
    expect(read.error).toBeUndefined();
  });
});

describe('signing out offline', () => {
  it('signs every tab out at once; the DELETE reaches the service when the network returns, and the old refresh token is then dead', async () => {
    const em = emulator();
    const world = await signedIn(3);
    const { net, refreshToken, tabs: all } = world;
    for (const tab of all) await tab.subscribe('session', { kind: 'session' });
    net.offline = true;
    await all[2]!.api.reportBrowserState({ online: false });
    await until(async () => (await all[0]!.api.status()).connectivity.state === 'offline');

    await all[0]!.api.signOut();
    // Signed out while the network is still down: the local sign-out did not wait for it.
    expect(net.offline).toBe(true);
    for (const tab of all) {
      const s = await tab.waitFor('session', (x) => (x.data as SessionInfo).status === 'signed-out');
      expect(s.data).toMatchObject({
        status: 'signed-out',
        lastEnd: { reason: 'signed-out', message: 'You signed out.' },
      });
    }
    expect(await all[1]!.api.getAccessToken()).toBeNull();
    expect(em.env.stats.snapshot().requests['DELETE /auth/sessions/current']).toBeUndefined();
    expect(apiAttempts(net, '/auth/sessions/current')).toEqual([]);

    net.offline = false;
    await all[1]!.api.reportBrowserState({ online: true });
    await until(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1);
    await expectRefreshTokenDead(refreshToken);
    // Nothing left to send; the tabs stay signed out.
    expect(
      await world.broker.parts.storage.listOutbox(brokerKeyOf({ baseUrl: em.url, projectId: em.projects.demo.id })),
    ).toEqual([]);
    for (const tab of all) expect((tab.latest('session')!.data as SessionInfo).status).toBe('signed-out');
  });

  it('with an expired access token and a network the broker has not yet found down: still at once, and sent later', async () => {
    const em = emulator();
    const {
      net,
      refreshToken,
      tabs: [a, b],
    } = await signedIn(2);
    await b!.subscribe('session', { kind: 'session' });
    em.env.clock.advance(10 * 60 * 1000 + 1000);
    net.offline = true;
    const signedOut = track(a!.api.signOut());
    await b!.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    await signedOut.promise;
    // All of it while the network is still down: nothing waited for a token renewal.
    expect(net.offline).toBe(true);
    expect(b!.latest('session')!.data).toMatchObject({ lastEnd: { reason: 'signed-out' } });

    net.offline = false;
    await until(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1);
    await expectRefreshTokenDead(refreshToken);
  });

  it('online with an expired access token: signed out at once, and the DELETE follows with a renewed token', async () => {
    const em = emulator();
    const {
      net,
      refreshToken,
      tabs: [a],
    } = await signedIn(1);
    em.env.clock.advance(10 * 60 * 1000 + 1000);
    net.attempts.length = 0;
    await a!.api.signOut();
    expect((await a!.api.status()).session).toMatchObject({ status: 'signed-out', lastEnd: { reason: 'signed-out' } });
    await until(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1);
    // The emulator counts the DELETE before the broker has read its answer and recorded the attempt.
    await until(() => net.attempts.some((x) => x.call === '/auth/sessions/current'));
    // Renewed first, then deleted; never sent with the expired token.
    expect(net.attempts.map((x) => [x.method, x.call, x.outcome])).toEqual([
      ['POST', '/auth/oauth/token', 200],
      ['DELETE', '/auth/sessions/current', 200],
    ]);
    await expectRefreshTokenDead(refreshToken);
  });

  it('a sign-out kept offline survives a broker restart and is sent by the next broker', async () => {
    const em = emulator();
    const net = recordingFetch();
    const first = await signedIn(1, net);
    net.offline = true;
    await first.tabs[0]!.api.reportBrowserState({ online: false });
    await until(async () => (await first.tabs[0]!.api.status()).connectivity.state === 'offline');
    await first.tabs[0]!.api.signOut();
    first.tabs[0]!.close();
    first.broker.close();
    expect(em.env.stats.snapshot().requests['DELETE /auth/sessions/current']).toBeUndefined();

    // A new broker (the browser restarted, online): it finds the kept call and sends it.
    const second = await scope.start({ locks: first.locks });
    await until(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1);
    expect(second.broker.status().session).toMatchObject({ status: 'signed-out', lastEnd: { reason: 'signed-out' } });
    await expectRefreshTokenDead(first.refreshToken);
    await until(
      async () =>
        (await second.broker.parts.storage.listOutbox(brokerKeyOf({ baseUrl: em.url, projectId: em.projects.demo.id })))
          .length === 0,
    );
  });
});

/** The service no longer knows the session: its refresh token is refused at the token endpoint. */
async function expectRefreshTokenDead(refreshToken: string): Promise<void> {
  const em = emulator();
  const options = {
    baseUrl: em.url,
    projectId: em.projects.demo.id,
    publishableClientKey: em.projects.demo.publishableClientKey,
  };
  const refused = await refreshAccessToken(options, refreshToken).catch((e: unknown) => e);
  expect(isKnownError(refused, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED')).toBe(true);
}

/** Polls a condition for up to 3 s of real time (the work it waits on is local and quick). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await settle(10);
  }
  throw new Error(`condition not met: ${condition.toString()}`);
}
