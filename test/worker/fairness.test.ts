import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createFairScheduler, LANE_BUDGET_MILLIS, MAX_WAITING_PER_LANE } from '../../worker/rpc/fairness.js';
import { serveMethods, type ServedPort } from '../../worker/rpc/server.js';

/**
 * The broker's thread is shared fairly between the ports it serves (issue 32, item 1): a flood of
 * cheap valid calls on one port does not hold another port's call until the flood is answered. The
 * Chromium version is in test/e2e/hostilePage.test.ts, and bench 11 measures the wait.
 */

/** What a status call answers: a few hundred bytes, as the broker's status is. */
const status = () => ({
  mode: 'shared-worker',
  tabsConnected: 2,
  subscriptions: 5,
  cacheEntries: 4,
  warnings: [],
  connectivity: { state: 'online', sinceMillis: Date.now(), browserOnline: true, lastError: null },
  session: { status: 'signed-in', userId: crypto.randomUUID() },
});

/** A port the broker serves and the page's end of it, whose answers are counted in order. */
function servedPair(
  scheduler: ReturnType<typeof createFairScheduler>,
  methods: Record<string, (...args: never[]) => unknown>,
) {
  const { port1, port2 } = new MessageChannel();
  serveMethods(port2 as unknown as ServedPort, methods as Record<string, (...args: unknown[]) => unknown>, {
    scheduler,
  });
  const answers: string[] = [];
  port1.on('message', (reply: { id: string }) => answers.push(reply.id));
  return { page: port1, answers };
}

const call = (port: MessagePort, id: string, args: unknown[] = []) =>
  port.postMessage({
    id,
    type: 'APPLY',
    path: ['status'],
    argumentList: args.map((value) => ({ type: 'RAW', value })),
  });

async function until(done: () => boolean, timeoutMillis = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('one port flooding the broker with valid calls', () => {
  it("another port's call is served before the flood's backlog is, and each port's calls keep their order", async () => {
    // Each call costs a millisecond of the thread: the flooding port spends its budget on its first ten.
    let clock = 0;
    const scheduler = createFairScheduler(() => clock);
    /** The calls in the order the broker ran them. */
    const ran: string[] = [];
    const methods = {
      status: async (label: unknown) => {
        ran.push(String(label));
        clock += 1;
        return status();
      },
    };
    const flooding = servedPair(scheduler, methods);
    const other = servedPair(scheduler, methods);
    // As many as may wait on one port (more, and it is closed: the test below).
    const FLOOD = MAX_WAITING_PER_LANE - 1;
    for (let i = 0; i < FLOOD; i++) call(flooding.page, `flood-${i}`, [`flood-${i}`]);
    // The other tab's read, sent after the whole flood.
    call(other.page, 'read', ['read']);
    await until(() => other.answers.length === 1 && flooding.answers.length === FLOOD);
    // Before: served in arrival order, the read ran after all of them.
    expect(ran.indexOf('read')).toBeLessThan(FLOOD / 2);
    expect(ran.filter((label) => label !== 'read')).toEqual(Array.from({ length: FLOOD }, (_, i) => `flood-${i}`));
    expect(flooding.answers).toEqual(Array.from({ length: FLOOD }, (_, i) => `flood-${i}`));
  });

  it(`a port with more than ${MAX_WAITING_PER_LANE} calls waiting is closed and released: the rest of its flood is never read`, async () => {
    let clock = 0;
    const scheduler = createFairScheduler(() => clock);
    let served = 0;
    const { port1, port2 } = new MessageChannel();
    const closed = new Promise<void>((resolve) => port2.once('close', () => resolve()));
    const released = new Promise<void>((resolve) =>
      serveMethods(
        port2 as unknown as ServedPort,
        { status: () => ((served += 1), (clock += 1), status()) },
        { scheduler, onRelease: resolve },
      ),
    );
    for (let i = 0; i < MAX_WAITING_PER_LANE * 3; i++) call(port1, `flood-${i}`);
    await Promise.all([released, closed]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(served).toBeLessThan(MAX_WAITING_PER_LANE);
  });

  it('a port within its budget is served at once, in the task its message arrived in', () => {
    let clock = 0;
    const scheduler = createFairScheduler(() => clock);
    const ran: number[] = [];
    const lane = scheduler.lane((item: number) => ran.push(item));
    lane.push(1);
    expect(ran).toEqual([1]);
  });

  it(`past ${LANE_BUDGET_MILLIS} ms in a window its messages wait, in order, while another lane's go at once`, async () => {
    let clock = 0;
    const scheduler = createFairScheduler(() => clock);
    const ran: string[] = [];
    const handle = (item: string) => {
      ran.push(item);
      if (item === 'busy-1') clock += LANE_BUDGET_MILLIS;
    };
    const busy = scheduler.lane(handle);
    const quiet = scheduler.lane(handle);
    busy.push('busy-1');
    await null;
    await null;
    busy.push('busy-2');
    busy.push('busy-3');
    quiet.push('quiet');
    expect(ran).toEqual(['busy-1', 'quiet']);
    await until(() => ran.length === 4);
    expect(ran).toEqual(['busy-1', 'quiet', 'busy-2', 'busy-3']);
  });
});
