import { describe, expect, it } from 'vitest';
import { checkPlainData } from '../../contract/arguments.js';
import { MAX_ARGUMENT_VALUES } from '../../contract/plainData.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import type { SimulatedTab } from '../support/tabs.js';

/**
 * One broker serves every tab of the origin, so one call that holds it holds every tab: what a
 * hostile page sends is checked with work bounded by limits, not by what it built (issue 27, item
 * 3; the Chromium version, with the browser's own clone, is in test/e2e/hostilePage.test.ts).
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);

/** `n = [n, n]`, `levels` deep: `levels + 1` small objects once cloned, 2^levels paths through them. */
function sharedTwice(levels: number): unknown {
  let n: unknown = 0;
  for (let i = 0; i < levels; i++) n = [n, n];
  return n;
}

function manyKeys(count: number): Record<string, number> {
  const object: Record<string, number> = {};
  for (let i = 0; i < count; i++) object[`k${i}`] = i;
  return object;
}

/** A method called with whatever a hostile page sends. */
const untyped = (method: (...args: never[]) => Promise<unknown>) => method as (...args: unknown[]) => Promise<unknown>;

/** An argument path at or under `path`. */
const within = (path: string) =>
  expect.stringMatching(new RegExp(`^${path.replace(/\./g, '\\.')}(\\.|\\[|$)`)) as unknown as string;

async function refused(call: Promise<unknown>): Promise<InvalidArgumentError> {
  const outcome = await call.then(
    () => new Error('the call was answered'),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(InvalidArgumentError);
  return outcome as InvalidArgumentError;
}

/** Reads a cached query back to back until stopped; each read's time from asking to answer. */
function keepReading(tab: SimulatedTab): { stop(): Promise<number[]> } {
  const delays: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await tab.api.read({ kind: 'currentUser' });
      delays.push(performance.now() - started);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return delays;
    },
  };
}

describe('one call cannot hold the broker every tab shares', () => {
  it('the plain-data pass is linear: shared references, huge arrays, objects and strings stop at a limit, and the argument count is checked first', () => {
    // 2^60 paths through 61 objects: refused after MAX_ARGUMENT_VALUES steps, not 2^60.
    expect(() => checkPlainData('updateUser', [{ clientMetadata: sharedTwice(60) }])).toThrow(/too much data/);
    // A method without arguments never looks at what it was sent.
    expect(() => checkPlainData('status', [sharedTwice(60)])).toThrow(
      expect.objectContaining({ argument: 'arguments' }),
    );
    expect(() => checkPlainData('updateUser', [{ clientMetadata: new Array(5_000_000).fill(0) }])).toThrow(
      expect.objectContaining({ argument: 'update.clientMetadata' }),
    );
    expect(() => checkPlainData('updateUser', [{ clientMetadata: manyKeys(1_000_000) }])).toThrow(
      expect.objectContaining({ argument: 'update.clientMetadata' }),
    );
    // A thousand strings of a megabyte each: within the per-string limit, far over the per-call one.
    const megabyte = 'x'.repeat(1_000_000);
    expect(() =>
      checkPlainData('updateUser', [{ clientMetadata: Array.from({ length: 1000 }, () => megabyte) }]),
    ).toThrow(/characters in all/);
    // Keys count too.
    expect(() =>
      checkPlainData('updateUser', [{ clientMetadata: { [megabyte]: 1, [`${megabyte}y`]: 2, [`${megabyte}z`]: 3 } }]),
    ).toThrow(/characters in all/);
    // What real calls send stays well inside: a large metadata document passes.
    const document = Array.from({ length: MAX_ARGUMENT_VALUES / 4 }, (_, i) => ({ id: i, label: `item ${i}` }));
    expect(() => checkPlainData('updateUser', [{ clientMetadata: { document } }])).not.toThrow();
  });

  it("a hostile tab's worst calls are refused, and another tab is served between them", async () => {
    const started = await scope.start();
    const [victim, hostile] = [await scope.tab(started), await scope.tab(started)];
    await victim.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await victim.subscribe('user', { kind: 'currentUser' });
    await victim.waitFor('user', (s) => s.status === 'success' && s.data !== null);

    const reads = keepReading(victim);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['arguments', () => untyped(hostile.api.status)(sharedTwice(60))],
      ['arguments', () => untyped(hostile.api.getAccessToken)(sharedTwice(60))],
      [within('update.clientMetadata'), () => hostile.api.updateUser({ clientMetadata: sharedTwice(60) as never })],
      ['update.clientMetadata', () => hostile.api.updateUser({ clientMetadata: new Array(1_000_000).fill(0) })],
    ];
    for (const [argument, call] of calls) expect(await refused(call())).toMatchObject({ argument });
    const delays = await reads.stop();
    // Here the tabs, the broker and the clones share one thread, so times measure the test as much
    // as the broker; Chromium's figures are in test/e2e/hostilePage.test.ts.
    expect(delays.length).toBeGreaterThan(calls.length);
    expect(await victim.api.getAccessToken()).toMatch(/^ey/);
  });
});
