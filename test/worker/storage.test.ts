import { openDB } from 'idb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Broker } from '../../worker/broker.js';
import type { SessionInfo, User } from '../../worker/index.js';
import { DATABASE_NAME, SCHEMA_VERSION } from '../../worker/storage/indexedDb.js';
import type { SessionRecord } from '../../worker/storage/types.js';
import { demoSessionSlot, resetIndexedDb, startTestBroker, tokenRequests } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { settle } from './network.js';

const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
const APP = 'http://localhost:5173';

let brokers: Broker[] = [];
let tabs: SimulatedTab[] = [];

beforeEach(async () => {
  await resetIndexedDb();
  emulator().env.stats.reset();
});
afterEach(async () => {
  for (const tab of tabs) tab.close();
  tabs = [];
  for (const broker of brokers) broker.close();
  brokers = [];
});

async function broker(options: Parameters<typeof startTestBroker>[1] = {}) {
  const started = await startTestBroker(emulator(), options);
  brokers.push(started.broker);
  return started;
}

async function tab(started: { broker: Broker; locks: LocalLockManager }) {
  const t = await connectTab(started.broker, started.locks);
  tabs.push(t);
  return t;
}

async function signUp(t: SimulatedTab): Promise<string> {
  const result = await t.api.signUpWithPassword({
    email: uniqueEmail('stored'),
    password: 'stored-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  if (result.status !== 'signed-in') throw new Error('not signed in');
  return result.userId;
}

const sessionOf = (t: SimulatedTab) => t.latest('session')?.data as SessionInfo | undefined;

/** Deletes the database as "clear site data" in another tab would; resolves when it is gone. */
function deleteDatabaseElsewhere(): Promise<'deleted' | 'blocked'> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(DATABASE_NAME);
    request.onsuccess = () => resolve('deleted');
    request.onerror = () => reject(request.error);
    request.onblocked = () => resolve('blocked');
  });
}

describe('the IndexedDB schema', () => {
  it('a database a newer deploy upgraded (version 99, one more store) still serves this broker, and is left as it was', async () => {
    const newer = await openDB(DATABASE_NAME, 99, {
      upgrade(db) {
        db.createObjectStore('sessions', { keyPath: 'slot' });
        db.createObjectStore('oauthFlows', { keyPath: 'state' }).createIndex('createdAtMillis', 'createdAtMillis');
        db.createObjectStore('outbox', { keyPath: 'id', autoIncrement: true }).createIndex('projectId', 'projectId');
        db.createObjectStore('passkeyHints', { keyPath: 'id' });
      },
    });
    await newer.put('passkeyHints', { id: 'kept', note: 'written by the newer deploy' });
    newer.close();

    const first = await broker();
    expect(first.broker.status()).toMatchObject({ storage: 'indexeddb', warnings: [] });
    const userId = await signUp(await tab(first));
    const token = await (await tab(first)).api.getAccessToken();
    first.broker.close();

    // A restart on the same database: the session is back, without asking for a new token.
    const requestsBefore = await tokenRequests(emulator());
    const second = await broker({ locks: first.locks });
    const t = await tab(second);
    expect((await t.api.status()).session).toEqual({ status: 'signed-in', userId });
    expect(await t.api.getAccessToken()).toBe(token);
    expect(await tokenRequests(emulator())).toBe(requestsBefore);

    const db = await openDB(DATABASE_NAME);
    try {
      expect(db.version).toBe(99);
      expect([...db.objectStoreNames].sort()).toEqual(['oauthFlows', 'outbox', 'passkeyHints', 'sessions']);
      expect(await db.get('passkeyHints', 'kept')).toMatchObject({ note: 'written by the newer deploy' });
      expect(((await db.get('sessions', demoSessionSlot(emulator()))) as SessionRecord).status).toBe('active');
    } finally {
      db.close();
    }
  });

  it('a newer deploy upgrading the database while this broker runs: the broker lets go, reopens at the new version, keeps the session', async () => {
    const started = await broker();
    const a = await tab(started);
    await a.subscribe('session', { kind: 'session' });
    const userId = await signUp(a);
    // Would stay blocked (and time out) if the running broker held on to its connection.
    const newer = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, {
      upgrade(db) {
        db.createObjectStore('passkeyHints', { keyPath: 'id' });
      },
    });
    newer.close();
    expect(sessionOf(a)).toEqual({ status: 'signed-in', userId });
    // The broker goes on storing: a new sign-in after the upgrade survives a restart.
    const second = await signUp(a);
    expect((await a.api.status()).warnings).toEqual([]);
    started.broker.close();
    const again = await broker({ locks: started.locks });
    expect(again.broker.status().session).toEqual({ status: 'signed-in', userId: second });
  });

  it('a fresh broker on an existing database restores the session: the valid access token is reused, an expired one renewed once', async () => {
    const em = emulator();
    const first = await broker();
    const a = await tab(first);
    const userId = await signUp(a);
    const token = await a.api.getAccessToken();
    first.broker.close();
    em.env.stats.reset();

    const second = await broker({ locks: first.locks });
    const b = await tab(second);
    await b.subscribe('session', { kind: 'session' });
    expect(sessionOf(b)).toEqual({ status: 'signed-in', userId });
    expect((await b.api.read({ kind: 'currentUser' }))!.id).toBe(userId);
    expect(await b.api.getAccessToken()).toBe(token);
    expect(await tokenRequests(em)).toBe(0);
    expect((await b.api.status()).tokenRefreshes).toBe(0);

    em.env.clock.advance(TEN_MINUTES + 1000);
    const renewed = await Promise.all([b.api.getAccessToken(), b.api.getAccessToken()]);
    expect(renewed[0]).not.toBe(token);
    expect(renewed[1]).toBe(renewed[0]);
    expect(await tokenRequests(em)).toBe(1);
    // The database has no new version: this broker's schema is the one it found.
    const db = await openDB(DATABASE_NAME);
    expect(db.version).toBe(SCHEMA_VERSION);
    db.close();
  });
});

