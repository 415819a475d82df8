import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { Broker } from '../../worker/broker.js';
import { compressedClock, resetIndexedDb, startTestBroker, tokenRequests } from '../support/broker.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab } from '../support/tabs.js';

const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
let brokers: Broker[] = [];

beforeEach(async () => {
  await resetIndexedDb();
  emulator().env.stats.reset();
});
afterEach(() => {
  for (const broker of brokers) broker.close();
  brokers = [];
});

async function signedInBroker(locks?: NonNullable<Parameters<typeof startTestBroker>[1]>['locks']) {
  const { broker, locks: l } = await startTestBroker(emulator(), locks ? { locks } : {});
  brokers.push(broker);
  return { broker, locks: l };
}

describe('one refresh, however many tabs', () => {
  it('10 tabs × 50 calls with an expired access token cause exactly one token request', async () => {
    const em = emulator();
    const { broker, locks } = await signedInBroker();
    const tabs = await Promise.all(Array.from({ length: 10 }, () => connectTab(broker, locks)));
    const email = uniqueEmail('storm');
    expect(
      await tabs[0]!.api.signUpWithPassword({
        email,
        password: 'storm-password',
        verificationCallbackUrl: 'http://localhost:5173/handler/email-verification',
      }),
    ).toMatchObject({ status: 'signed-in' });
    em.env.stats.reset();
    em.env.clock.advance(TEN_MINUTES + 1000);

    const calls = tabs.flatMap((tab) =>
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0 ? tab.api.getAccessToken() : tab.api.read({ kind: 'currentUser' }),
      ),
    );
    const results = await Promise.all(calls);
    expect(results.every((r) => r !== null)).toBe(true);
    expect(await tokenRequests(em)).toBe(1);
    expect((await tabs[3]!.api.status()).tokenRefreshes).toBe(1);
    for (const tab of tabs) tab.close();
  });

  it('calls answered ACCESS_TOKEN_EXPIRED (the broker clock disagreeing) still share one refresh and are retried', async () => {
    const em = emulator();
    const { broker, locks } = await startTestBroker(em, { clock: compressedClock });
    brokers.push(broker);
    const tab = await connectTab(broker, locks);
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    em.env.stats.reset();
    // Only the emulator's time moves: the broker still believes its token is fresh and sends it.
    em.env.clock.advance(TEN_MINUTES + 1000);
    const users = await Promise.all(
      Array.from({ length: 30 }, () =>
        tab.api.refetch({ kind: 'currentUser' }).then(() => tab.api.read({ kind: 'currentUser' })),
      ),
    );
    expect(users.every((u) => u?.primaryEmail === 'demo@authbroker.dev')).toBe(true);
    expect(await tokenRequests(em)).toBe(1);
    tab.close();
  });

  it('two brokers side by side on one IndexedDB make one token request', async () => {
    const em = emulator();
    const first = await signedInBroker();
    const second = await signedInBroker(first.locks);
    const a = await connectTab(first.broker, first.locks);
    const b = await connectTab(second.broker, first.locks);
    await a.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await b.waitFor('noop', () => true, 10).catch(() => undefined);
    // The second broker learns of the sign-in through BroadcastChannel and IndexedDB.
    await b.subscribe('session', { kind: 'session' });
    await b.waitFor('session', (s) => (s.data as { status: string }).status === 'signed-in');
    em.env.stats.reset();
    em.env.clock.advance(TEN_MINUTES + 1000);
    const tokens = await Promise.all([
      ...Array.from({ length: 20 }, () => a.api.getAccessToken()),
      ...Array.from({ length: 20 }, () => b.api.getAccessToken()),
    ]);
    expect(new Set(tokens).size).toBe(1);
    expect(await tokenRequests(em)).toBe(1);
    a.close();
    b.close();
  });

  it('a refresh the service rejects ends the session, with that reason, in every tab', async () => {
    const em = emulator();
    const { broker, locks } = await signedInBroker();
    const [a, b] = [await connectTab(broker, locks), await connectTab(broker, locks)];
    const email = uniqueEmail('revoked');
    await a.api.signUpWithPassword({
      email,
      password: 'revoked-password',
      verificationCallbackUrl: 'http://localhost:5173/x',
    });
    await b.subscribe('session', { kind: 'session' });
    await b.subscribe('user', { kind: 'currentUser' });
    await b.waitFor('user', (s) => s.status === 'success' && s.data !== null);
    // Every session of the user revoked on the service (as a password reset elsewhere would).
    const server = transportFor(em, 'server');
    const user = await b.api.read({ kind: 'currentUser' });
    await endpoints.updateUser(server, user!.id, { password: 'another-password' });
    em.env.clock.advance(TEN_MINUTES + 1000);
    expect(await a.api.getAccessToken()).toBeNull();
    const session = await b.waitFor('session', (s) => (s.data as { status: string }).status === 'signed-out');
    expect(session.data).toMatchObject({
      status: 'signed-out',
      lastEnd: { reason: 'session-revoked', code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' },
    });
    await b.waitFor('user', (s) => s.status === 'success' && s.data === null);
    a.close();
    b.close();
  });

  it('a refresh that fails for network reasons keeps the session', async () => {
    const em = emulator();
    let down = false;
    const flakyFetch: typeof fetch = (input, init) =>
      down ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
    const { broker, locks } = await startTestBroker(em, { fetch: flakyFetch });
    brokers.push(broker);
    const tab = await connectTab(broker, locks);
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    em.env.clock.advance(TEN_MINUTES + 1000);
    down = true;
    const failed = tab.api.getAccessToken().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    // Let the broker notice, then bring the network back: the waiting call completes by itself.
    await new Promise((resolve) => setTimeout(resolve, 50));
    down = false;
    await tab.api.reportBrowserState({ online: true });
    const outcome = await failed;
    if (outcome !== 'resolved') expect((outcome as { code?: string }).code).toMatch(/^NETWORK_/);
    expect((await tab.api.status()).session.status).toBe('signed-in');
    expect(await tab.api.getAccessToken()).toMatch(/^ey/);
    tab.close();
  });
});

describe('errors cross the boundary typed', () => {
  it('a known error thrown in the broker arrives as a KnownError with its code and family', async () => {
    const { broker, locks } = await signedInBroker();
    const tab = await connectTab(broker, locks);
    const error = await tab.api
      .signInWithPassword({ email: 'demo@authbroker.dev', password: 'wrong-password' })
      .catch((e: unknown) => e);
    expect(isKnownError(error, 'EMAIL_PASSWORD_MISMATCH')).toBe(true);
    tab.close();
  });
});
