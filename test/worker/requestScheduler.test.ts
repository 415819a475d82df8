import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../protocol/transport.js';
import { ClientError } from '../../protocol/errors/errors.js';
import { Claim, MAX_REQUESTS_AT_ONCE, RequestScheduler } from '../../worker/requests/scheduler.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import { EmulatorClock, flush } from '../support/scheduler.js';

/**
 * The service's time shared fairly between a broker's tabs (issue 39, item 3): requests take turns to go out, a tab
 * that asks now and then before tabs with a backlog; a tab's backlog is bounded; an attempt's deadline starts when it
 * is sent, not while it waits its turn. Bench 12 measures it in Chromium and Firefox.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
afterEach(() => emulator().env.faults.clear());

/** Starts `count` turns for `who`; each resolves into `order` as it goes out, and is ended by `end()`. */
function ask(
  scheduler: RequestScheduler,
  who: Parameters<RequestScheduler['turn']>[0],
  label: string,
  order: string[],
) {
  const ends: Array<() => void> = [];
  const done = scheduler.turn(who).then((end) => {
    order.push(label);
    ends.push(end);
    return end;
  });
  return { done, end: () => ends.shift()?.() };
}

describe('requests take turns to go out', () => {
  it(`at most ${MAX_REQUESTS_AT_ONCE} out; a tab asking once goes ahead of a tab with a backlog`, async () => {
    const scheduler = new RequestScheduler();
    const order: string[] = [];
    const backlog = Array.from({ length: 50 }, (_, i) => ask(scheduler, 1, `page-${i}`, order));
    await flush();
    expect(order).toEqual(Array.from({ length: MAX_REQUESTS_AT_ONCE }, (_, i) => `page-${i}`));
    const app = ask(scheduler, 2, 'app', order);
    backlog[0]!.end();
    await flush();
    // The first slot that frees is the app's.
    expect(order.at(-1)).toBe('app');
    expect(scheduler.load.out).toBe(MAX_REQUESTS_AT_ONCE);
    app.end();
    for (const request of backlog.slice(1)) request.end();
  });

  it('backlogged tabs are served round-robin, one request each', async () => {
    const scheduler = new RequestScheduler({ atOnce: 1 });
    const order: string[] = [];
    // Each ends as soon as it is out: the next goes.
    const quick = (who: number, label: string) =>
      scheduler.turn(who).then((end) => {
        order.push(label);
        setTimeout(end, 0);
      });
    await Promise.all([
      ...Array.from({ length: 3 }, (_, i) => quick(1, `a${i}`)),
      ...Array.from({ length: 3 }, (_, i) => quick(2, `b${i}`)),
    ]);
    // a0 went out at once; then each tab in turn (a1 had waited first).
    expect(order).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'b2']);
  });

  it("a fetch a tab joins goes out in that tab's turn: no page holds the app's read in its own backlog", async () => {
    const scheduler = new RequestScheduler({ atOnce: 1 });
    const order: string[] = [];
    const first = ask(scheduler, 1, 'page-0', order);
    const backlog = Array.from({ length: 20 }, (_, i) => ask(scheduler, 1, `page-${i + 1}`, order));
    // The page asked for the user too, behind its backlog; the app's read of it joins that fetch.
    const shared = new Claim(1);
    ask(scheduler, shared, 'user', order);
    await flush();
    first.end();
    await flush();
    shared.add(2);
    backlog[0]!.end();
    await flush();
    // Before it went out in the page's turn, after the page's 20 others.
    expect(order).toEqual(['page-0', 'page-1', 'user']);
    for (const request of backlog.slice(1)) request.end();
  });

  it('a tab with too many requests waiting is refused one more, with BROKER_UNAVAILABLE', async () => {
    const scheduler = new RequestScheduler({ atOnce: 1, waitingPerTab: 3 });
    const order: string[] = [];
    Array.from({ length: 4 }, (_, i) => ask(scheduler, 1, `page-${i}`, order));
    const refused = await scheduler.turn(1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientError);
    expect(refused).toMatchObject({ code: 'BROKER_UNAVAILABLE' });
    expect((refused as Error).message).toMatch(/This tab has 3 requests waiting for the service/);
    // Another tab is not concerned.
    const other = scheduler.turn(2);
    expect(scheduler.load.waiting).toBe(4);
    void other;
  });

  it('a request given up while it waits leaves its lane', async () => {
    const scheduler = new RequestScheduler({ atOnce: 1 });
    const order: string[] = [];
    const first = ask(scheduler, 1, 'first', order);
    const controller = new AbortController();
    const given = scheduler.turn(2, controller.signal).catch((error: unknown) => error);
    controller.abort(new Error('gone'));
    expect(await given).toMatchObject({ message: 'gone' });
    expect(scheduler.load.waiting).toBe(0);
    first.end();
  });
});

