import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../contract/diagnostics.js';
import type { BrokerDiagnostics } from '../../contract/queries.js';
import { Emitter } from '../../contract/events.js';
import { systemClock } from '../../protocol/clock.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import { RequestLog } from '../../worker/diagnostics/requestLog.js';
import { Ring } from '../../worker/diagnostics/ring.js';
import { demoSessionSlot, tokenRequests } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { heldLoader } from '../support/heldLoader.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import type { SimulatedTab } from '../support/tabs.js';
import { addFaults, clearFaults, recordingFetch, settle } from './network.js';

const emulator = useEmulator();
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const TEN_MINUTES = 10 * 60 * 1000;

const scope = useBrokerScope(emulator);
beforeEach(() => clearFaults(emulator()));
afterEach(() => clearFaults(emulator()));

/** Waits until the tab's devtools subscription shows what `ok` wants. */
async function until(tab: SimulatedTab, ok: (diagnostics: BrokerDiagnostics) => boolean): Promise<BrokerDiagnostics> {
  return (await tab.waitFor('devtools', (snapshot) => ok(snapshot.data as BrokerDiagnostics)))
    .data as BrokerDiagnostics;
}

const requestsTo = (diagnostics: BrokerDiagnostics, method: string, path: string): RequestRecord[] =>
  diagnostics.requests.filter((r) => r.method === method && r.path === path);
const settled = (diagnostics: BrokerDiagnostics) => diagnostics.requests.every((r) => r.outcome !== 'pending');

/** A broker with two tabs, each with a devtools panel open (which turns recording on). */
async function twoTabsWatching(options: Parameters<typeof scope.start>[0] = {}) {
  const started = await scope.start(options);
  const one = await scope.tab(started);
  const two = await scope.tab(started);
  await one.subscribe('devtools', { kind: 'diagnostics', panel: 'panel-one' });
  await two.subscribe('devtools', { kind: 'diagnostics', panel: 'panel-two' });
  return { broker: started.broker, one, two };
}

