import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { NetworkError } from '../../protocol/errors/errors.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import type { SessionInfo } from '../../worker/index.js';
import { createIndexedDbStorage, DATABASE_NAME } from '../../worker/storage/indexedDb.js';
import type { BrokerStorage } from '../../worker/storage/types.js';
import { demoSessionSlot } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import { EmulatorClock } from '../support/scheduler.js';
import type { SimulatedTab } from '../support/tabs.js';
import { recordingFetch, settle } from './network.js';

/**
 * Storage is shared with other deploys and can fail: one bad record must not stop the broker or
 * lock the user out, and a sign-out must never be undone because storage refused to record it.
 */
const emulator = useEmulator();
const APP = 'http://localhost:5173';
const scope = useBrokerScope(emulator);

async function open(options: Parameters<typeof scope.start>[0] = {}) {
  const started = await scope.start(options);
  const tab = await scope.tab(started);
  await tab.subscribe('session', { kind: 'session' });
  return { ...started, tab };
}

async function signUp(tab: SimulatedTab): Promise<string> {
  const result = await tab.api.signUpWithPassword({
    email: uniqueEmail('storage'),
    password: 'storage-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  if (result.status !== 'signed-in') throw new Error('not signed in');
  return result.userId;
}

const sessionOf = (tab: SimulatedTab) => tab.latest('session')?.data as SessionInfo | undefined;

async function putRawRecord(record: unknown): Promise<void> {
  const db = await openDB(DATABASE_NAME, 1, {
    upgrade(database) {
      database.createObjectStore('sessions', { keyPath: 'slot' });
      database.createObjectStore('oauthFlows', { keyPath: 'state' }).createIndex('createdAtMillis', 'createdAtMillis');
      database
        .createObjectStore('outbox', { keyPath: 'id', autoIncrement: true })
        .createIndex('projectId', 'projectId');
    },
  });
  await db.put('sessions', record as never);
  db.close();
}

/** IndexedDB storage whose session writes of ended records (and deletions) fail while `refusing`. */
async function refusingStorage(what: { endings: boolean; outbox: boolean }) {
  const real = await createIndexedDbStorage();
  const control = { refusing: true, refusals: 0 };
  const quota = () => {
    control.refusals++;
    return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
  };
  const storage: BrokerStorage = {
    ...real,
    replaceSession: (record, expected) =>
      control.refusing && what.endings && record.status === 'ended' ? quota() : real.replaceSession(record, expected),
    removeSession: (slot, expected) =>
      control.refusing && what.endings ? quota() : real.removeSession(slot, expected),
    addOutbox: (item) => (control.refusing && what.outbox ? quota() : real.addOutbox(item)),
  };
  return { storage, control };
}

describe('a stored record this version cannot use', () => {
  const slot = () => demoSessionSlot(emulator());
  const bad: Array<[string, () => unknown]> = [
    ['a newer status', () => ({ slot: slot(), status: 'active-v2', sessionKey: 'k', updatedAtMillis: 1 })],
    [
      'an active record without its refresh token',
      () => ({ slot: slot(), status: 'active', sessionKey: 'k', accessToken: null, userId: null, updatedAtMillis: 1 }),
    ],
    [
      'a number where the record should be',
      () => ({
        slot: slot(),
        status: 'active',
        sessionKey: 42,
        refreshToken: 7,
        accessToken: {},
        userId: [],
        updatedAtMillis: 'x',
      }),
    ],
    [
      'an ended record with an unknown reason',
      () => ({
        slot: slot(),
        status: 'ended',
        sessionKey: 'k',
        end: { reason: 'abducted', atMillis: 1, message: '' },
        updatedAtMillis: 1,
      }),
    ],
  ];

  it.each(bad)(
    '%s: the broker starts signed out with a warning, and a sign-in replaces it and is kept',
    async (_name, record) => {
      await putRawRecord(record());
      const first = await open();
      expect(sessionOf(first.tab)).toMatchObject({ status: 'signed-out' });
      expect(first.broker.status().warnings.some((w) => w.includes('could not be read'))).toBe(true);
      const userId = await signUp(first.tab);
      // A later broker (the next page load) restores the new session from storage.
      const next = await open({ locks: new LocalLockManager() });
      await next.tab.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
      expect(sessionOf(next.tab)).toEqual({ status: 'signed-in', userId });
    },
  );
});

describe('a sign-out storage refuses to record', () => {
  it('holds in every broker, is retried until it is stored, and a broker started afterwards is signed out', async () => {
    const em = emulator();
    const clock = new EmulatorClock(em.env.clock);
    const locks = new LocalLockManager();
    const { storage, control } = await refusingStorage({ endings: true, outbox: false });
    const one = await open({ storage, locks, clock });
    const two = await open({ locks, clock });
    const userId = await signUp(one.tab);
    await two.tab.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');

    await one.tab.api.signOut();
    for (const { tab } of [one, two]) {
      await tab.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
      expect(sessionOf(tab)).toMatchObject({ lastEnd: { reason: 'signed-out' } });
    }
    expect(control.refusals).toBeGreaterThanOrEqual(2);
    expect(one.broker.status().warnings.some((w) => w.includes('sign-out could not be saved'))).toBe(true);
    // Storage still holds the live record: neither broker takes it back, whatever makes them re-read.
    const db = await openDB(DATABASE_NAME);
    const stored = (await db.get('sessions', demoSessionSlot(em))) as { status: string } | undefined;
    db.close();
    expect(stored?.status).toBe('active');
    await two.broker.parts.session.reload();
    await one.broker.parts.session.reload();
    expect(await two.tab.api.getAccessToken()).toBeNull();
    expect(await one.tab.api.getAccessToken()).toBeNull();
    expect(one.broker.parts.session.endPending).toBe(true);

    // Storage recovers; the next retry records the end.
    control.refusing = false;
    await clock.advance(1000);
    await settle();
    expect(one.broker.parts.session.endPending).toBe(false);
    const after = await open({ locks: new LocalLockManager(), clock });
    expect(sessionOf(after.tab)).toMatchObject({ status: 'signed-out', lastEnd: { reason: 'signed-out' } });
    expect(userId).not.toBe('');
  });
});

describe('an offline sign-out storage refuses to keep', () => {
  it('is kept in memory and still revokes the session at the service when the network returns', async () => {
    const em = emulator();
    const net = recordingFetch();
    const { storage } = await refusingStorage({ endings: false, outbox: true });
    const { tab, broker } = await open({ storage, fetch: net.fetch });
    await signUp(tab);
    const bodies = (await Promise.all(net.bodies)) as Array<{ refresh_token?: string } | null>;
    const refreshToken = bodies.map((b) => b?.refresh_token).find((t) => typeof t === 'string')!;

    net.offline = true;
    await tab.api.reportBrowserState({ online: false });
    await tab.api.signOut();
    expect(sessionOf(tab)).toMatchObject({ status: 'signed-out' });
    expect(broker.status().warnings.some((w) => w.includes('could not be saved'))).toBe(true);
    expect(em.env.stats.snapshot().requests['DELETE /auth/sessions/current']).toBeUndefined();

    net.offline = false;
    await tab.api.reportBrowserState({ online: true });
    await expect
      .poll(() => em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200'] ?? 0, { timeout: 5000 })
      .toBe(1);
    const refused = await refreshAccessToken(
      { baseUrl: em.url, projectId: em.projects.demo.id, publishableClientKey: em.projects.demo.publishableClientKey },
      refreshToken,
    ).catch((e: unknown) => e);
    expect(isKnownError(refused, 'REFRESH_TOKEN_ERROR')).toBe(true);
  });
});

describe('a token endpoint that never answers', () => {
  it('fails the callers after the attempts time out, keeps the session, and frees the refresh lock', async () => {
    const em = emulator();
    const clock = new EmulatorClock(em.env.clock);
    const locks = new LocalLockManager();
    let hang = false;
    const fetchFn: typeof fetch = (input, init) =>
      hang && String(input).includes('/auth/oauth/token')
        ? new Promise<Response>((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
          )
        : fetch(input, init);
    const { tab, broker } = await open({ fetch: fetchFn, clock, locks });
    await signUp(tab);
    hang = true;
    await clock.advance(10 * 60 * 1000);
    const token = tab.api.getAccessToken().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    // Five attempts of 30 s, and the waits between them.
    for (let i = 0; i < 12 && (await Promise.race([token, settle(5).then(() => 'pending')])) === 'pending'; i++)
      await clock.advance(30_000);
    const error = await token;
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).attempts).toBe(5);
    expect(broker.status().session).toMatchObject({ status: 'signed-in' });
    // Nobody holds the refresh lock any more: the next refresh can start at once.
    const free = await locks.request(
      `authbroker:refresh:${demoSessionSlot(em)}`,
      { ifAvailable: true },
      (lock) => lock !== null,
    );
    expect(free).toBe(true);
    hang = false;
    expect(await tab.api.getAccessToken()).toMatch(/^ey/);
  });
});