describe("an attempt's deadline starts when it is sent", () => {
  it('a request that waited its turn longer than the deadline is sent once, and answered', async () => {
    const clock = new EmulatorClock(emulator().env.clock);
    const sentAt: number[] = [];
    let failures = 0;
    let grant!: () => void;
    const turn = new Promise<void>((resolve) => (grant = resolve));
    const transport = createTransport({
      baseUrl: emulator().url,
      projectId: emulator().projects.demo.id,
      accessType: 'client',
      publishableClientKey: emulator().projects.demo.publishableClientKey,
      clock,
      attemptTimeoutMillis: 30_000,
      diagnoseFailures: false,
      observer: { onNetworkError: () => failures++ },
      waitForTurn: async () => {
        await turn;
        return () => undefined;
      },
      fetch: (input, init) => {
        sentAt.push(clock.now());
        return fetch(input, init);
      },
    });
    const answer = transport.request<{ id: string }>({ method: 'GET', path: '/projects/current' });
    const startedAt = clock.now();
    // Before: the wait counted against the attempt's 30 s, and the request was abandoned and sent again.
    await clock.advance(40_000);
    grant();
    await expect(answer).resolves.toMatchObject({ id: emulator().projects.demo.id });
    expect(sentAt).toHaveLength(1);
    expect(sentAt[0]! - startedAt).toBeGreaterThanOrEqual(40_000);
    // Not timed out while it waited (a timed-out attempt is a network failure, and tried again).
    expect(failures).toBe(0);
  });
});

/**
 * A browser's connection pool: at most six requests to one host at a time, the rest queued in arrival order (what the
 * broker's requests met before they took turns).
 */
function browserLikeFetch(): { fetch: typeof fetch; sent: string[] } {
  let active = 0;
  const queue: Array<() => void> = [];
  const sent: string[] = [];
  const browserFetch: typeof fetch = async (input, init) => {
    if (active >= 6) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    sent.push(String(input instanceof Request ? input.url : input));
    try {
      const response = await fetch(input, init);
      await response.clone().arrayBuffer();
      return response;
    } finally {
      active--;
      queue.shift()?.();
    }
  };
  return { fetch: browserFetch, sent };
}

describe('a page holding many distinct reads, and the app', () => {
  it("the app's refetch waits a few of the service's round trips, not the page's backlog; one request per read", async () => {
    const em = emulator();
    const network = browserLikeFetch();
    const started = await scope.start({ fetch: network.fetch });
    const app = await scope.tab(started);
    await app.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await app.api.read({ kind: 'currentUser' });
    // Every team read takes 40 ms at the service.
    em.env.faults.add([
      { path: '/api/v1/teams/*', method: 'GET', probability: 1, effect: { type: 'latency', ms: 40 } },
    ]);
    const page = await Promise.all(Array.from({ length: 10 }, () => scope.tab(started)));
    const READS = 300;
    network.sent.length = 0;
    const reads = Array.from({ length: READS }, (_, i) =>
      page[i % page.length]!.api.read({
        kind: 'team',
        teamId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      }).catch(() => 'failed'),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = performance.now();
    await app.api.refetch({ kind: 'currentUser' });
    const refetchMillis = performance.now() - before;
    await Promise.all(reads);
    // Before: behind the page's 300 requests in the pool, 50 rounds of 40 ms (2 s and more).
    expect(refetchMillis).toBeLessThan(600);
    expect(network.sent.filter((url) => url.includes('/teams/')).length).toBeLessThanOrEqual(READS);
  });
});
