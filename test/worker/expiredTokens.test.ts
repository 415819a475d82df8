import { describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../protocol/clock.js';
import { compressedClock, tokenRequests } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import type { SimulatedTab } from '../support/tabs.js';
import { recordingFetch } from './network.js';

/**
 * A call that meets ACCESS_TOKEN_EXPIRED or INVALID_ACCESS_TOKEN renews through the single-flight
 * refresh and retries with a token that is new, however the expiry races the call: a refresh
 * already under way when the service refused the token, a token that expires in flight, two
 * overlapping calls, a device clock that disagrees with the service's.
 */
const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
const scope = useBrokerScope(emulator);
let tabs: SimulatedTab[] = [];

/** A fetch whose token-endpoint answers can be held after the service has minted them. */
function gatedTokenEndpoint() {
  const net = recordingFetch();
  let gate: Promise<void> | null = null;
  let open = () => undefined as void;
  const minted: Array<() => void> = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await net.fetch(input, init);
    if (String(input).includes('/auth/oauth/token') && gate !== null) {
      for (const tell of minted.splice(0)) tell();
      await gate;
    }
    return response;
  };
  return {
    net,
    fetch: fetchFn,
    /** Holds the next token answers until `release()`; resolves when one has been minted. */
    hold(): Promise<void> {
      gate = new Promise<void>((resolve) => (open = resolve));
      return new Promise<void>((resolve) => minted.push(resolve));
    },
    release(): void {
      gate = null;
      open();
    },
  };
}

async function signedInTabs(count: number, options: { fetch: typeof fetch; clock?: Clock }) {
  const started = await scope.startWithTabs(count, { clock: compressedClock, ...options });
  tabs = started.tabs;
  const result = await tabs[0]!.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
  expect(result.status).toBe('signed-in');
  return started.broker;
}

describe('an access token that expires while calls are in flight', () => {
  it('a refresh under way when the service refuses the token, whose own token the service then refuses too: both overlapping calls renew again and succeed', async () => {
    const em = emulator();
    const endpoint = gatedTokenEndpoint();
    const b = await signedInTabs(2, { fetch: endpoint.fetch });
    const [first, second] = tabs as [SimulatedTab, SimulatedTab];
    em.env.stats.reset();

    // The service's clock passes the token's expiry; the broker's does not (it still sends it).
    em.env.clock.advance(TEN_MINUTES + 1000);
    const minted = endpoint.hold();
    // Call A is refused, renews, and its refresh gets a token the service mints now…
    const callA = first.api.refetch({ kind: 'currentUser' });
    await minted;
    // …which expires at the service before it reaches the broker.
    em.env.clock.advance(TEN_MINUTES + 1000);
    // Call B starts while that refresh is under way and joins it.
    const askedForToken = new Promise<void>((resolve) => {
      const spy = vi.spyOn(b.parts.session, 'getAccessToken').mockImplementation(async function (
        this: typeof b.parts.session,
      ) {
        spy.mockRestore();
        resolve();
        return b.parts.session.getAccessToken();
      });
    });
    const callB = second.api.refetch({ kind: 'contactChannels' });
    await askedForToken;
    await new Promise((resolve) => setImmediate(resolve));
    endpoint.release();

    await expect(callA).resolves.toBeUndefined();
    await expect(callB).resolves.toBeUndefined();
    expect((await first.api.read({ kind: 'currentUser' }))?.primaryEmail).toBe('demo@authbroker.dev');
    // The stale refresh, then one that started after the refusal: two, however many calls.
    expect(await tokenRequests(em)).toBe(2);
    const refused = endpoint.net.attempts.filter((a) => a.knownError === 'ACCESS_TOKEN_EXPIRED');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(b.status().session).toMatchObject({ status: 'signed-in' });
  });

  it('ten overlapping reads refused with ACCESS_TOKEN_EXPIRED while a refresh is held: none surfaces the error', async () => {
    const em = emulator();
    const endpoint = gatedTokenEndpoint();
    await signedInTabs(5, { fetch: endpoint.fetch });
    em.env.stats.reset();
    em.env.clock.advance(TEN_MINUTES + 1000);
    const minted = endpoint.hold();
    const calls = tabs.flatMap((tab) => [tab.api.refetch({ kind: 'currentUser' }), tab.api.refetch({ kind: 'teams' })]);
    await minted;
    em.env.clock.advance(TEN_MINUTES + 1000);
    endpoint.release();
    const outcomes = await Promise.allSettled(calls);
    expect(
      outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason)),
    ).toEqual([]);
    expect(await tokenRequests(em)).toBeLessThanOrEqual(2);
  });
});

describe("a device clock that disagrees with the service's", () => {
  it('running eleven minutes ahead: tokens look expired on arrival, yet one renewal serves many calls, and the status says why', async () => {
    const em = emulator();
    // Relative to the service's clock, which earlier tests moved.
    const ahead: Clock = { ...compressedClock, now: () => em.env.clock.now() + TEN_MINUTES + 60_000 };
    const net = recordingFetch();
    const b = await signedInTabs(1, { fetch: net.fetch, clock: ahead });
    em.env.stats.reset();
    for (const kind of ['currentUser', 'teams', 'contactChannels', 'sessions', 'project'] as const) {
      await tabs[0]!.api.refetch({ kind });
      expect(await tabs[0]!.api.getAccessToken()).toMatch(/^ey/);
      expect(await tabs[0]!.api.getAccessToken()).toMatch(/^ey/);
    }
    // Without judging tokens on arrival, each of these fifteen calls would renew first.
    expect(await tokenRequests(em)).toBe(0);
    expect(b.status().warnings.some((w) => w.includes("device's clock"))).toBe(true);
  });

  it('running behind: the service refuses a token the broker thinks fresh; the call renews once and succeeds', async () => {
    const em = emulator();
    const start = em.env.clock.now();
    const behind: Clock = { ...compressedClock, now: () => Date.now() - start + em.env.clock.now() - TEN_MINUTES };
    const net = recordingFetch();
    await signedInTabs(1, { fetch: net.fetch, clock: behind });
    em.env.stats.reset();
    em.env.clock.advance(TEN_MINUTES + 1000);
    await expect(tabs[0]!.api.refetch({ kind: 'currentUser' })).resolves.toBeUndefined();
    expect(await tokenRequests(em)).toBe(1);
  });
});
