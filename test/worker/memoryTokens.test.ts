import { describe, expect, it } from 'vitest';
import { exposeBrokerEntry } from '../../worker/rpc/entry.js';
import { connectOverPort } from '../../client/rpc.js';
import { tabErrors } from '../../client/tabErrors.js';
import { everythingStored, tokenRequests } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import type { SimulatedTab } from '../support/tabs.js';
import { recordingFetch } from './network.js';

/**
 * `tokenStore: 'memory'`: the refresh token lives in the broker's memory only. Shared by the tabs
 * of one worker host, shared between in-page brokers (one per tab) over their own channel, never
 * written to IndexedDB, gone with the last broker.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const ELEVEN_MINUTES = 11 * 60 * 1000;

async function signedInUser(tab: SimulatedTab): Promise<string | null> {
  return (await tab.api.read({ kind: 'currentUser' }))?.primaryEmail ?? null;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

describe('tokenStore: memory in a worker host', () => {
  it('signs in and renews tokens for every tab, and nothing of the session reaches IndexedDB', async () => {
    const em = emulator();
    const started = await scope.start({ tokenStore: 'memory' });
    const [a, b] = [await scope.tab(started), await scope.tab(started)];
    await a.api.signInWithPassword(DEMO);
    expect(await signedInUser(b)).toBe(DEMO.email);
    const refreshToken = (await started.broker.parts.session.getRefreshToken())!;
    expect(refreshToken.length).toBeGreaterThan(10);
    expect(started.broker.status().storage).toBe('memory');

    em.env.stats.reset();
    em.env.clock.advance(ELEVEN_MINUTES);
    await Promise.all([a.api.refetch({ kind: 'currentUser' }), b.api.refetch({ kind: 'currentUser' })]);
    expect(await tokenRequests(em)).toBe(1);

    const stored = await everythingStored();
    expect(stored).not.toContain(refreshToken);
    expect(stored).not.toContain((await a.api.getAccessToken())!);
  });

  it('an offline sign-out waits in memory, not in IndexedDB, and is sent when the network returns', async () => {
    const em = emulator();
    const net = recordingFetch();
    const started = await scope.start({ tokenStore: 'memory', fetch: net.fetch });
    const tab = await scope.tab(started);
    await tab.api.signInWithPassword(DEMO);
    const refreshToken = (await started.broker.parts.session.getRefreshToken())!;
    net.offline = true;
    await tab.api.reportBrowserState({ online: false });
    await until(async () => (await tab.api.status()).connectivity.state === 'offline', 'offline');
    await tab.api.signOut();
    expect((await tab.api.status()).session).toMatchObject({ status: 'signed-out' });
    expect(await started.broker.parts.storage.listOutbox(started.broker.parts.session.slot)).toHaveLength(1);
    expect(await everythingStored()).not.toContain(refreshToken);

    net.offline = false;
    await tab.api.reportBrowserState({ online: true });
    await until(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1, 'the sign-out to be sent');
  });

  it('a session an earlier deploy stored is deleted when the app switches to memory; the next start is signed out', async () => {
    const locks = new LocalLockManager();
    const stored = await scope.start({ locks });
    const tab = await scope.tab(stored);
    await tab.api.signInWithPassword(DEMO);
    const refreshToken = (await stored.broker.parts.session.getRefreshToken())!;
    expect(await everythingStored()).toContain(refreshToken);
    tab.close();
    stored.broker.close();

    const memory = await scope.start({ locks, tokenStore: 'memory' });
    expect(await everythingStored()).not.toContain(refreshToken);
    expect(memory.broker.status().session).toMatchObject({ status: 'signed-out' });
  });

  it('a memory broker and a storing one of the same project share nothing; a tab cannot ask one for the other', async () => {
    const locks = new LocalLockManager();
    const memory = await scope.start({ locks, tokenStore: 'memory' });
    const storing = await scope.start({ locks });
    const inMemory = await scope.tab(memory);
    await inMemory.api.signInWithPassword(DEMO);
    expect(storing.broker.status().session).toMatchObject({ status: 'signed-out' });
    expect(memory.broker.parts.bus).not.toBe(storing.broker.parts.bus);

    const { port1, port2 } = new MessageChannel();
    exposeBrokerEntry(async () => storing.broker, port2);
    const asked = await connectOverPort(port1 as unknown as MessagePort, memory.broker.config, { tabId: 'x', version: 'test' }, () => undefined, (p) => p, tabErrors).then(
      () => null,
      (error: unknown) => error,
    );
    expect(asked).toMatchObject({ code: 'INVALID_ARGUMENT' });
    port1.close();
  });
});

describe('tokenStore: memory with in-page brokers (one per tab)', () => {
  const inPage = (locks: LocalLockManager) => scope.start({ locks, tokenStore: 'memory', mode: 'in-process' });

  it('a tab that opens later is signed in from the others at its start; sign-ins and sign-outs reach every tab; none of it is stored', async () => {
    const em = emulator();
    const locks = new LocalLockManager();
    const first = await inPage(locks);
    const firstTab = await scope.tab(first);
    await firstTab.api.signInWithPassword(DEMO);

    const second = await inPage(locks);
    // Known at the start, not after a first "signed out" that would clear the tabs' kept copy.
    expect(second.broker.status().session).toMatchObject({ status: 'signed-in' });
    const secondTab = await scope.tab(second);
    expect(await signedInUser(secondTab)).toBe(DEMO.email);

    em.env.stats.reset();
    em.env.clock.advance(ELEVEN_MINUTES);
    await firstTab.api.refetch({ kind: 'currentUser' });
    await until(async () => (await second.broker.parts.session.currentAccessToken()) !== null, 'the renewed token to reach the other broker');
    await secondTab.api.refetch({ kind: 'currentUser' });
    expect(await tokenRequests(em)).toBe(1);

    const refreshToken = (await first.broker.parts.session.getRefreshToken())!;
    expect(await everythingStored()).not.toContain(refreshToken);

    await secondTab.api.signOut();
    await until(() => first.broker.status().session.status === 'signed-out', 'the sign-out to reach the first tab');
  });

  it('when the last in-page broker closes the session is gone; a broker that starts alone does not wait for answers', async () => {
    const locks = new LocalLockManager();
    const first = await inPage(locks);
    await (await scope.tab(first)).api.signInWithPassword(DEMO);
    first.broker.close();

    const startedAt = Date.now();
    const next = await inPage(locks);
    expect(Date.now() - startedAt).toBeLessThan(900);
    expect(next.broker.status().session).toMatchObject({ status: 'signed-out' });
  });

  it('what arrives on the channel is checked: malformed records and records dated in the future are not adopted', async () => {
    const locks = new LocalLockManager();
    const broker = await inPage(locks);
    const tab = await scope.tab(broker);
    await tab.api.signInWithPassword(DEMO);
    const held = broker.broker.parts.session.sessionKey;
    const slot = broker.broker.parts.session.slot;
    const page = new BroadcastChannel(`authbroker:memory-tokens:${broker.broker.config.projectId}@${broker.broker.config.baseUrl};tokens=memory`);
    const base = { slot, status: 'active', sessionKey: 'forged', refreshToken: 'r'.repeat(40), accessToken: null, userId: null };
    page.postMessage({ type: 'record', record: { ...base, updatedAtMillis: Date.now() + 365 * 24 * 3600_000 } });
    page.postMessage({ type: 'record', record: { ...base, refreshToken: 5, updatedAtMillis: Date.now() + 1 } });
    page.postMessage({ type: 'record', record: '<script>' });
    page.postMessage(null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(broker.broker.parts.session.sessionKey).toBe(held);
    page.close();
  });
});
