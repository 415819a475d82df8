import { describe, expect, it } from 'vitest';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { connectOverPort } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
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
    await until(
      () => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] === 1,
      'the sign-out to be sent',
    );
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
    const asked = await connectOverPort(
      port1 as unknown as MessagePort,
      memory.broker.config,
      { tabId: 'x', version: 'test' },
      () => undefined,
      (p) => p,
      tabErrors,
    ).then(
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
    await until(
      async () => (await second.broker.parts.session.currentAccessToken()) !== null,
      'the renewed token to reach the other broker',
    );
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
    const page = new BroadcastChannel(
      `authbroker:memory-tokens:${broker.broker.config.projectId}@${broker.broker.config.baseUrl};tokens=memory`,
    );
    const base = {
      slot,
      status: 'active',
      sessionKey: 'forged',
      refreshToken: 'r'.repeat(40),
      accessToken: null,
      userId: null,
    };
    page.postMessage({ type: 'record', record: { ...base, updatedAtMillis: Date.now() + 365 * 24 * 3600_000 } });
    page.postMessage({ type: 'record', record: { ...base, refreshToken: 5, updatedAtMillis: Date.now() + 1 } });
    page.postMessage({ type: 'record', record: '<script>' });
    page.postMessage(null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(broker.broker.parts.session.sessionKey).toBe(held);
    page.close();
  });
});

