import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Broker } from '../../worker/broker.js';
import type { SessionInfo, User } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { flush } from '../support/scheduler.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';

const emulator = useEmulator();
let broker: Broker;
let tabs: SimulatedTab[] = [];
let locks: Awaited<ReturnType<typeof startTestBroker>>['locks'];

beforeEach(async () => {
  await resetIndexedDb();
  ({ broker, locks } = await startTestBroker(emulator()));
});
afterEach(() => {
  for (const tab of tabs) tab.close();
  tabs = [];
  broker.close();
});

async function tab() {
  const t = await connectTab(broker, locks);
  tabs.push(t);
  return t;
}

const user = (tab: SimulatedTab) => tab.latest('user')?.data as User | null | undefined;
const session = (tab: SimulatedTab) => tab.latest('session')?.data as SessionInfo | undefined;

describe('subscriptions in every tab', () => {
  it('a sign-in in one tab shows the user in the others, without asking', async () => {
    const [a, b, c] = [await tab(), await tab(), await tab()];
    for (const t of [b, c]) await t.subscribe('user', { kind: 'currentUser' });
    await b.waitFor('user', (s) => s.status === 'success' && s.data === null);
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    for (const t of [b, c])
      await t.waitFor('user', (s) => (s.data as User | null)?.primaryEmail === 'demo@authbroker.dev');
    expect(user(b)).toEqual(user(c));
  });

  it('PATCH /users/me in one tab shows in every tab at once, from the answer (no refetch)', async () => {
    const [a, b] = [await tab(), await tab()];
    await a.api.signUpWithPassword({
      email: uniqueEmail('patch'),
      password: 'patch-password',
      verificationCallbackUrl: 'http://localhost:5173/x',
    });
    await b.subscribe('user', { kind: 'currentUser' });
    await b.waitFor('user', (s) => s.status === 'success' && s.data !== null);
    const before = emulator().env.stats.snapshot().requests['GET /users/me']?.['200'] ?? 0;
    const updated = await a.api.updateUser({
      displayName: 'Renamed',
      clientMetadata: { theme: 'dark', nested: { snake_case: 1 } },
    });
    const seen = await b.waitFor('user', (s) => (s.data as User | null)?.displayName === 'Renamed');
    expect(seen.data).toEqual(updated);
    // Metadata is the app's own JSON: its keys are not camelCased.
    expect((seen.data as User).clientMetadata).toEqual({ theme: 'dark', nested: { snake_case: 1 } });
    expect(emulator().env.stats.snapshot().requests['GET /users/me']?.['200'] ?? 0).toBe(before);
  });

  it('sign-out in tab A: tab B receives a null user and the reason', async () => {
    const [a, b] = [await tab(), await tab()];
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await b.subscribe('user', { kind: 'currentUser' });
    await b.subscribe('session', { kind: 'session' });
    await b.waitFor('user', (s) => s.status === 'success' && s.data !== null);
    await a.api.signOut();
    await b.waitFor('user', (s) => s.status === 'success' && s.data === null);
    await b.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    expect(session(b)).toMatchObject({
      status: 'signed-out',
      lastEnd: { reason: 'signed-out', message: 'You signed out.' },
    });
    // The service no longer knows the session.
    expect(emulator().env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200']).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('a tab that vanishes without unsubscribing has its subscriptions released', async () => {
    const [a, b] = [await tab(), await tab()];
    await a.subscribe('user', { kind: 'currentUser' });
    await a.subscribe('teams', { kind: 'teams' });
    await b.subscribe('user', { kind: 'currentUser' });
    let status = await b.api.status();
    expect(status.tabsConnected).toBe(2);
    expect(status.subscriptions).toBe(3);
    a.vanish();
    for (let i = 0; i < 50 && status.tabsConnected !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = await b.api.status();
    }
    expect(status.tabsConnected).toBe(1);
    expect(status.subscriptions).toBe(1);
  });

  it('a tab that names its lifetime lock after connecting (as the client does) is released when it vanishes', async () => {
    const a = await connectTab(broker, locks, { lifetimeLock: 'after-connect' });
    tabs.push(a);
    const b = await tab();
    await a.subscribe('user', { kind: 'currentUser' });
    expect((await b.api.status()).tabsConnected).toBe(2);
    a.vanish();
    let status = await b.api.status();
    for (let i = 0; i < 50 && status.tabsConnected !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = await b.api.status();
    }
    expect(status).toMatchObject({ tabsConnected: 1, subscriptions: 0 });
  });

  it('watchLifetime naming a lock nobody holds does not release the tab; a bad name is a typed error', async () => {
    const a = await connectTab(broker, locks, { lifetimeLock: 'after-connect' });
    tabs.push(a);
    const c = await connectTab(broker, locks, { lifetimeLock: 'after-connect' });
    tabs.push(c);
    await c.subscribe('user', { kind: 'currentUser' });
    // A lock nobody holds changes nothing: the lock already watched stays watched.
    await c.api.watchLifetime('authbroker:tab:nobody-holds-this');
    // Lock requests settle in microtasks and immediates here: a release would have happened by now.
    await flush();
    expect((await a.api.status()).tabsConnected).toBe(2);
    const error = await a.api.watchLifetime('' as string).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidArgumentError', argument: 'lockName' });
  });

  it("watchLifetime answers with the broker's own lifetime lock: held while it lives, free once it stops; none for a broker in the page", async () => {
    const a = await connectTab(broker, locks, { lifetimeLock: 'after-connect' });
    tabs.push(a);
    const brokerLock = await a.api.watchLifetime('authbroker:tab:someone');
    expect(brokerLock).toBe(`authbroker:broker:${(await a.api.status()).brokerId}`);
    const isFree = () => locks.request(brokerLock!, { ifAvailable: true }, (lock) => lock !== null);
    expect(await isFree()).toBe(false);
    broker.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await isFree()).toBe(true);

    const inPage = await startTestBroker(emulator(), { mode: 'in-process', locks });
    const b = await connectTab(inPage.broker, locks, { lifetimeLock: 'after-connect' });
    expect(await b.api.watchLifetime('authbroker:tab:someone-else')).toBeNull();
    b.close();
    inPage.broker.close();
  });

  it('goodbye releases a tab at once', async () => {
    const [a, b] = [await tab(), await tab()];
    await a.subscribe('user', { kind: 'currentUser' });
    await a.api.goodbye();
    expect((await b.api.status()).subscriptions).toBe(0);
  });

  it('bad queries and arguments are typed errors and change nothing', async () => {
    const a = await tab();
    for (const query of [
      null,
      { kind: 'nope' },
      { kind: 'team' },
      { kind: 'team', teamId: 'x' },
      { kind: 'teams', extra: 1 },
    ]) {
      const error = await a.api.subscribe('s', query as never).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'InvalidArgumentError', code: 'INVALID_ARGUMENT' });
    }
    const error = await a.api
      .signInWithPassword({ email: 'demo@authbroker.dev', password: 'x', extra: true } as never)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'input.extra' });
    expect((await a.api.status()).subscriptions).toBe(0);
    expect((await a.api.status()).session.status).toBe('signed-out');
  });
});
