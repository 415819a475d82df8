import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BrokerStatus, SessionInfo } from '../../contract/state.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { createServerApp } from '../../protocol/server.js';
import type { Broker } from '../../worker/broker.js';
import { LocalLockManager } from '../support/locks.js';
import { emulatorClock, resetIndexedDb, startTestBroker } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { flush } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';

const emulator = useEmulator();
const APP = 'http://localhost:5173';
let brokers: Broker[] = [];
let tabs: SimulatedTab[] = [];
let extraEmulators: RunningEmulator[] = [];

beforeEach(resetIndexedDb);
afterEach(async () => {
  for (const tab of tabs.splice(0)) tab.close();
  for (const broker of brokers.splice(0)) broker.close();
  for (const em of extraEmulators.splice(0)) await em.stop();
});

async function world(options: Parameters<typeof startTestBroker>[1] = {}) {
  const started = await startTestBroker(emulator(), options);
  brokers.push(started.broker);
  const tab = async () => {
    const t = await connectTab(started.broker, started.locks);
    tabs.push(t);
    return t;
  };
  return { ...started, tab };
}

/** Every request the broker made, with its headers. */
function headerRecorder() {
  const requests: Array<{ url: string; method: string; headers: Headers }> = [];
  let offline = false;
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push({ url: request.url, method: request.method, headers: request.headers });
    if (offline) throw new TypeError('fetch failed');
    return fetch(input, init);
  };
  return {
    fetch: fetchFn,
    requests,
    setOffline(value: boolean) {
      offline = value;
    },
  };
}

describe('live values are queries: pushed when they change, never polled', () => {
  it('the broker status reaches a watching tab as soon as a figure moves (a cache entry, a token refresh), with no timer running', async () => {
    const { tab, broker } = await world();
    const a = await tab();
    const b = await tab();
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await a.subscribe('status', { kind: 'status' });
    const statuses = () => (a.deliveries.get('status') ?? []).map((s) => s.data as BrokerStatus);
    const entriesBefore = statuses().at(-1)!.cacheEntries;

    // Another tab starts watching something: a new cache entry. No clock moves; only promises settle.
    await b.subscribe('teams', { kind: 'teams' });
    await flush();
    expect(statuses().at(-1)!.cacheEntries).toBe(entriesBefore + 1);

    // A token refresh (the access token expires in the service's time) is counted and pushed.
    const refreshes = statuses().at(-1)!.tokenRefreshes;
    emulator().env.clock.advance(10 * 60 * 1000 + 1000);
    expect(await b.api.getAccessToken()).toMatch(/^ey/);
    await flush();
    expect(statuses().at(-1)!.tokenRefreshes).toBe(refreshes + 1);
    expect(broker.status().tokenRefreshes).toBe(refreshes + 1);
  });

  it('the session is a query like any other: subscribe, read, and the same snapshot object while nothing changes', async () => {
    const { tab } = await world();
    const a = await tab();
    const first = await a.subscribe('session', { kind: 'session' });
    expect(first.data).toMatchObject({ status: 'signed-out' });
    expect(await a.api.read({ kind: 'session' })).toEqual(first.data);
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    const signedIn = await a.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
    expect(signedIn.data).not.toHaveProperty('sessionKey');
    // refetch of a live value fetches nothing and changes nothing.
    await a.api.refetch({ kind: 'session' });
    expect(a.latest('session')).toBe(signedIn);
  });
});

