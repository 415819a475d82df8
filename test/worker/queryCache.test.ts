import { describe, expect, it } from 'vitest';
import type { QuerySpec } from '../../contract/queries.js';
import { GC_DELAY_MILLIS, REFETCH_THROTTLE_MILLIS } from '../../worker/cache/cacheEntry.js';
import { FetchedQuery } from '../../worker/cache/query.js';
import { QueryCache } from '../../worker/cache/queryCache.js';
import { flush, ManualScheduler } from '../support/scheduler.js';

/** An entry of fetched data named `name` (as a team query), built the way the broker builds them. */
function ensure<T>(
  cache: QueryCache,
  clock: ManualScheduler,
  name: string,
  fetcher: () => Promise<T>,
): FetchedQuery<T> {
  const spec = { kind: 'team', teamId: name } as QuerySpec;
  return cache.ensure(
    { spec, scope: 'user', owner: 'user:test' },
    (key, onGarbage) => new FetchedQuery(key, spec, 'user', 'user:test', fetcher, clock, onGarbage),
  ) as FetchedQuery<T>;
}

function counter() {
  let calls = 0;
  const starts: number[] = [];
  return {
    get calls() {
      return calls;
    },
    starts,
    fetcher(scheduler: ManualScheduler, value = () => calls) {
      return async () => {
        calls += 1;
        starts.push(scheduler.now());
        return value();
      };
    },
  };
}

describe('the shared cache', () => {
  it('keeps an entry 5 s after its last subscriber leaves, then drops it', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const c = counter();
    const query = ensure(cache, scheduler, 'k', c.fetcher(scheduler));
    const unsubscribe = query.subscribe(() => undefined);
    await flush();
    unsubscribe();
    await scheduler.advance(GC_DELAY_MILLIS - 1);
    expect(cache.size).toBe(1);
    await scheduler.advance(1);
    expect(cache.size).toBe(0);
  });

  it('an entry fetched with nobody watching (a bare refetch) is dropped 5 s later, not kept forever', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const c = counter();
    await ensure(cache, scheduler, 'k', c.fetcher(scheduler)).fetch();
    expect(c.calls).toBe(1);
    await scheduler.advance(GC_DELAY_MILLIS - 1);
    expect(cache.size).toBe(1);
    await scheduler.advance(1);
    expect(cache.size).toBe(0);
    // A failing fetch nobody watches is collected too.
    const failing = ensure(cache, scheduler, 'bad', async () => {
      throw new Error('down');
    });
    await expect(failing.fetch()).rejects.toThrow('down');
    await scheduler.advance(GC_DELAY_MILLIS);
    expect(cache.size).toBe(0);
  });

  it('refetchWatched refetches only entries someone watches', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const watched = counter();
    const unwatched = counter();
    ensure(cache, scheduler, 'watched', watched.fetcher(scheduler)).subscribe(() => undefined);
    await ensure(cache, scheduler, 'unwatched', unwatched.fetcher(scheduler)).read();
    await flush();
    expect(cache.refetchWatched()).toBe(1);
    await scheduler.advance(REFETCH_THROTTLE_MILLIS);
    expect([watched.calls, unwatched.calls]).toEqual([2, 1]);
  });

  it('a subscriber arriving within the 5 s keeps the entry and its value', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const c = counter();
    const query = ensure(cache, scheduler, 'k', c.fetcher(scheduler));
    query.subscribe(() => undefined)();
    await scheduler.advance(4000);
    const seen: unknown[] = [];
    query.subscribe((s) => seen.push(s.data));
    await scheduler.advance(10_000);
    expect(cache.size).toBe(1);
    expect(c.calls).toBe(1);
    expect(query.snapshot().data).toBe(1);
  });

  it('refetches at most once per 300 ms, one at a time, batching callers that wait', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const c = counter();
    const query = ensure(cache, scheduler, 'k', c.fetcher(scheduler));
    query.subscribe(() => undefined);
    await flush();
    expect(c.starts).toEqual([0]);
    // Five invalidations in quick succession: one fetch, 300 ms after the first one started.
    for (let i = 0; i < 5; i++) query.invalidate();
    await scheduler.advance(REFETCH_THROTTLE_MILLIS - 1);
    expect(c.calls).toBe(1);
    await scheduler.advance(1);
    expect(c.starts).toEqual([0, REFETCH_THROTTLE_MILLIS]);
    await scheduler.advance(1000);
    expect(c.calls).toBe(2);
  });

  it('runs fetches one at a time: a slow fetch delays the next', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    let inFlight = 0;
    let maxInFlight = 0;
    let release!: () => void;
    const query = ensure(cache, scheduler, 'k', async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((resolve) => (release = resolve));
      inFlight -= 1;
      return 'v';
    });
    query.subscribe(() => undefined);
    await flush();
    query.invalidate();
    await scheduler.advance(1000);
    expect(maxInFlight).toBe(1);
    release();
    await scheduler.advance(1000);
    release();
    await flush();
    expect(maxInFlight).toBe(1);
  });

  it("a mutation's value wins over a fetch that was already under way", async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    let release!: (value: string) => void;
    const query = ensure(cache, scheduler, 'k', () => new Promise<string>((resolve) => (release = resolve)));
    query.subscribe(() => undefined);
    await flush();
    query.setData('from-mutation');
    release('stale-from-fetch');
    await flush();
    expect(query.snapshot()).toMatchObject({ status: 'success', data: 'from-mutation', isFetching: false });
  });

  it('keeps the last good value next to an error', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    let fail = false;
    const query = ensure(cache, scheduler, 'k', async () => {
      if (fail) throw new Error('boom');
      return 'good';
    });
    query.subscribe(() => undefined);
    await flush();
    fail = true;
    query.invalidate();
    await scheduler.advance(1000);
    expect(query.snapshot()).toMatchObject({ status: 'error', data: 'good' });
    expect(query.snapshot().error?.message).toContain('boom');
  });
});

