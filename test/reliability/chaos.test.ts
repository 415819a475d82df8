import { afterAll, describe, expect, it } from 'vitest';
import type { FaultEffect } from '../../emulator/index.js';
import type { Broker } from '../../worker/broker.js';
import type { QuerySnapshot, QuerySpec, SessionInfo, Team, User } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { devRequest, uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import {
  chains,
  chainSignature,
  endedByPolicy,
  errorSignature,
  lastOf,
  taggingFetch,
  TOKEN_PATH,
  type Attempt,
  type Chain,
} from './calls.js';
import { tally, writeReport } from './report.js';

/**
 * Ten tabs × 200 mixed operations through one broker while the emulator fails 5–30 % of API
 * requests (seeded). The retry policy decides which operations may fail; everything else must
 * complete, nothing is written twice, the session survives, and the tabs agree afterwards.
 */
const emulator = useEmulator();
const SEED = 20_250_301;
const TABS = 10;
const OPS_PER_TAB = 200;
const TEN_MINUTES = 10 * 60 * 1000;
const APP = 'http://localhost:5173';

/** Each rule fires on its own chance (the first that fires wins): about 20 % of requests. */
const FAULTS: Array<[number, FaultEffect]> = [
  [0.04, { type: 'status', status: 429, retry_after: '1' }],
  [0.04, { type: 'status', status: 429 }],
  [0.03, { type: 'status', status: 500 }],
  [0.03, { type: 'status', status: 503 }],
  [0.03, { type: 'loop-detected' }],
  [0.03, { type: 'drop', phase: 'before' }],
  // Latency is real time in the emulator: rare, and at most two seconds.
  [0.004, { type: 'latency', ms: 200 }],
  [0.002, { type: 'latency', ms: 800 }],
  [0.001, { type: 'latency', ms: 2000 }],
];

/** What the policy lets an idempotent call give up with: only five transient failures in a row. */
const GIVE_UP = ['http-500', 'http-503', 'http-429', 'http-508', 'network-5'];
/**
 * A POST is not retried after a network failure or a 5xx (it may have been applied), whichever
 * attempt it was: after a 429 or a 508 the next attempt may be the one that fails.
 */
const GIVE_UP_WRITE = [...GIVE_UP, 'network-1', 'network-2', 'network-3', 'network-4'];

type OpKind =
  'read' | 'refetch' | 'getAccessToken' | 'updateUser' | 'createTeam' | 'createContactChannel' | 'deleteContactChannel';

interface Op {
  tab: number;
  kind: OpKind;
  label: string;
  idempotent: boolean;
  /** The attempts that can belong to this operation (besides the token endpoint's). */
  matches: (attempt: Pick<Attempt, 'method' | 'path' | 'body'>) => boolean;
  /** Writes: the unique value that names them on the wire and in the emulator's state. */
  marker?: string;
  start: number;
  end: number;
  error?: unknown;
  failed: boolean;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const get = (prefix: string, teamId?: string) => (a: Pick<Attempt, 'method' | 'path'>) =>
  a.method === 'GET' && a.path.startsWith(prefix) && (teamId === undefined || a.path.includes(teamId));

/** The request each user query makes. */
function queryMatcher(query: QuerySpec): Op['matches'] {
  const teamId = 'teamId' in query ? (query.teamId as string) : undefined;
  switch (query.kind) {
    case 'currentUser':
      return (a) => a.method === 'GET' && a.path === '/users/me';
    case 'teams':
      return get('/teams?');
    case 'team':
      return (a) => a.method === 'GET' && a.path === `/teams/${teamId}`;
    case 'teamMembers':
      return get('/team-member-profiles?', teamId);
    case 'teamInvitations':
      return get('/team-invitations?', teamId);
    case 'permissions':
      return get('/team-permissions?', teamId);
    case 'contactChannels':
      return get('/contact-channels?');
    case 'sessions':
      return get('/auth/sessions?');
    default:
      return get('/projects/current');
  }
}

let broker: Broker | undefined;
let tabs: SimulatedTab[] = [];
afterAll(async () => {
  for (const tab of tabs) tab.close();
  broker?.close();
  await devRequest(emulator(), 'DELETE', '/emulator/faults').catch(() => undefined);
});

describe('chaos: faults on the API while ten tabs work', () => {
  it(`${TABS} tabs × ${OPS_PER_TAB} operations under seeded faults: only what the policy gives up on fails, nothing twice, the session kept, the tabs agree`, async () => {
    const em = emulator();
    await resetIndexedDb();
    const net = taggingFetch();
    const started = await startTestBroker(em, { fetch: net.fetch });
    broker = started.broker;
    tabs = await Promise.all(Array.from({ length: TABS }, () => connectTab(started.broker, started.locks)));
    const signUp = await tabs[0]!.api.signUpWithPassword({
      email: uniqueEmail('chaos'),
      password: 'chaos-password',
      verificationCallbackUrl: `${APP}/x`,
    });
    if (signUp.status !== 'signed-in') throw new Error('sign-up did not sign in');
    const userId = signUp.userId;
    const sessionKey = broker.parts.session.sessionKey;
    const teamIds = [
      (await tabs[0]!.api.createTeam({ displayName: 'chaos base A' })).id,
      (await tabs[0]!.api.createTeam({ displayName: 'chaos base B' })).id,
    ];
    for (const tab of tabs) {
      await tab.subscribe('session', { kind: 'session' });
      await tab.subscribe('user', { kind: 'currentUser' });
      await tab.subscribe('teams', { kind: 'teams' });
      await tab.waitFor('teams', (s) => s.status === 'success' && (s.data as Team[]).length >= 2);
    }

    em.env.stats.reset();
    await devRequest(em, 'POST', '/emulator/faults', {
      seed: SEED,
      rules: FAULTS.map(([probability, effect]) => ({ path: '/api/v1/*', probability, effect })),
    });
    net.attempts.length = 0;
    const ops: Op[] = [];
    let expiries = 0;
    let lastExpiry = performance.now();

    const run = async (tabIndex: number) => {
      const tab = tabs[tabIndex]!;
      const random = mulberry32(SEED + tabIndex);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const channels: Array<{ id: string }> = [];
      for (let i = 0; i < OPS_PER_TAB; i++) {
        // Now and then the access token expires (emulator time), wherever other tabs' calls are:
        // in flight, between attempts, during a refresh. A call renews at most twice in a row, so
        // expiries are kept more than 2.5 s apart (an attempt with a latency fault lasts up to 2 s);
        // a call that waits out other failures may meet several expiries, one renewal each.
        if (tabIndex === 0 && i % 20 === 19 && i < OPS_PER_TAB - 20 && performance.now() - lastExpiry > 2500) {
          em.env.clock.advance(TEN_MINUTES + 1000);
          lastExpiry = performance.now();
          expiries++;
        }
        const marker = `chaos-t${tabIndex}-${i}-${SEED}`;
        const r = random();
        let op: Omit<Op, 'start' | 'end' | 'failed'>;
        let call: () => Promise<unknown>;
        const teamQuery = (): QuerySpec => {
          const teamId = pick(teamIds);
          return pick<QuerySpec>([
            { kind: 'team', teamId },
            { kind: 'teamMembers', teamId },
            { kind: 'teamInvitations', teamId },
            { kind: 'permissions', teamId },
          ]);
        };
        const anyQuery = (): QuerySpec =>
          random() < 0.4
            ? teamQuery()
            : pick<QuerySpec>([
                { kind: 'currentUser' },
                { kind: 'teams' },
                { kind: 'contactChannels' },
                { kind: 'sessions' },
                { kind: 'project' },
              ]);
        if (r < 0.4) {
          const query = anyQuery();
          const refetch = r >= 0.3;
          op = {
            tab: tabIndex,
            kind: refetch ? 'refetch' : 'read',
            label: `${refetch ? 'refetch' : 'read'}:${query.kind}`,
            idempotent: true,
            matches: queryMatcher(query),
          };
          call = () => (refetch ? tab.api.refetch(query) : tab.api.read(query));
        } else if (r < 0.52) {
          // Setting fields is idempotent: a PATCH that met a dropped connection or a 5xx goes again.
          op = {
            tab: tabIndex,
            kind: 'updateUser',
            label: 'updateUser',
            idempotent: true,
            marker,
            matches: (a) => a.method === 'PATCH' && a.path === '/users/me' && a.body.includes(marker),
          };
          call = () => tab.api.updateUser({ displayName: marker, clientMetadata: { tab: tabIndex, op: i } });
        } else if (r < 0.62) {
          op = {
            tab: tabIndex,
            kind: 'createTeam',
            label: 'createTeam',
            idempotent: false,
            marker,
            matches: (a) => a.method === 'POST' && a.path === '/teams' && a.body.includes(marker),
          };
          call = async () => teamIds.push((await tab.api.createTeam({ displayName: marker })).id);
        } else if (r < 0.72) {
          const email = `${marker}@example.com`;
          op = {
            tab: tabIndex,
            kind: 'createContactChannel',
            label: 'createContactChannel',
            idempotent: false,
            marker: email,
            matches: (a) => a.method === 'POST' && a.path === '/contact-channels' && a.body.includes(email),
          };
          call = async () => channels.push(await tab.api.createContactChannel({ email, usedForAuth: false }));
        } else if (r < 0.8 && channels.length > 0) {
          const { id } = channels.splice(Math.floor(random() * channels.length), 1)[0]!;
          op = {
            tab: tabIndex,
            kind: 'deleteContactChannel',
            label: 'deleteContactChannel',
            idempotent: true,
            marker: id,
            matches: (a) => a.method === 'DELETE' && a.path.includes(id),
          };
          call = () => tab.api.deleteContactChannel(id);
        } else {
          op = {
            tab: tabIndex,
            kind: 'getAccessToken',
            label: 'getAccessToken',
            idempotent: true,
            matches: () => false,
          };
          call = async () => {
            const token = await tab.api.getAccessToken();
            // A null token here would be a lost session, not a failed call.
            if (typeof token !== 'string' || !token.startsWith('ey'))
              throw new Error(`getAccessToken gave ${String(token)}`);
          };
        }
        const record: Op = { ...op, start: performance.now(), end: 0, failed: false };
        ops.push(record);
        try {
          await call();
        } catch (error) {
          record.failed = true;
          record.error = error;
        }
        record.end = performance.now();
      }
    };
    const began = performance.now();
    await Promise.all(tabs.map((_, i) => run(i)));
    const chaosMillis = performance.now() - began;
    const stats = em.env.stats.snapshot();

    // ── the faults stop; one refetch (what an app does on reconnect) and every tab must agree with the service
    await devRequest(em, 'DELETE', '/emulator/faults');
    const project = em.env.store.project(em.projects.demo.id)!;
    const serverUser = project.users[userId]!;
    const serverTeams = project.memberships
      .filter((m) => m.user_id === userId)
      .map((m) => m.team_id)
      .sort();
    const settledAt = performance.now();
    await tabs[0]!.api.refetch({ kind: 'currentUser' });
    await tabs[0]!.api.refetch({ kind: 'teams' });
    const userMatches = (s: QuerySnapshot) => {
      const u = s.data as User | null | undefined;
      return (
        s.status === 'success' &&
        u?.id === userId &&
        u.displayName === serverUser.display_name &&
        JSON.stringify(u.clientMetadata) === JSON.stringify(serverUser.client_metadata)
      );
    };
    const teamsMatch = (s: QuerySnapshot) =>
      s.status === 'success' &&
      JSON.stringify((s.data as Team[]).map((t) => t.id).sort()) === JSON.stringify(serverTeams);
    const remaining = () => Math.max(1, 5000 - (performance.now() - settledAt));
    for (const tab of tabs) {
      await tab.waitFor('user', userMatches, remaining());
      await tab.waitFor('teams', teamsMatch, remaining());
    }
    const convergedMillis = performance.now() - settledAt;
    expect(convergedMillis).toBeLessThan(5000);
    for (const tab of tabs) {
      expect(tab.latest('user')!.data).toEqual(tabs[0]!.latest('user')!.data);
      expect(tab.latest('teams')!.data).toEqual(tabs[0]!.latest('teams')!.data);
    }

    // ── every call within five attempts, and stopped only where the policy says
    const calls = chains(net.attempts);
    const maxAttempts = Math.max(...calls.map((c) => c.attempts.length));
    expect(calls.filter((c) => c.attempts.length > 5).map((c) => c.key)).toEqual([]);
    expect(
      calls
        .filter((c) => !endedByPolicy(c))
        .map((c) => `${c.key} → ${c.attempts.map((a) => a.knownError ?? a.outcome).join(',')}`),
    ).toEqual([]);

    // ── which operations failed, and whether the policy explains each
    const failuresByKind: Record<string, Record<string, number>> = {};
    const unexplained: string[] = [];
    const explains = (op: Op, signature: string, chain: Chain) =>
      chainSignature(chain) === signature &&
      lastOf(chain).endedAt >= op.start &&
      lastOf(chain).endedAt <= op.end &&
      (chain.path.startsWith(TOKEN_PATH) || op.matches(chain));
    for (const op of ops.filter((o) => o.failed)) {
      const signature = errorSignature(op.error);
      tally((failuresByKind[op.label] ??= {}), signature);
      const allowed = op.idempotent ? GIVE_UP : GIVE_UP_WRITE;
      if (!allowed.includes(signature) || !calls.some((chain) => explains(op, signature, chain))) {
        unexplained.push(
          `tab ${op.tab} ${op.label}: ${signature} ${String((op.error as Error)?.message).slice(0, 160)}`,
        );
      }
    }
    expect(unexplained).toEqual([]);

    // ── each write went out as exactly one call, and its outcome is that call's
    const writes = ops.filter((o) => o.marker !== undefined);
    for (const op of writes) {
      const own = calls.filter((c) => op.matches(c));
      expect(own.length, op.marker).toBeLessThanOrEqual(1);
      if (own.length === 1)
        expect(op.failed ? errorSignature(op.error) : 'ok', op.marker).toBe(chainSignature(own[0]!));
      else expect(op.failed, `${op.marker} sent nothing yet succeeded`).toBe(true);
    }

    // ── nothing applied twice, nothing applied that failed: the emulator's state
    const teamNames = Object.values(project.teams).map((t) => t.display_name);
    const channelValues = Object.values(project.contact_channels)
      .filter((c) => c.user_id === userId)
      .map((c) => c.value);
    const deleted = new Set(ops.filter((o) => o.kind === 'deleteContactChannel' && !o.failed).map((o) => o.marker));
    const channelIdOf = new Map(Object.values(project.contact_channels).map((c) => [c.value, c.id]));
    let duplicateWrites = 0;
    for (const op of writes.filter((o) => o.kind === 'createTeam')) {
      const count = teamNames.filter((n) => n === op.marker).length;
      duplicateWrites += Math.max(0, count - 1);
      expect(count, op.marker).toBe(op.failed ? 0 : 1);
    }
    for (const op of writes.filter((o) => o.kind === 'createContactChannel')) {
      const count = channelValues.filter((v) => v === op.marker).length;
      duplicateWrites += Math.max(0, count - 1);
      expect(count, op.marker).toBeLessThanOrEqual(1);
      if (op.failed) expect(count, op.marker).toBe(0);
      if (count === 1)
        expect(deleted.has(channelIdOf.get(op.marker!)), `${op.marker} was deleted yet remains`).toBe(false);
    }
    const succeeded = (kind: OpKind) => ops.filter((o) => o.kind === kind && !o.failed).length;
    expect(stats.writes.by_route['POST /teams'] ?? 0).toBe(succeeded('createTeam'));
    expect(stats.writes.by_route['POST /contact-channels'] ?? 0).toBe(succeeded('createContactChannel'));
    expect(duplicateWrites).toBe(0);
    // The user's final name is one that a successful update wrote.
    expect(writes.filter((o) => o.kind === 'updateUser' && !o.failed).map((o) => o.marker)).toContain(
      serverUser.display_name,
    );

    // ── no session lost to a transient fault
    let sessionsLost = 0;
    for (const tab of tabs) {
      const seen = tab.deliveries.get('session')!.map((s) => s.data as SessionInfo);
      if (seen.some((s) => s.status !== 'signed-in' || s.userId !== userId)) sessionsLost++;
    }
    expect(sessionsLost).toBe(0);
    expect(broker.parts.session.sessionKey).toBe(sessionKey);

    // ── the faults were real: every kind, at the intended rate
    const faultRate = stats.faults_injected.total / net.attempts.length;
    for (const effect of ['status-429', 'status-500', 'status-503', 'loop-detected', 'drop-before', 'latency'])
      expect(stats.faults_injected.by_effect[effect], effect).toBeGreaterThan(0);
    expect(faultRate).toBeGreaterThan(0.05);
    expect(faultRate).toBeLessThan(0.3);
    expect(expiries).toBeGreaterThan(0);
    expect(stats.token_refreshes).toBeGreaterThanOrEqual(expiries);
    expect(ops.length).toBe(TABS * OPS_PER_TAB);

    const failedIdempotent = ops.filter((o) => o.idempotent && o.failed).length;
    const figures = {
      seed: SEED,
      tabs: TABS,
      operationsRun: ops.length,
      operationsByKind: Object.fromEntries(
        [...new Set(ops.map((o) => o.kind))].map((k) => [k, ops.filter((o) => o.kind === k).length]),
      ),
      accessTokenExpiries: expiries,
      tokenRefreshes: stats.token_refreshes,
      faultsInjected: stats.faults_injected,
      faultRate: Number(faultRate.toFixed(3)),
      attemptsMade: net.attempts.length,
      logicalCalls: calls.length,
      callsRetried: calls.filter((c) => c.attempts.length > 1).length,
      maxAttemptsPerCall: maxAttempts,
      failedOperations: ops.filter((o) => o.failed).length,
      failedIdempotentOperations: failedIdempotent,
      failuresByKind,
      unexplainedFailures: unexplained.length,
      sessionsLost,
      duplicateWrites,
      convergedMillis: Math.round(convergedMillis),
      chaosMillis: Math.round(chaosMillis),
    };
    writeReport('chaos', figures);
    console.log(
      `chaos: ${ops.length} ops, ${stats.faults_injected.total} faults (${(faultRate * 100).toFixed(1)} %), ${net.attempts.length} attempts, max ${maxAttempts}/call, ` +
        `${figures.failedOperations} failed by policy (${failedIdempotent} idempotent), sessions lost ${sessionsLost}, duplicate writes ${duplicateWrites}, converged in ${figures.convergedMillis} ms`,
    );
  }, 110_000);
});