describe('one transport pipeline', () => {
  it("an offline sign-out sent later, and a project owner's sign-in, carry the app's extra headers and feed connectivity", async () => {
    const net = headerRecorder();
    const { tab } = await world({ fetch: net.fetch, extraRequestHeaders: { 'x-app-tenant': 'acme' } });
    const a = await tab();
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    // Offline (the browser says so, the broker's check confirms it): the sign-out happens here at once and is kept for
    // later.
    net.setOffline(true);
    await a.api.reportBrowserState({ online: false });
    await expect.poll(async () => (await a.api.status()).connectivity.state).toBe('offline');
    await a.api.signOut();
    expect((await a.api.status()).session).toMatchObject({ status: 'signed-out' });
    net.setOffline(false);
    await a.api.reportBrowserState({ online: true });
    const sentLater = async () =>
      net.requests.find((r) => r.method === 'DELETE' && r.url.endsWith('/auth/sessions/current'));
    for (let i = 0; i < 100 && !(await sentLater()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const signOut = await sentLater();
    expect(signOut, 'the kept sign-out was sent').toBeDefined();
    expect(signOut!.headers.get('x-app-tenant')).toBe('acme');

    const ownerSignIn = await a.api.adminSignInWithPassword({
      email: 'admin@authbroker.dev',
      password: 'admin-password',
    });
    expect(ownerSignIn.status).toBe('signed-in');
    const internal = net.requests.find(
      (r) => r.url.endsWith('/auth/password/sign-in') && r.headers.get('x-stack-project-id') === 'internal',
    );
    expect(internal!.headers.get('x-app-tenant')).toBe('acme');
  });

  it("a project owner's sign-in while offline fails at once with NETWORK_OFFLINE, like every write", async () => {
    const net = headerRecorder();
    const { tab } = await world({ fetch: net.fetch });
    const a = await tab();
    net.setOffline(true);
    await a.api.reportBrowserState({ online: false });
    await expect.poll(async () => (await a.api.status()).connectivity.state).toBe('offline');
    const sent = net.requests.length;
    const error = await a.api
      .adminSignInWithPassword({ email: 'admin@authbroker.dev', password: 'admin-password' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NETWORK_OFFLINE' });
    expect(net.requests.slice(sent).filter((r) => r.url.includes('/auth/password/sign-in'))).toEqual([]);
  });
});

describe('a session belongs to one API URL and one project', () => {
  it('a broker of the same project on another API URL starts signed out and never sends the other service’s tokens', async () => {
    const locks = new LocalLockManager();
    const first = await world({ locks });
    const a = await first.tab();
    const signedIn = await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    expect(signedIn.status).toBe('signed-in');
    const tokenA = await a.api.getAccessToken();

    // A second service with the same project id (a staging copy, say), same origin, same IndexedDB.
    const other = await startEmulator({ port: 0 });
    extraEmulators.push(other);
    expect(other.projects.demo.id).toBe(emulator().projects.demo.id);
    const net = headerRecorder();
    const second = await startTestBroker(other, { locks, fetch: net.fetch, clock: emulatorClock(other) });
    brokers.push(second.broker);
    const b = await connectTab(second.broker, locks);
    tabs.push(b);
    expect((await b.api.status()).session).toMatchObject({ status: 'signed-out' });
    expect(await b.api.read({ kind: 'currentUser' })).toBeNull();
    expect(await b.api.getAccessToken()).toBeNull();
    // Nothing went to the other service with the first one's credentials.
    expect(
      net.requests.filter(
        (r) => r.headers.get('x-stack-access-token') !== null || r.headers.get('x-stack-refresh-token') !== null,
      ),
    ).toEqual([]);
    // And the first session is untouched.
    expect(await a.api.getAccessToken()).toBe(tokenA);
    expect((await a.api.status()).session).toMatchObject({ status: 'signed-in' });
  });
});

describe('a query kind added in one place: teamProfile', () => {
  it('a member reads their own profile in a team without $read_members; an update shows in every tab', async () => {
    const em = emulator();
    const { demo } = em.projects;
    const server = createServerApp({ baseUrl: em.url, projectId: demo.id, secretServerKey: demo.secretServerKey });
    const email = uniqueEmail('profile');
    const { tab } = await world();
    const a = await tab();
    const b = await tab();
    const signUp = await a.api.signUpWithPassword({
      email,
      password: 'profile-password',
      verificationCallbackUrl: `${APP}/x`,
    });
    if (signUp.status !== 'signed-in') throw new Error('not signed in');
    // A team the user is only a plain member of (created by the server, no permissions given).
    const team = await server.createTeam({ displayName: 'Plain members' });
    await server.addTeamMember(team.id, signUp.userId);
    await server.revokeTeamPermission(team.id, signUp.userId, 'team_member');
    const members = await a.api.read({ kind: 'teamMembers', teamId: team.id }).catch((e: unknown) => e);
    expect(members).toMatchObject({ code: 'TEAM_PERMISSION_REQUIRED' });

    const own = await b.subscribe('profile', { kind: 'teamProfile', teamId: team.id });
    const loaded = own.status === 'success' ? own : await b.waitFor('profile', (s) => s.status === 'success');
    expect(loaded.data).toMatchObject({ teamId: team.id, userId: signUp.userId });

    await a.api.updateTeamProfile(team.id, { displayName: 'Captain' });
    const updated = await b.waitFor(
      'profile',
      (s) => (s.data as { displayName?: string } | undefined)?.displayName === 'Captain',
    );
    expect(updated.status).toBe('success');
  });
});

describe('the API URL as the emulator prints it', () => {
  it('a baseUrl ending in /api/v1 signs in and reads the user (no /api/v1/api/v1)', async () => {
    const em = emulator();
    const { createBroker } = await import('../../worker/index.js');
    const broker = await createBroker(
      {
        baseUrl: `${em.url}/api/v1`,
        projectId: em.projects.demo.id,
        publishableClientKey: em.projects.demo.publishableClientKey,
      },
      { mode: 'in-process', locks: null, clock: emulatorClock(em) },
    );
    brokers.push(broker);
    const api = broker.connect({ tabId: 'api-v1', version: 'test' }, { deliver: () => undefined });
    expect((await api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' })).status).toBe(
      'signed-in',
    );
    expect(await api.read({ kind: 'currentUser' })).toMatchObject({ primaryEmail: 'demo@authbroker.dev' });
  });
});