describe('the diagnostics stream', () => {
  it('two tabs, a sign-in in one: both see the same requests, cache and tabs; the fetch both asked for is one request serving two callers', async () => {
    const { one, two } = await twoTabsWatching();
    await one.subscribe('user', { kind: 'currentUser' });
    await two.subscribe('user', { kind: 'currentUser' });
    await one.api.signInWithPassword(DEMO);
    for (const tab of [one, two])
      await tab.waitFor('user', (s) => (s.data as { primaryEmail?: string } | null)?.primaryEmail === DEMO.email);

    const done = (d: BrokerDiagnostics) =>
      requestsTo(d, 'GET', '/users/me').length === 1 && settled(d) && d.cache.every((e) => !e.isFetching);
    const [seenByOne, seenByTwo] = [await until(one, done), await until(two, done)];
    expect(seenByTwo.requests).toEqual(seenByOne.requests);
    expect(seenByTwo.cache).toEqual(seenByOne.cache);

    expect(seenByOne.tabs).toEqual([
      { tab: 1, subscriptions: 2, panels: ['panel-one'] },
      { tab: 2, subscriptions: 2, panels: ['panel-two'] },
    ]);
    const [signIn] = requestsTo(seenByOne, 'POST', '/auth/password/sign-in');
    expect(signIn).toMatchObject({
      status: 200,
      outcome: 'success',
      code: null,
      callers: 1,
      cause: { tab: 1, via: 'action', name: 'signInWithPassword' },
    });
    expect(signIn!.attempts).toEqual([expect.objectContaining({ status: 200, retry: null })]);
    expect(signIn!.durationMillis).toBeGreaterThanOrEqual(0);
    // Both tabs' subscriptions moved to the new session's entry: one fetch, two callers.
    const [user] = requestsTo(seenByOne, 'GET', '/users/me');
    expect(user).toMatchObject({
      status: 200,
      outcome: 'success',
      callers: 2,
      cause: { via: 'session', name: 'currentUser' },
    });
    expect(requestsTo(seenByOne, 'POST', '/auth/oauth/token')).toEqual([]);

    const entry = seenByOne.cache.find((e) => e.query.kind === 'currentUser' && e.current);
    expect(entry).toMatchObject({
      scope: 'user',
      tabs: [1, 2],
      subscribers: 2,
      status: 'success',
      isFetching: false,
      invalidated: false,
      lastError: null,
    });
    expect(seenByOne.cache.some((e) => e.query.kind === 'diagnostics')).toBe(false);
    expect(seenByOne.session).toMatchObject({ status: 'signed-in', renewals: 0, lastEnd: null });
    expect(seenByOne.session.accessTokenExpiresAtMillis).toBeGreaterThan(emulator().env.clock.now());
    expect(seenByOne.host).toMatchObject({ mode: 'shared-worker', storage: 'indexeddb' });
  });

  it('an expired token: one token request, started by one caller and serving every caller that needed a token meanwhile', async () => {
    const { broker, one, two } = await twoTabsWatching();
    await one.api.signInWithPassword(DEMO);
    emulator().env.stats.reset();
    emulator().env.clock.advance(TEN_MINUTES + 1000);

    await Promise.all([one.api.getAccessToken(), two.api.getAccessToken(), two.api.read({ kind: 'teams' })]);
    expect(await tokenRequests(emulator())).toBe(1);
    const diagnostics = await until(
      one,
      (d) => d.session.renewals === 1 && requestsTo(d, 'GET', '/teams').length === 1 && settled(d),
    );
    const tokens = requestsTo(diagnostics, 'POST', '/auth/oauth/token');
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ status: 200, outcome: 'success', callers: 3 });
    expect([1, 2]).toContain(tokens[0]!.cause.tab);
    expect(diagnostics.session.accessTokenExpiresAtMillis).toBeGreaterThan(emulator().env.clock.now());
    expect(broker.parts.session.refreshCount).toBe(1);
  });

  it('shows retries with their reason, known-error codes, and what a change made refetch, attributed to the tab that made it', async () => {
    const { one, two } = await twoTabsWatching();
    await one.api.signInWithPassword(DEMO);
    await one.subscribe('teams', { kind: 'teams' });
    await one.waitFor('teams', (s) => s.status === 'success');

    await addFaults(emulator(), [
      { path: '/api/v1/teams', method: 'GET', count: 1, effect: { type: 'status', status: 429 } },
    ]);
    await two.api.refetch({ kind: 'teams' });
    let diagnostics = await until(one, (d) =>
      requestsTo(d, 'GET', '/teams').some((r) => r.attempts.length === 2 && r.outcome === 'success'),
    );
    const retried = requestsTo(diagnostics, 'GET', '/teams').find((r) => r.attempts.length === 2)!;
    expect(retried.cause).toEqual({ tab: 2, via: 'refetch', name: 'teams' });
    expect(retried.attempts.map((a) => [a.status, a.retry?.reason ?? null])).toEqual([
      [429, 'rate-limited'],
      [200, null],
    ]);

    await expect(two.api.signInWithPassword({ email: DEMO.email, password: 'not-the-password' })).rejects.toMatchObject(
      { code: 'EMAIL_PASSWORD_MISMATCH' },
    );
    diagnostics = await until(one, (d) => requestsTo(d, 'POST', '/auth/password/sign-in').length === 2 && settled(d));
    expect(requestsTo(diagnostics, 'POST', '/auth/password/sign-in')[1]).toMatchObject({
      outcome: 'error',
      status: 400,
      code: 'EMAIL_PASSWORD_MISMATCH',
      cause: { tab: 2, via: 'action' },
    });

    await one.api.createTeam({ displayName: `Diagnosed ${Date.now()}` });
    diagnostics = await until(
      one,
      (d) => d.requests.some((r) => r.cause.via === 'invalidate' && r.path === '/teams') && settled(d),
    );
    expect(diagnostics.requests.find((r) => r.cause.via === 'invalidate' && r.path === '/teams')!.cause).toEqual({
      tab: 1,
      via: 'invalidate',
      name: 'createTeam',
    });
  });

  it('carries no token, refresh token, password, key, e-mail or response body, in any delivery to any tab', async () => {
    const net = recordingFetch();
    const { broker, one, two } = await twoTabsWatching({ fetch: net.fetch });
    const email = uniqueEmail('devtools');
    const password = 'devtools-secret-password';
    await one.subscribe('user', { kind: 'currentUser' });
    await one.api.signUpWithPassword({
      email,
      password,
      verificationCallbackUrl: 'http://localhost:5173/handler/email-verification',
    });
    const refused = await two.api
      .signInWithPassword({ email, password: 'a-wrong-password' })
      .catch((error: unknown) => error as Error & { code: string });
    expect(refused).toMatchObject({ code: 'EMAIL_PASSWORD_MISMATCH' });
    emulator().env.clock.advance(TEN_MINUTES + 1000);
    const accessToken = await two.api.getAccessToken();
    await one.api.updateUser({ displayName: 'Devtools Person' });
    await until(one, (d) => d.session.renewals === 1 && settled(d));

    // The service's message for the refused sign-in too: errors travel as code and status only.
    const secrets = new Set<string>([
      password,
      'a-wrong-password',
      email,
      'Devtools Person',
      accessToken!,
      broker.config.publishableClientKey,
      (refused as Error).message,
    ]);
    for (const body of await Promise.all(net.bodies)) {
      for (const key of ['access_token', 'refresh_token']) {
        const value = (body as Record<string, unknown> | null)?.[key];
        if (typeof value === 'string') secrets.add(value);
      }
    }
    const stored = await broker.parts.storage.loadSession(demoSessionSlot(emulator()));
    if (stored?.status === 'active') secrets.add(stored.refreshToken);
    expect([...secrets].filter((s) => s.length > 40).length).toBeGreaterThanOrEqual(2);

    const everything = [one, two].flatMap((tab) =>
      tab.deliveries.get('devtools')!.map((snapshot) => JSON.stringify(snapshot)),
    );
    expect(everything.length).toBeGreaterThan(5);
    for (const secret of secrets)
      expect(
        everything.filter((text) => text.includes(secret)),
        `a delivery carries ${secret.slice(0, 12)}…`,
      ).toEqual([]);
    expect(everything.some((text) => text.includes('EMAIL_PASSWORD_MISMATCH'))).toBe(true);
  });

  it('loads and records nothing until a devtools panel asks; reading loads the recorder, watching records everything, connectivity changes included', async () => {
    const net = recordingFetch();
    let loads = 0;
    const started = await scope.start({
      fetch: net.fetch,
      recorder: () => ((loads += 1), import('../../worker/diagnostics/recorder.js')),
    });
    const { broker } = started;
    const tab = await scope.tab(started);
    await tab.api.signInWithPassword(DEMO);
    await tab.api.read({ kind: 'currentUser' });
    await tab.subscribe('user', { kind: 'currentUser' });
    expect(loads).toBe(0);
    expect(broker.parts.recording.recorder).toBeNull();
    // Reading the value (rather than watching it) loads the recorder but does not turn recording on.
    expect((await tab.api.read({ kind: 'diagnostics' })).requests).toEqual([]);
    const log = broker.parts.recording.recorder!.log;
    expect(log.recording).toBe(false);
    expect(log.records()).toEqual([]);

    await tab.subscribe('devtools', { kind: 'diagnostics' });
    expect(log.recording).toBe(true);
    expect(loads).toBe(1);
    await tab.api.refetch({ kind: 'currentUser' });
    await until(tab, (d) => requestsTo(d, 'GET', '/users/me').length === 1 && settled(d));

    net.offline = true;
    await tab.api.reportBrowserState({ online: false });
    await until(tab, (d) => d.connectivity.state === 'offline');
    net.offline = false;
    await tab.api.reportBrowserState({ online: true });
    const diagnostics = await until(tab, (d) => d.connectivity.state === 'online' && d.connectivityHistory.length >= 3);
    expect(diagnostics.connectivityHistory.map((c) => c.state)).toEqual(expect.arrayContaining(['online', 'offline']));
    expect(diagnostics.connectivityHistory.at(-1)!.state).toBe('online');
    expect(diagnostics.connectivityHistory.find((c) => c.state === 'offline')!.browserOnline).toBe(false);
    expect(diagnostics.recordingSinceMillis).toBeGreaterThan(0);
    await settle();
  });
});

