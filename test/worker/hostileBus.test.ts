import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { channelName, readBusMessage } from '../../worker/coordination/bus.js';
import type { SessionInfo, User } from '../../worker/index.js';
import { DATABASE_NAME } from '../../worker/storage/indexedDb.js';
import { demoSessionSlot, tokenRequests } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import { useHandMadeConnections } from '../support/hostilePage.js';
import { settle } from './network.js';

/**
 * The brokers of one origin talk on a BroadcastChannel whose name is no secret: any page can post
 * on it. What arrives is checked, and taken as a hint (re-read storage, ask the service, refetch),
 * never as data or as the end of a session (issue 27, item 6; in Chromium: test/e2e/hostilePage.test.ts).
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const opened = useHandMadeConnections();

describe("the brokers' channel takes hints, not facts", () => {
  /** A page on the origin posting on the brokers' channel (its name is no secret). */
  function channelOf(): BroadcastChannel {
    const channel = new BroadcastChannel(channelName(demoSessionSlot(emulator())));
    opened.track(() => channel.close());
    return channel;
  }

  async function signedIn() {
    const started = await scope.start();
    const tab = await scope.tab(started);
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await tab.subscribe('user', { kind: 'currentUser' });
    await tab.subscribe('session', { kind: 'session' });
    await tab.waitFor('user', (s) => (s.data as User | null)?.primaryEmail === 'demo@authbroker.dev');
    const sessionKey = started.broker.parts.session.sessionKey!;
    return { ...started, tab, sessionKey, owner: `user:${sessionKey}` };
  }

  it('data posted on the channel never reaches a tab: the entry it names is refetched from the service', async () => {
    const { tab, owner } = await signedIn();
    const served = emulator().env.stats.snapshot().requests['GET /users/me']?.['200'] ?? 0;
    channelOf().postMessage({
      type: 'cache-set',
      owner,
      spec: { kind: 'currentUser' },
      value: { id: 'x', displayName: 'Forged name', primaryEmail: 'forged@example.com' },
    });
    await expect
      .poll(() => emulator().env.stats.snapshot().requests['GET /users/me']?.['200'] ?? 0)
      .toBeGreaterThan(served);
    await settle();
    expect(tab.deliveries.get('user')!.every((s) => (s.data as User | null)?.displayName !== 'Forged name')).toBe(true);
    expect((tab.latest('user')!.data as User).primaryEmail).toBe('demo@authbroker.dev');
  });

  it('a session end posted by a page signs nobody out when the service says the session lives; its sentence is never shown', async () => {
    const { broker, tab, sessionKey } = await signedIn();
    const before = await tokenRequests(emulator());
    const channel = channelOf();
    const end = {
      reason: 'session-revoked',
      atMillis: Date.now(),
      message: 'Call +1 555 0100 to restore your account.',
    };
    for (let i = 0; i < 50; i++)
      channel.postMessage({
        type: 'session',
        slot: demoSessionSlot(emulator()),
        sessionKey: null,
        end,
        endedSessionKey: sessionKey,
      });
    // One question to the service, whatever the number of messages; it says the session lives.
    await expect.poll(() => tokenRequests(emulator())).toBe(before + 1);
    await settle();
    expect(broker.status().session).toMatchObject({ status: 'signed-in' });
    expect(tab.deliveries.get('session')!.every((s) => (s.data as SessionInfo).status === 'signed-in')).toBe(true);
    expect(await tab.api.getAccessToken()).toMatch(/^ey/);
    // The page's sentence, not its digits alone: a random id in the status may contain them.
    expect(JSON.stringify(broker.status())).not.toMatch(/restore your account|555 0100/);
  });

  it("an end a page writes into storage is believed (storage is the truth) but shown in the broker's own words", async () => {
    const { tab, sessionKey } = await signedIn();
    const slot = demoSessionSlot(emulator());
    const db = await openDB(DATABASE_NAME);
    await db.put('sessions', {
      slot,
      status: 'ended',
      sessionKey,
      end: {
        reason: 'user-deleted',
        atMillis: Date.now(),
        message: 'Your account was deleted. Call +1 555 0100.',
        code: 'no such code',
      },
      updatedAtMillis: Date.now(),
    });
    db.close();
    channelOf().postMessage({ type: 'session', slot, sessionKey: null, end: null });
    const ended = await tab.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    expect((ended.data as Extract<SessionInfo, { status: 'signed-out' }>).lastEnd).toEqual({
      reason: 'user-deleted',
      atMillis: expect.any(Number),
      message: 'The account was deleted.',
    });
  });

  it('messages that are not ours are dropped, whatever their shape', () => {
    const owner = 'user:k';
    const junk: unknown[] = [
      null,
      'session',
      [],
      { type: 'session' },
      { type: 'session', slot: 's', sessionKey: null, end: { reason: 'abducted', atMillis: 1, message: '' } },
      { type: 'session', slot: 's', sessionKey: null, end: null, extra: true },
      { type: 'tokens', slot: 's', sessionKey: 7 },
      { type: 'cache-invalidate', owner, kind: 'toString', params: {} },
      { type: 'cache-invalidate', owner, kind: 'teams', params: { deep: { a: 1 } } },
      { type: 'cache-invalidate', owner: 'x'.repeat(10_000), kind: 'teams', params: {} },
      { type: 'cache-set', owner, spec: { kind: 'team', teamId: 'not-a-uuid' }, value: {} },
      { type: '__proto__' },
    ];
    for (const message of junk) expect(readBusMessage(message), JSON.stringify(message)).toBeNull();
    // What older deploys send for a mutation is read as "refetch this entry".
    expect(
      readBusMessage({ type: 'cache-set', owner, spec: { kind: 'currentUser' }, value: { displayName: 'x' } }),
    ).toEqual({ type: 'cache-invalidate', owner, kind: 'currentUser', params: {} });
    expect(
      readBusMessage({
        type: 'session',
        slot: 's',
        sessionKey: null,
        end: { reason: 'signed-out', atMillis: 1, message: 'You signed out.' },
        endedSessionKey: 'k',
      }),
    ).not.toBeNull();
  });
});
