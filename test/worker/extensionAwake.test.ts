import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AWAKE_EVERY_MILLIS, heldAwake, keepAwake } from '../../worker/hosts/extensionAwake.js';

/**
 * The background kept up while the broker works for someone: a cheap extension API call at the
 * start of the work and every second while it lasts, none once nothing is under way (the browser
 * must still stop an idle background). Firefox counts only such calls as activity, not a port's
 * messages: test/extension/session.test.ts has a sign-in outlast its idle timeout.
 */
describe('keepAwake', () => {
  let touches = 0;
  const runtime = { getPlatformInfo: async () => void (touches += 1) };
  beforeEach(() => {
    touches = 0;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('touches the extension API at the start and every second while work is under way, and stops when none is', async () => {
    const awake = keepAwake(runtime);
    let finish!: (value: string) => void;
    const work = awake(() => new Promise<string>((resolve) => (finish = resolve)));
    expect(touches).toBe(1);
    await vi.advanceTimersByTimeAsync(3 * AWAKE_EVERY_MILLIS);
    expect(touches).toBe(4);
    finish('done');
    await expect(work).resolves.toBe('done');
    await vi.advanceTimersByTimeAsync(10 * AWAKE_EVERY_MILLIS);
    expect(touches).toBe(4);
  });

  it('overlapping work shares one timer; a failure lets go as a success does, and is passed on', async () => {
    const awake = keepAwake(runtime);
    let fail!: (error: Error) => void;
    let finish!: () => void;
    const first = awake(() => new Promise<void>((_resolve, reject) => (fail = reject)));
    const second = awake(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(touches).toBe(1);
    await vi.advanceTimersByTimeAsync(2 * AWAKE_EVERY_MILLIS);
    expect(touches).toBe(3);
    fail(new Error('refused'));
    await expect(first).rejects.toThrow('refused');
    await vi.advanceTimersByTimeAsync(AWAKE_EVERY_MILLIS);
    expect(touches).toBe(4);
    finish();
    await second;
    await vi.advanceTimersByTimeAsync(5 * AWAKE_EVERY_MILLIS);
    expect(touches).toBe(4);
    // A new call after a quiet spell touches again at once.
    await awake(() => 'sync value');
    expect(touches).toBe(5);
  });

  it('a runtime without getPlatformInfo, or one that throws (the extension reloading), only loses the keeping up', async () => {
    await expect(keepAwake({})(() => 1)).resolves.toBe(1);
    const throwing = {
      getPlatformInfo: () => {
        throw new Error('Extension context invalidated.');
      },
    };
    await expect(keepAwake(throwing)(async () => 2)).resolves.toBe(2);
  });

  it('heldAwake holds each method’s calls and keeps the methods’ names only', async () => {
    const awake = keepAwake(runtime);
    const methods = heldAwake({ read: async (n: number) => n * 2, signOut: async () => undefined }, awake);
    expect(Object.keys(methods)).toEqual(['read', 'signOut']);
    expect(Object.getPrototypeOf(methods)).toBeNull();
    await expect(methods.read(21)).resolves.toBe(42);
    expect(touches).toBe(1);
  });
});