describe('without IndexedDB', () => {
  it('storage that refuses to open: a memory session and a warning the app can show', async () => {
    const started = await broker({
      storage: async () => {
        throw new Error('denied');
      },
    });
    const t = await tab(started);
    const status = await t.api.status();
    expect(status.storage).toBe('memory');
    expect(status.warnings).toHaveLength(1);
    expect(status.warnings[0]).toContain('denied');
    expect(status.warnings[0]).toMatch(/memory/);
    const userId = await signUp(t);
    expect((await t.api.read({ kind: 'currentUser' }))!.id).toBe(userId);
    expect((await t.api.status()).session).toEqual({ status: 'signed-in', userId });
    // Nothing reached IndexedDB.
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(DATABASE_NAME);
  });

  it('a newer database without a store this broker needs: a memory session and a warning naming the store', async () => {
    const newer = await openDB(DATABASE_NAME, 99, {
      upgrade(db) {
        db.createObjectStore('sessions', { keyPath: 'slot' });
      },
    });
    newer.close();
    const started = await broker();
    const status = started.broker.status();
    expect(status.storage).toBe('memory');
    expect(status.warnings.join(' ')).toContain('lacks the oauthFlows store');
    const t = await tab(started);
    const userId = await signUp(t);
    expect((await t.api.status()).session).toEqual({ status: 'signed-in', userId });
  });

  it('no indexedDB global at all (some private modes): the same, and the session ends with the broker', async () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')!;
    delete (globalThis as { indexedDB?: unknown }).indexedDB;
    try {
      const started = await broker();
      const t = await tab(started);
      expect((await t.api.status()).storage).toBe('memory');
      expect((await t.api.status()).warnings.join(' ')).toContain('IndexedDB is not available');
      await signUp(t);
      started.broker.close();
      const again = await broker({ locks: started.locks });
      expect(again.broker.status().session).toEqual({ status: 'signed-out', lastEnd: null });
    } finally {
      Object.defineProperty(globalThis, 'indexedDB', descriptor);
    }
  });
});

describe('site data cleared', () => {
  it('deleting the database from another tab signs every tab out with reason storage-cleared; a new sign-in is stored again', async () => {
    const started = await broker();
    const [a, b, c] = [await tab(started), await tab(started), await tab(started)];
    await signUp(a);
    for (const t of [b, c]) {
      await t.subscribe('session', { kind: 'session' });
      await t.subscribe('user', { kind: 'currentUser' });
      await t.waitFor('user', (s) => s.status === 'success' && s.data !== null);
    }

    expect(await deleteDatabaseElsewhere()).toBe('deleted');
    for (const t of [b, c]) {
      await t.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
      expect(sessionOf(t)).toMatchObject({
        status: 'signed-out',
        lastEnd: { reason: 'storage-cleared', message: 'Site data was cleared, which signed you out.' },
      });
      await t.waitFor('user', (s) => s.status === 'success' && s.data === null);
    }
    expect(await a.api.getAccessToken()).toBeNull();

    // Signing in again works, and is persisted: a restarted broker finds it.
    const userId = await signUp(a);
    await b.waitFor('user', (s) => (s.data as User | null)?.id === userId);
    expect((await a.api.status()).warnings).toEqual([]);
    started.broker.close();
    const again = await broker({ locks: started.locks });
    expect(again.broker.status().session).toEqual({ status: 'signed-in', userId });
  });
});

describe('two brokers on one origin (two deploys side by side)', () => {
  it('a sign-in in one appears in the other; a sign-out in one ends the other with the same reason', async () => {
    const em = emulator();
    const locks = new LocalLockManager();
    const one = await broker({ locks });
    const two = await broker({ locks });
    const a = await tab(one);
    const b = await tab(two);
    await a.subscribe('session', { kind: 'session' });
    await b.subscribe('session', { kind: 'session' });
    await b.subscribe('user', { kind: 'currentUser' });

    const userId = await signUp(a);
    await b.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
    expect(sessionOf(b)).toEqual({ status: 'signed-in', userId });
    await b.waitFor('user', (s) => (s.data as User | null)?.id === userId);
    // The other broker uses the stored tokens: no token request of its own.
    em.env.stats.reset();
    expect(await b.api.getAccessToken()).toBe(await a.api.getAccessToken());
    expect(await tokenRequests(em)).toBe(0);

    await b.api.signOut();
    await a.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    const endA = sessionOf(a) as Extract<SessionInfo, { status: 'signed-out' }>;
    const endB = sessionOf(b) as Extract<SessionInfo, { status: 'signed-out' }>;
    expect(endA.lastEnd).toMatchObject({ reason: 'signed-out' });
    expect(endA.lastEnd).toEqual(endB.lastEnd);
    expect(await a.api.getAccessToken()).toBeNull();
    expect(em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200']).toBe(1);
  });

  it('site data cleared ends the session in both brokers with reason storage-cleared', async () => {
    const locks = new LocalLockManager();
    const one = await broker({ locks });
    const two = await broker({ locks });
    const a = await tab(one);
    const b = await tab(two);
    await b.subscribe('session', { kind: 'session' });
    await a.subscribe('session', { kind: 'session' });
    await signUp(a);
    await b.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
    expect(await deleteDatabaseElsewhere()).toBe('deleted');
    for (const t of [a, b]) {
      await t.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
      expect(sessionOf(t)).toMatchObject({ lastEnd: { reason: 'storage-cleared' } });
    }
    await settle();
  });
});