describe('the recorder, a module of its own', () => {
  const recorderLoader = (options: { failFirst?: string } = {}) =>
    heldLoader(() => import('../../worker/diagnostics/recorder.js'), options);

  it('a panel that goes away while the recorder loads leaves no subscription behind; the calls of every tab keep their order', async () => {
    const loader = recorderLoader();
    const started = await scope.start({ recorder: loader.load });
    const tab = await scope.tab(started);
    const other = await scope.tab(started);
    const subscribed = tab.api.subscribe('devtools', { kind: 'diagnostics', panel: 'p' });
    const unsubscribed = tab.api.unsubscribe('devtools');
    const user = other.api.subscribe('user', { kind: 'currentUser' });
    await settle();
    loader.release();
    await Promise.all([subscribed, unsubscribed, user]);
    expect(
      started.broker.parts.tabs
        .describe()
        .map(({ tab: label, entries }) => [label, entries.map((entry) => entry.spec.kind)]),
    ).toEqual([
      [1, []],
      [2, ['currentUser']],
    ]);
    expect(loader.calls()).toBe(1);
  });

  it('a recorder that does not load fails the diagnostics query with BROKER_UNAVAILABLE saying why; the broker goes on, and the next panel loads it', async () => {
    const loader = recorderLoader({ failFirst: 'chunk-123.js: 404' });
    const started = await scope.start({ recorder: loader.load });
    const tab = await scope.tab(started);
    loader.release();
    await expect(tab.api.subscribe('devtools', { kind: 'diagnostics' })).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringContaining('chunk-123.js: 404'),
    });
    await tab.api.signInWithPassword(DEMO);
    expect((await tab.api.read({ kind: 'currentUser' }))?.primaryEmail).toBe(DEMO.email);
    const first = (await tab.subscribe('devtools', { kind: 'diagnostics' })).data as BrokerDiagnostics;
    expect(first.session.status).toBe('signed-in');
    expect(loader.calls()).toBe(2);
  });
});

describe('bounded memory', () => {
  it('a ring keeps the newest items and counts those it dropped', () => {
    const ring = new Ring<number>(3);
    for (let i = 1; i <= 5; i++) ring.push(i);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.dropped).toBe(2);
    expect(() => new Ring(0)).toThrow(RangeError);
  });

  it('the request log keeps its capacity however many requests pass', async () => {
    const log = new RequestLog(systemClock, { Emitter, serializeError }, 3);
    log.start();
    const trace = log.trace({ tab: 1, via: 'read', name: 'currentUser' })!;
    for (let i = 0; i < 10; i++) await log.record('GET', `/things/${i}`, trace, async () => i);
    expect(log.records().map((r) => r.path)).toEqual(['/things/7', '/things/8', '/things/9']);
    expect(log.dropped).toBe(7);
  });
});
