import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultEffect, FaultRuleInput } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { HttpStatusError, NetworkError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { Broker } from '../../worker/broker.js';
import type { SessionInfo } from '../../worker/index.js';
import type { Clock } from '../../protocol/retry.js';
import { emulatorClock, resetIndexedDb, startTestBroker } from '../support/broker.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { addFaults, clearFaults, recordingFetch, type Attempt, type RecordingFetch } from './network.js';

const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
const APP = 'http://localhost:5173';
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'PATCH', 'DELETE']);
const TRANSIENT = new Set<number | 'network'>([500, 502, 503, 504]);

let broker: Broker | undefined;
let tabs: SimulatedTab[] = [];

beforeEach(async () => {
  await resetIndexedDb();
  await clearFaults(emulator());
  emulator().env.stats.reset();
});
afterEach(async () => {
  for (const tab of tabs) tab.close();
  tabs = [];
  broker?.close();
  broker = undefined;
  await clearFaults(emulator());
});

interface World {
  net: RecordingFetch;
  tabs: SimulatedTab[];
  userId: string;
  sessionKey: string;
}

/** A broker with `tabCount` tabs, signed in as a new user; every tab watches the session. */
async function signedIn(tabCount: number, clock?: Clock): Promise<World> {
  const net = recordingFetch();
  const started = await startTestBroker(emulator(), { fetch: net.fetch, ...(clock === undefined ? {} : { clock }) });
  broker = started.broker;
  tabs = await Promise.all(Array.from({ length: tabCount }, () => connectTab(started.broker, started.locks)));
  const result = await tabs[0]!.api.signUpWithPassword({
    email: uniqueEmail('chaos'),
    password: 'chaos-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  if (result.status !== 'signed-in') throw new Error('sign-up did not sign in');
  for (const tab of tabs) await tab.subscribe('session', { kind: 'session' });
  return { net, tabs, userId: result.userId, sessionKey: started.broker.parts.session.sessionKey! };
}

/** The session never left: no tab ever saw anything but this user signed in, and the key is the same. */
function expectSessionSurvived(world: World): void {
  for (const tab of world.tabs) {
    const seen = tab.deliveries.get('session')!.map((s) => s.data as SessionInfo);
    expect(seen.length).toBeGreaterThan(0);
    for (const info of seen) expect(info).toEqual({ status: 'signed-in', userId: world.userId });
  }
  expect(broker!.parts.session.sessionKey).toBe(world.sessionKey);
  expect(broker!.status().session).toEqual({ status: 'signed-in', userId: world.userId });
}

/**
 * Retried by the policy (PROTOCOL.md §9.1, plus transient 5xx of idempotent calls): 429, 508
 * INFINITE_LOOP_DETECTED, and network failures and 500/502/503/504 of idempotent methods and of the
 * token endpoint (its grants are safe to repeat, §9.1.7).
 */
function retriable(attempt: Attempt): boolean {
  const idempotent = IDEMPOTENT.has(attempt.method) || attempt.call === '/auth/oauth/token';
  if (attempt.outcome === 'network') return idempotent;
  if (attempt.knownError !== null) return false;
  return attempt.outcome === 429 || attempt.outcome === 508 || (idempotent && TRANSIENT.has(attempt.outcome));
}

/** At most five attempts; each retry follows a retriable outcome; no giving up while one is allowed. */
function expectPolicy(key: string, attempts: Attempt[]): void {
  expect(attempts.length, key).toBeLessThanOrEqual(5);
  for (const attempt of attempts.slice(0, -1))
    expect(retriable(attempt), `${key} was retried after ${attempt.outcome}`).toBe(true);
  if (attempts.length < 5)
    expect(retriable(attempts.at(-1)!), `${key} stopped after ${attempts.at(-1)!.outcome}`).toBe(false);
}

/** The same effects spread over `paths`, each rule firing with `probability` (the first that fires wins). */
function chaos(paths: string[], probability: number, effects: FaultEffect[]): FaultRuleInput[] {
  return paths.flatMap((path) => effects.map((effect) => ({ path, probability, effect })));
}

const RETRIABLE_EFFECTS: FaultEffect[] = [
  { type: 'status', status: 429, retry_after: '1' },
  { type: 'status', status: 429 },
  { type: 'loop-detected' },
  { type: 'drop', phase: 'before' },
  { type: 'latency', ms: 5 },
];

/** Things to read and delete, made before the faults start: every call below names its own resource. */
async function resources(world: World, teams: number, sessions: number, channels: number) {
  const tab = world.tabs[0]!;
  const teamIds: string[] = [];
  for (let i = 0; i < teams; i++) teamIds.push((await tab.api.createTeam({ displayName: `Team ${i}` })).id);
  const server = transportFor(emulator(), 'server');
  for (let i = 0; i < sessions; i++) await endpoints.createSession(server, { user_id: world.userId });
  const sessionIds = (await endpoints.listSessions(server, world.userId)).map((s) => s.id);
  // The broker's own session (the one it signed up with) is not among those to revoke.
  const own = (await tab.api.read({ kind: 'sessions' })).find((s) => s.isCurrentSession)!.id;
  const channelIds: string[] = [];
  for (let i = 0; i < channels; i++)
    channelIds.push((await tab.api.createContactChannel({ email: uniqueEmail(`ch${i}`), usedForAuth: false })).id);
  return { teamIds, sessionIds: sessionIds.filter((id) => id !== own), channelIds, own };
}

describe('a signed-in broker under injected faults', () => {
  it('about 30 % of API requests failing or slow: a few hundred reads and idempotent calls from several tabs all complete, within five attempts each', async () => {
    const em = emulator();
    const world = await signedIn(4);
    const { teamIds, sessionIds, channelIds } = await resources(world, 50, 40, 20);
    // Five rules at 7 % each: about 30 % of requests get one of the effects.
    await addFaults(em, chaos(['/api/v1/*'], 0.07, RETRIABLE_EFFECTS), 20_240_601);
    world.net.attempts.length = 0;

    // Round-robin over the tabs, one call at a time, so that the seeded schedule replays exactly.
    const calls: Array<(tab: SimulatedTab) => Promise<unknown>> = [
      ...teamIds.flatMap((teamId) => [
        (t: SimulatedTab) => t.api.read({ kind: 'team', teamId }),
        (t: SimulatedTab) => t.api.read({ kind: 'teamMembers', teamId }),
        (t: SimulatedTab) => t.api.read({ kind: 'permissions', teamId }),
        (t: SimulatedTab) => t.api.read({ kind: 'teamInvitations', teamId }),
      ]),
      ...sessionIds.map((id) => (t: SimulatedTab) => t.api.revokeSession(id)),
      ...channelIds.map((id) => (t: SimulatedTab) => t.api.deleteContactChannel(id)),
      (t) => t.api.read({ kind: 'project' }),
      (t) => t.api.read({ kind: 'currentUser' }),
    ];
    expect(calls.length).toBeGreaterThanOrEqual(250);
    const failures: unknown[] = [];
    for (const [i, call] of calls.entries())
      await call(world.tabs[i % world.tabs.length]!).catch((error: unknown) => failures.push(error));
    expect(failures).toEqual([]);

    const byCall = world.net.byCall();
    expect(byCall.size).toBe(calls.length);
    for (const [key, attempts] of byCall) {
      expectPolicy(key, attempts);
      expect(attempts.at(-1)!.outcome, key).toBe(200);
    }
    // The faults really happened, every kind of them, at about the intended rate.
    const { faults_injected } = em.env.stats.snapshot();
    for (const effect of ['status-429', 'loop-detected', 'drop-before', 'latency'])
      expect(faults_injected.by_effect[effect], effect).toBeGreaterThan(5);
    const rate = faults_injected.total / world.net.attempts.length;
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.4);
    expect([...byCall.values()].filter((a) => a.length > 1).length).toBeGreaterThan(40);
    // The deletions reached the service.
    const left = await endpoints.listSessions(transportFor(em, 'server'), world.userId);
    expect(left.map((s) => s.id).filter((id) => sessionIds.includes(id))).toEqual([]);
    expectSessionSurvived(world);
  }, 60_000);

  it('every fault at once (500 and 503 too), calls from several tabs at the same time, an expired access token: one refresh, every outcome as the policy says, the session kept', async () => {
    const em = emulator();
    const world = await signedIn(5);
    const { teamIds } = await resources(world, 30, 0, 0);
    // Faults on the data calls; the refresh gets its own, counted, faults.
    await addFaults(
      em,
      [
        { path: '/api/v1/auth/oauth/token', count: 1, effect: { type: 'status', status: 429 } },
        { path: '/api/v1/auth/oauth/token', count: 1, effect: { type: 'drop', phase: 'before' } },
        { path: '/api/v1/auth/oauth/token', count: 1, effect: { type: 'loop-detected' } },
        ...chaos(['/api/v1/teams/*', '/api/v1/team-*'], 0.05, [
          ...RETRIABLE_EFFECTS,
          { type: 'status', status: 500 },
          { type: 'status', status: 503 },
        ]),
      ],
      7,
    );
    em.env.clock.advance(TEN_MINUTES + 1000);
    world.net.attempts.length = 0;

    const paths = {
      team: '/teams/',
      teamMembers: '/team-member-profiles?',
      permissions: '/team-permissions?',
      teamInvitations: '/team-invitations?',
    } as const;
    const calls = teamIds.flatMap((teamId, i) => {
      const tab = world.tabs[i % world.tabs.length]!;
      return (Object.keys(paths) as Array<keyof typeof paths>).map((kind) => ({
        kind,
        teamId,
        promise: tab.api.read({ kind, teamId }) as Promise<unknown>,
      }));
    });
    const outcomes = await Promise.allSettled(calls.map((c) => c.promise));
    const byCall = world.net.byCall();
    expect(byCall.get('POST /auth/oauth/token')!.map((a) => a.outcome)).toEqual([429, 'network', 508, 200]);
    expect(em.env.stats.snapshot().token_grants.refresh_token).toBe(1);
    // Every call is explained by its attempts: success after retriable faults, or the error of its last attempt.
    let serverErrorsAbsorbed = 0;
    for (const [i, { kind, teamId }] of calls.entries()) {
      const key = [...byCall.keys()].find((k) => k.startsWith(`GET ${paths[kind]}`) && k.includes(teamId))!;
      const attempts = byCall.get(key)!;
      expectPolicy(key, attempts);
      const last = attempts.at(-1)!.outcome;
      const outcome = outcomes[i]!;
      if (outcome.status === 'fulfilled') {
        expect(last, key).toBe(200);
        if (attempts.some((a) => a.outcome === 500 || a.outcome === 503)) serverErrorsAbsorbed++;
      } else if (last === 'network') {
        expect(outcome.reason, key).toBeInstanceOf(NetworkError);
        expect(outcome.reason, key).toMatchObject({ attempts: 5 });
      } else {
        // Only after five attempts: every fault here is transient.
        expect(outcome.reason, key).toBeInstanceOf(HttpStatusError);
        expect((outcome.reason as HttpStatusError).status, key).toBe(last);
        expect(attempts, key).toHaveLength(5);
      }
    }
    expect(serverErrorsAbsorbed).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBeGreaterThan(outcomes.length * 0.95);
    expect(em.env.stats.snapshot().faults_injected.total).toBeGreaterThan(20);
    expectSessionSurvived(world);
  }, 60_000);
});

describe('what is not retried', () => {
  it('a 500 or 503 from a read is retried and absorbed; a 500 from a POST is thrown at once; the session stays', async () => {
    const em = emulator();
    const world = await signedIn(2);
    const { teamIds } = await resources(world, 2, 0, 0);
    await addFaults(em, [
      { path: `/api/v1/teams/${teamIds[0]}`, count: 1, effect: { type: 'status', status: 500 } },
      { path: '/api/v1/team-member-profiles', count: 2, effect: { type: 'status', status: 503 } },
      { path: '/api/v1/teams', method: 'POST', count: 1, effect: { type: 'status', status: 500 } },
    ]);
    world.net.attempts.length = 0;
    const [a, b] = world.tabs as [SimulatedTab, SimulatedTab];
    expect((await a.api.read({ kind: 'team', teamId: teamIds[0]! })).id).toBe(teamIds[0]);
    expect(await b.api.read({ kind: 'teamMembers', teamId: teamIds[1]! })).toHaveLength(1);
    const byCall = world.net.byCall();
    expect(byCall.get(`GET /teams/${teamIds[0]}`)!.map((x) => x.outcome)).toEqual([500, 200]);
    expect(
      [...byCall.entries()].find(([key]) => key.startsWith('GET /team-member-profiles'))![1].map((x) => x.outcome),
    ).toEqual([503, 503, 200]);
    // A create that met a server error may have been applied: it is not sent again.
    const e500 = await a.api.createTeam({ displayName: 'Maybe created' }).catch((e: unknown) => e);
    expect(e500).toBeInstanceOf(HttpStatusError);
    expect(e500).toMatchObject({ status: 500, code: 'HTTP_STATUS_ERROR' });
    expect(
      world.net
        .byCall()
        .get('POST /teams')!
        .map((x) => x.outcome),
    ).toEqual([500]);
    // The service answers again: online, with the old error gone.
    expect((await a.api.read({ kind: 'team', teamId: teamIds[1]! })).id).toBe(teamIds[1]);
    expect((await b.api.status()).connectivity).toMatchObject({ state: 'online', consecutiveFailures: 0 });
    expectSessionSurvived(world);
  });

  it('known 4xx errors are answered once, even when faults came before them', async () => {
    const em = emulator();
    const world = await signedIn(2);
    const { own } = await resources(world, 0, 0, 0);
    const stranger = crypto.randomUUID();
    await addFaults(em, [
      { path: `/api/v1/teams/${stranger}`, count: 2, effect: { type: 'status', status: 429 } },
      { path: `/api/v1/auth/sessions/${own}`, count: 1, effect: { type: 'drop', phase: 'before' } },
    ]);
    world.net.attempts.length = 0;
    const notMember = await world.tabs[0]!.api.read({ kind: 'team', teamId: stranger }).catch((e: unknown) => e);
    expect(isKnownError(notMember)).toBe(true);
    expect((notMember as { status: number }).status).toBeGreaterThanOrEqual(400);
    expect((notMember as { status: number }).status).toBeLessThan(500);
    const current = await world.tabs[1]!.api.revokeSession(own).catch((e: unknown) => e);
    expect(isKnownError(current, 'CANNOT_DELETE_CURRENT_SESSION')).toBe(true);
    const byCall = world.net.byCall();
    expect(byCall.get(`GET /teams/${stranger}`)!.map((x) => [x.outcome, x.knownError !== null])).toEqual([
      [429, false],
      [429, false],
      [(notMember as { status: number }).status, true],
    ]);
    expect(byCall.get(`DELETE /auth/sessions/${own}?user_id=me`)!.map((x) => x.outcome)).toEqual(['network', 400]);
    expectSessionSurvived(world);
  });

  it('a Retry-After beyond a minute is not waited out; a 429 on a POST is retried (nothing was done), a dropped POST is not, a dropped PATCH is', async () => {
    const em = emulator();
    const world = await signedIn(1);
    const [tab] = world.tabs as [SimulatedTab];
    const email = uniqueEmail('never-twice');
    await addFaults(em, [
      { path: '/api/v1/projects/current', count: 1, effect: { type: 'status', status: 429, retry_after: '120' } },
      { path: '/api/v1/teams', method: 'POST', count: 1, effect: { type: 'status', status: 429 } },
      { path: '/api/v1/contact-channels', method: 'POST', count: 1, effect: { type: 'drop', phase: 'before' } },
      { path: '/api/v1/users/me', method: 'PATCH', count: 1, effect: { type: 'drop', phase: 'before' } },
    ]);
    world.net.attempts.length = 0;
    const limited = await tab.api.read({ kind: 'project' }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(HttpStatusError);
    expect(limited).toMatchObject({ status: 429 });
    const team = await tab.api.createTeam({ displayName: 'After a 429' });
    const dropped = await tab.api.createContactChannel({ email, usedForAuth: false }).catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(NetworkError);
    expect(dropped).toMatchObject({ code: 'NETWORK_UNREACHABLE', attempts: 1 });
    // The diagnostics found the service itself answering.
    expect((dropped as NetworkError).diagnostics?.health.reachable).toBe(true);
    // Setting a field twice is setting it once: a PATCH that met a dropped connection goes again.
    expect((await tab.api.updateUser({ displayName: 'Sent twice, applied once' })).displayName).toBe(
      'Sent twice, applied once',
    );
    const byCall = world.net.byCall();
    expect(byCall.get('GET /projects/current')!.map((x) => x.outcome)).toEqual([429]);
    expect(byCall.get('POST /teams')!.map((x) => x.outcome)).toEqual([429, 201]);
    expect(byCall.get('POST /contact-channels')!.map((x) => x.outcome)).toEqual(['network']);
    expect(byCall.get('PATCH /users/me')!.map((x) => x.outcome)).toEqual(['network', 200]);
    expect(team.displayName).toBe('After a 429');
    expect((await tab.api.read({ kind: 'contactChannels' })).map((c) => c.value)).not.toContain(email);
    expectSessionSurvived(world);
  });

  it('a refresh that meets server errors on every attempt fails that call but keeps the session; the next call refreshes', async () => {
    const em = emulator();
    const world = await signedIn(2);
    const [a, b] = world.tabs as [SimulatedTab, SimulatedTab];
    await addFaults(em, [{ path: '/api/v1/auth/oauth/token', count: 5, effect: { type: 'status', status: 500 } }]);
    em.env.clock.advance(TEN_MINUTES + 1000);
    world.net.attempts.length = 0;
    const failed = await a.api.getAccessToken().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(HttpStatusError);
    expect(failed).toMatchObject({ status: 500 });
    expect(world.net.attempts.map((x) => [x.call, x.outcome])).toEqual(
      Array.from({ length: 5 }, () => ['/auth/oauth/token', 500]),
    );
    expect(await b.api.getAccessToken()).toMatch(/^ey/);
    expect(em.env.stats.snapshot().token_grants.refresh_token).toBe(1);
    expectSessionSurvived(world);
  });
});

describe('how long the broker waits before a retry', () => {
  /** The emulator's clock, compressed, remembering every wait the broker asked for. */
  function sleepRecorder() {
    const sleeps: number[] = [];
    const base = emulatorClock(emulator());
    const clock: Clock = { ...base, sleep: (millis, signal) => (sleeps.push(millis), base.sleep(millis, signal)) };
    return { clock, sleeps };
  }

  it('a 429 waits what Retry-After says (seconds or a date); without it, and after a 508, the exponential backoff', async () => {
    const em = emulator();
    const { clock, sleeps } = sleepRecorder();
    const world = await signedIn(1, clock);
    const [tab] = world.tabs as [SimulatedTab];
    const { teamIds } = await resources(world, 3, 0, 0);
    await addFaults(em, [
      { path: `/api/v1/teams/${teamIds[0]}`, count: 1, effect: { type: 'status', status: 429, retry_after: '3' } },
      {
        path: `/api/v1/teams/${teamIds[1]}`,
        count: 1,
        effect: { type: 'status', status: 429, retry_after: new Date(em.env.clock.now() + 6000).toUTCString() },
      },
      { path: `/api/v1/teams/${teamIds[2]}`, count: 2, effect: { type: 'status', status: 429 } },
      { path: `/api/v1/teams/${teamIds[2]}`, count: 1, effect: { type: 'loop-detected' } },
    ]);
    sleeps.length = 0;
    await tab.api.read({ kind: 'team', teamId: teamIds[0]! });
    expect(sleeps).toEqual([3000]);
    await tab.api.read({ kind: 'team', teamId: teamIds[1]! });
    // An HTTP-date has whole seconds: between 5 and 6 s from now.
    expect(sleeps[1]).toBeGreaterThan(4000);
    expect(sleeps[1]).toBeLessThanOrEqual(6000);
    await tab.api.read({ kind: 'team', teamId: teamIds[2]! });
    const [first, second, third] = sleeps.slice(2);
    expect(first).toBeGreaterThanOrEqual(500);
    expect(first).toBeLessThanOrEqual(1500);
    expect(second).toBeGreaterThanOrEqual(1000);
    expect(second).toBeLessThanOrEqual(3000);
    expect(third).toBeGreaterThanOrEqual(2000);
    expect(third).toBeLessThanOrEqual(6000);
    expect(
      world.net
        .byCall()
        .get(`GET /teams/${teamIds[2]}`)!
        .map((x) => x.outcome),
    ).toEqual([429, 429, 508, 200]);
  });

  it('a 429 from the token endpoint waits its Retry-After too', async () => {
    const em = emulator();
    const { clock, sleeps } = sleepRecorder();
    const world = await signedIn(1, clock);
    await addFaults(em, [
      { path: '/api/v1/auth/oauth/token', count: 1, effect: { type: 'status', status: 429, retry_after: '3' } },
    ]);
    em.env.clock.advance(TEN_MINUTES + 1000);
    sleeps.length = 0;
    expect(await world.tabs[0]!.api.getAccessToken()).toMatch(/^ey/);
    expect(sleeps).toEqual([3000]);
  });
});
