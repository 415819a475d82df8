import { openDB } from 'idb';
import { MessagePort } from 'node:worker_threads';
import { endpoints } from '../../protocol/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Broker } from '../../worker/broker.js';
import type { QuerySpec, SessionInfo, User } from '../../worker/index.js';
import { DATABASE_NAME } from '../../worker/storage/indexedDb.js';
import type { SessionRecord } from '../../worker/storage/types.js';
import { demoSessionSlot, resetIndexedDb, startTestBroker } from '../support/broker.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch, settle } from './network.js';

const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
const APP = 'http://localhost:5173';
const REFRESH_TOKEN = /^[0-9a-hjkmnp-tv-z]{45}$/;

let broker: Broker | undefined;
let tabs: SimulatedTab[] = [];

/**
 * Every message posted on any port, both ways: Comlink moves each tab's API object and its listener
 * to ports of their own (Comlink.proxy), so recording one port would miss most of the traffic.
 */
const wire: unknown[] = [];
const originalPostMessage = MessagePort.prototype.postMessage;

beforeEach(async () => {
  await resetIndexedDb();
  emulator().env.stats.reset();
  wire.length = 0;
  MessagePort.prototype.postMessage = function (this: MessagePort, ...args: Parameters<typeof originalPostMessage>) {
    wire.push(args[0]);
    return originalPostMessage.apply(this, args);
  };
});
afterEach(() => {
  MessagePort.prototype.postMessage = originalPostMessage;
  for (const tab of tabs) tab.close();
  tabs = [];
  broker?.close();
  broker = undefined;
});

/** What crossed between broker and tabs, as text. */
const crossed = () => wire.map((message) => JSON.stringify(message) ?? '');

/** The user's session as the broker stored it, read from (fake) IndexedDB as another script could. */
async function storedSession(slot: string): Promise<SessionRecord | undefined> {
  const db = await openDB(DATABASE_NAME);
  try {
    return (await db.get('sessions', slot)) as SessionRecord | undefined;
  } finally {
    db.close();
  }
}

/** Every refresh token the service handed out in answers the broker received. */
async function refreshTokensFrom(bodies: Promise<unknown>[]): Promise<string[]> {
  const tokens = new Set<string>();
  for (const body of await Promise.all(bodies)) {
    const token = (body as { refresh_token?: unknown } | null)?.refresh_token;
    if (typeof token === 'string') tokens.add(token);
  }
  return [...tokens];
}

const USER_QUERIES: QuerySpec[] = [
  { kind: 'currentUser' },
  { kind: 'teams' },
  { kind: 'contactChannels' },
  { kind: 'sessions' },
  { kind: 'project' },
];
const LIVE_QUERIES: QuerySpec[] = [
  { kind: 'session' },
  { kind: 'adminSession' },
  { kind: 'connectivity' },
  { kind: 'status' },
];
const teamQueries = (teamId: string): QuerySpec[] => [
  { kind: 'team', teamId },
  { kind: 'teamMembers', teamId },
  { kind: 'teamInvitations', teamId },
  { kind: 'permissions', teamId },
];