describe('reads after a mutation', () => {
  it('a read right after an invalidation waits for the refetch instead of returning the stale value', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    let value = 'before';
    const query = ensure(cache, scheduler, 'k', async () => value);
    query.subscribe(() => undefined);
    await flush();
    expect(query.snapshot().data).toBe('before');
    value = 'after';
    query.invalidate();
    const read = query.read();
    await scheduler.advance(1000);
    expect(await read).toBe('after');
  });

  it('a read that comes while that refetch is already under way waits for its answer, and joins it rather than asking again', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    let answer: (value: string) => void = () => undefined;
    let calls = 0;
    const query = ensure(cache, scheduler, 'k', () => {
      calls += 1;
      return calls === 1 ? Promise.resolve('before') : new Promise<string>((resolve) => (answer = resolve));
    });
    query.subscribe(() => undefined);
    await flush();
    await scheduler.advance(1000);
    query.invalidate();
    await flush();
    // The refetch is out (the service is slow); the value watched is still the old one.
    expect(query.snapshot()).toMatchObject({ data: 'before', isFetching: true });
    expect(query.invalidated).toBe(true);
    let read: string | undefined;
    void query.read().then((value) => (read = value));
    await flush();
    expect(read).toBeUndefined();
    answer('after');
    await flush();
    expect(read).toBe('after');
    expect(calls).toBe(2);
    expect(query.invalidated).toBe(false);
  });

  it('a fetch that started before the last invalidation does not answer a read that comes after it', async () => {
    const scheduler = new ManualScheduler();
    const cache = new QueryCache();
    const answers: Array<(value: string) => void> = [];
    let calls = 0;
    const query = ensure(cache, scheduler, 'k', () => {
      calls += 1;
      return calls === 1 ? Promise.resolve('first') : new Promise<string>((resolve) => answers.push(resolve));
    });
    query.subscribe(() => undefined);
    await flush();
    await scheduler.advance(1000);
    query.invalidate();
    await flush();
    // A second mutation while the first refetch runs: its answer may predate the change.
    query.invalidate();
    let read: string | undefined;
    void query.read().then((value) => (read = value));
    answers[0]!('older');
    await scheduler.advance(1000);
    expect(read).toBeUndefined();
    expect(query.invalidated).toBe(true);
    answers[1]!('newest');
    await flush();
    expect(read).toBe('newest');
  });
});