/** An access token as the broker reads it (unverified: the broker only reads whose it is and when it expires). */
function tokenFor(sub: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ sub, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 })}.c2lnbmF0dXJl`;
}

/** The user an access token names. */
const subOf = (token: string | null) =>
  token === null
    ? null
    : (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;

describe('what other pages may post to in-page brokers keeping tokens in memory (issue 32, item 4)', () => {
  const inPage = (locks: LocalLockManager) => scope.start({ locks, tokenStore: 'memory', mode: 'in-process' });
  const channelOf = (broker: { config: { projectId: string; baseUrl: string } }) =>
    new BroadcastChannel(`authbroker:memory-tokens:${broker.config.projectId}@${broker.config.baseUrl};tokens=memory`);

  it('records of slots that are not the broker’s own, or with tokens longer than any the service issues, are not kept, and take no lock', async () => {
    const locks = new LocalLockManager();
    const broker = await inPage(locks);
    const page = channelOf(broker.broker);
    const megabyte = 'x'.repeat(1_000_000);
    const record = (slot: string, token: string) => ({
      slot,
      status: 'active',
      sessionKey: crypto.randomUUID(),
      refreshToken: token,
      accessToken: null,
      userId: null,
      updatedAtMillis: broker.broker.parts.clock.now(),
    });
    // Before: every record was adopted, whatever its slot or size, with a Web Lock queued per slot.
    for (let i = 0; i < 20; i++) page.postMessage({ type: 'record', record: record(`foreign-${i}`, megabyte) });
    page.postMessage({ type: 'record', record: record(broker.broker.parts.session.slot, megabyte) });
    page.postMessage({ type: 'record', record: record('foreign-small', 'r'.repeat(40)) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const storage = broker.broker.parts.storage;
    for (const slot of ['foreign-0', 'foreign-19', 'foreign-small', broker.broker.parts.session.slot])
      expect(await storage.loadSession(slot), slot).toBeNull();
    expect(locks.query().held.filter((name) => name.startsWith('authbroker:memory-tokens:'))).toEqual([]);
    expect(broker.broker.status().session).toMatchObject({ status: 'signed-out' });
    page.close();
  });

  it('a record under the held session’s key with another user’s tokens is not taken: the session stays its user’s, saying so', async () => {
    const locks = new LocalLockManager();
    const broker = await inPage(locks);
    const tab = await scope.tab(broker);
    await tab.api.signInWithPassword(DEMO);
    const { session } = broker.broker.parts;
    const user = subOf(await session.getAccessToken());
    const page = channelOf(broker.broker);
    // The victim's session key and user id, another user's tokens, dated later than the session's.
    page.postMessage({
      type: 'record',
      record: {
        slot: session.slot,
        status: 'active',
        sessionKey: session.sessionKey,
        refreshToken: 'other-user-refresh-token-0123456789',
        accessToken: tokenFor('another-user'),
        userId: user,
        updatedAtMillis: broker.broker.parts.clock.now() + 1000,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subOf(await tab.api.getAccessToken())).toBe(user);
    expect(await session.getRefreshToken()).not.toBe('other-user-refresh-token-0123456789');
    expect((await tab.api.status()).warnings.join(' ')).toMatch(/Tokens of another user arrived for this session/);
    page.close();
  });

  it('a holder lock taken twice by another page still has a holder: a tab that opens then gets the session', async () => {
    const locks = new LocalLockManager();
    const first = await inPage(locks);
    await (await scope.tab(first)).api.signInWithPassword(DEMO);
    const second = await inPage(locks);
    expect(second.broker.status().session).toMatchObject({ status: 'signed-in' });
    const holder = `authbroker:memory-tokens:${first.broker.config.projectId}@${first.broker.config.baseUrl};tokens=memory:${first.broker.parts.session.slot}`;
    expect(locks.isHeld(holder)).toBe(true);
    // Taken from each holder in turn, and let go: before, neither queued again and nobody held it.
    for (let i = 0; i < 2; i++) {
      await locks.request(holder, { steal: true }, () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(locks.isHeld(holder)).toBe(true);
    const third = await inPage(locks);
    expect(third.broker.status().session).toMatchObject({ status: 'signed-in' });
  });
});

describe('tokens of another user for the held session, in the default store (issue 32, item 4)', () => {
  it('a record rewritten in IndexedDB with another user’s tokens and a `tokens` hint on the bus: not taken, the session stays its user’s', async () => {
    const started = await scope.start();
    const tab = await scope.tab(started);
    await tab.api.signInWithPassword(DEMO);
    const { session } = started.broker.parts;
    const user = subOf(await session.getAccessToken());
    const stored = (await started.broker.parts.storage.loadSession(session.slot))!;
    // Another page of the origin: the database is the origin's, the channel's name no secret.
    const { createIndexedDbStorage } = await import('../../worker/storage/indexedDb.js');
    const pageStorage = await createIndexedDbStorage();
    await pageStorage.saveSession({
      ...stored,
      status: 'active',
      sessionKey: session.sessionKey!,
      refreshToken: 'other-user-refresh-token-0123456789',
      accessToken: tokenFor('another-user'),
      accessTokenRenewAtMillis: Date.now() + 600_000,
      userId: user,
      updatedAtMillis: Date.now() + 1000,
    } as never);
    const bus = new BroadcastChannel(`authbroker:${session.slot}`);
    bus.postMessage({ type: 'tokens', slot: session.slot, sessionKey: session.sessionKey });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Before: the broker swapped to the other user's tokens while every tab still showed this user.
    expect(subOf(await tab.api.getAccessToken())).toBe(user);
    expect((await tab.api.status()).warnings.join(' ')).toMatch(/Tokens of another user arrived for this session/);
    bus.close();
    pageStorage.close();
  });
});

describe('a renewal that answers another user’s token', () => {
  it('ends the session, saying so, rather than going on as the user it was', async () => {
    const em = emulator();
    const started = await scope.start({
      tokenGrant: async () => ({
        refreshAccessToken: async () => ({ access_token: tokenFor('another-user') }) as never,
      }),
    });
    const tab = await scope.tab(started);
    await tab.api.signInWithPassword(DEMO);
    em.env.clock.advance(ELEVEN_MINUTES);
    expect(await tab.api.getAccessToken()).toBeNull();
    const status = await tab.api.status();
    expect(status.session).toMatchObject({ status: 'signed-out' });
    expect(status.warnings.join(' ')).toMatch(/Tokens of another user arrived for this session/);
  });
});