describe('the refresh token never leaves the broker', () => {
  it('a whole session through three tabs: no message towards a tab and no returned value carries it', async () => {
    const em = emulator();
    const net = recordingFetch();
    const started = await startTestBroker(em, { fetch: net.fetch });
    broker = started.broker;
    const slot = demoSessionSlot(emulator());
    tabs = [
      await connectTab(broker, started.locks),
      await connectTab(broker, started.locks),
      await connectTab(broker, started.locks),
    ];
    const [a, b, c] = tabs as [SimulatedTab, SimulatedTab, SimulatedTab];
    const returned: unknown[] = [];
    const keep = <T>(value: T): T => {
      returned.push(value);
      return value;
    };
    const storedTokens = new Set<string>();
    const peekStorage = async () => {
      const record = await storedSession(slot);
      if (record?.status === 'active') storedTokens.add(record.refreshToken);
    };

    // Sign up, then sign in again (a second session), watching everything from the other tabs.
    for (const query of LIVE_QUERIES) await b.subscribe(query.kind, query);
    const email = uniqueEmail('secret');
    keep(await a.api.signUpWithPassword({ email, password: 'secret-password', verificationCallbackUrl: `${APP}/x` }));
    await peekStorage();
    keep(await c.api.signInWithPassword({ email, password: 'secret-password' }));
    await peekStorage();
    for (const query of [...USER_QUERIES, ...LIVE_QUERIES]) await c.subscribe(query.kind, query);
    await c.waitFor('currentUser', (s) => (s.data as User | null)?.primaryEmail === email);

    const team = keep(await a.api.createTeam({ displayName: 'Secret keepers' }));
    for (const query of teamQueries(team.id)) keep(await b.subscribe(query.kind, query));
    keep(await b.api.updateTeam(team.id, { displayName: 'Secret keepers, renamed', clientMetadata: { motto: 'shh' } }));
    keep(await a.api.updateUser({ displayName: 'Keeper', clientMetadata: { level: 3 } }));
    keep(await a.api.createContactChannel({ email: uniqueEmail('second'), usedForAuth: false }));
    keep(await c.api.updatePassword({ oldPassword: 'secret-password', newPassword: 'another-secret-password' }));
    await c.waitFor('currentUser', (s) => (s.data as User | null)?.displayName === 'Keeper');
    await b.waitFor(
      'team',
      (s) => (s.data as { displayName?: string } | undefined)?.displayName === 'Secret keepers, renamed',
    );
    for (const query of [...USER_QUERIES, ...teamQueries(team.id), ...LIVE_QUERIES]) keep(await a.api.read(query));

    // The access token expires: a refresh, then a token for the app's own backend.
    const before = keep(await a.api.getAccessToken());
    em.env.clock.advance(TEN_MINUTES + 1000);
    await c.api.refetch({ kind: 'currentUser' });
    const accessToken = keep(await b.api.getAccessToken());
    expect(accessToken).toMatch(/^ey/);
    expect(accessToken).not.toBe(before);
    expect(em.env.stats.snapshot().token_grants.refresh_token).toBe(1);
    for (const tab of tabs) keep(await tab.api.status());
    await peekStorage();

    await a.api.signOut();
    await b.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    await c.waitFor('currentUser', (s) => s.status === 'success' && s.data === null);
    keep(await c.api.status());
    await settle();

    // What we look for: the refresh tokens of both sessions, as the service issued and the broker stored them.
    const issued = await refreshTokensFrom(net.bodies);
    expect(issued.length).toBe(2);
    for (const token of issued) expect(token).toMatch(REFRESH_TOKEN);
    expect([...storedTokens].every((t) => issued.includes(t))).toBe(true);
    expect(storedTokens.size).toBe(2);
    // Where it did go: to the service's token endpoint, in the refresh grant.
    const grants = net.attempts.filter((x) => x.call === '/auth/oauth/token');
    expect(grants.map((x) => new URLSearchParams(x.requestBody ?? '').get('refresh_token'))).toEqual([issued[1]]);

    const outbound = crossed();
    const received = [...returned, ...tabs.flatMap((tab) => [...tab.deliveries.values()])].map(
      (value) => JSON.stringify(value) ?? '',
    );
    expect(outbound.length).toBeGreaterThan(100);
    for (const token of issued) {
      expect(outbound.filter((text) => text.includes(token))).toEqual([]);
      expect(received.filter((text) => text.includes(token))).toEqual([]);
      // Not even a large piece of it (e.g. a truncated token in a message).
      expect(outbound.filter((text) => text.includes(token.slice(0, 20)) || text.includes(token.slice(-20)))).toEqual(
        [],
      );
    }
    // The scan does find what is there: the access token crossed, as the answer to getAccessToken.
    expect(outbound.filter((text) => text.includes(accessToken!)).length).toBeGreaterThan(0);
    expect(received.filter((text) => text.includes(accessToken!)).length).toBeGreaterThan(0);
    // And the session the tabs saw is described without tokens.
    const sessions = c.deliveries.get('session')!.map((s) => s.data as SessionInfo);
    expect(sessions.some((s) => s.status === 'signed-in')).toBe(true);
    for (const s of sessions)
      expect(Object.keys(s).sort()).toEqual(
        s.status === 'signed-in'
          ? ['status', 'userId']
          : s.status === 'signed-out'
            ? ['lastEnd', 'status']
            : ['status'],
      );
  }, 30_000);

  it('a refresh without a network, then one the service refuses: what the tabs see carries no token either', async () => {
    const em = emulator();
    const net = recordingFetch();
    const started = await startTestBroker(em, { fetch: net.fetch });
    broker = started.broker;
    tabs = [await connectTab(broker, started.locks), await connectTab(broker, started.locks)];
    const [a, b] = tabs as [SimulatedTab, SimulatedTab];
    await b.subscribe('session', { kind: 'session' });
    const email = uniqueEmail('refused');
    const signedUp = await a.api.signUpWithPassword({
      email,
      password: 'refused-password',
      verificationCallbackUrl: `${APP}/x`,
    });
    if (signedUp.status !== 'signed-in') throw new Error('not signed in');
    const [token] = await refreshTokensFrom(net.bodies);
    expect(token).toMatch(REFRESH_TOKEN);

    // A refresh without a network waits for it (the tabs see the failure in the connectivity state);
    // then the session is revoked on the service, and the refused refresh ends it.
    await b.subscribe('connectivity', { kind: 'connectivity' });
    em.env.clock.advance(TEN_MINUTES + 1000);
    net.offline = true;
    const waiting = a.api.getAccessToken();
    await b.waitFor('connectivity', (s) => (s.data as { state: string }).state === 'offline');
    net.offline = false;
    await a.api.reportBrowserState({ online: true });
    expect(await waiting).toMatch(/^ey/);
    await endpoints.updateUser(transportFor(em, 'server'), signedUp.userId, { password: 'changed-elsewhere' });
    em.env.clock.advance(TEN_MINUTES + 1000);
    expect(await a.api.getAccessToken()).toBeNull();
    await b.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    expect(b.latest('session')!.data).toMatchObject({
      lastEnd: { reason: 'session-revoked', code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' },
    });

    const outbound = crossed();
    expect(outbound.some((text) => text.includes('NETWORK_'))).toBe(true);
    expect(outbound.filter((text) => text.includes(token!))).toEqual([]);
  });
});
