import { describe, expect, it } from 'vitest';
import { Connectivity, type ConnectivitySnapshot } from '../../worker/connectivity.js';
import { compressedClock } from '../support/broker.js';

/** A network where some URLs answer and others fail. */
function network(answers: (url: string) => boolean): typeof fetch {
  return async (input) => {
    const url = String(input);
    if (!answers(url)) throw new TypeError('fetch failed');
    return new Response('ok', { status: 200 });
  };
}

/** Waits until the state is `wanted` and a probe has reported (diagnostics present). */
async function settledState(connectivity: Connectivity, wanted: ConnectivitySnapshot['state']): Promise<ConnectivitySnapshot> {
  const done = () => connectivity.snapshot().state === wanted && connectivity.snapshot().diagnostics !== null;
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return connectivity.snapshot();
}

describe('connectivity from probes', () => {
  it('the API unreachable while /health answers is degraded, not online', async () => {
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network((url) => url.endsWith('/health')), clock: compressedClock });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    const snapshot = await settledState(connectivity, 'degraded');
    expect(snapshot.state).toBe('degraded');
    expect(snapshot.diagnostics).toMatchObject({ apiRoot: { reachable: false }, health: { reachable: true } });
    connectivity.close();
  });

  it('nothing reachable is offline; everything reachable again is online', async () => {
    let up = false;
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network(() => up), clock: compressedClock });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    expect((await settledState(connectivity, 'offline')).state).toBe('offline');
    up = true;
    expect((await settledState(connectivity, 'online')).state).toBe('online');
    connectivity.close();
  });
});

describe('after an outage', () => {
  /** A clock the test moves by hand; waits are compressed as in the other tests. */
  function handClock() {
    let now = 1_000_000;
    return { clock: { ...compressedClock, now: () => now }, advance: (millis: number) => void (now += millis) };
  }

  it('back online, the last error is dated before the recovery, so nothing shows it as current', async () => {
    const { clock, advance } = handClock();
    let up = false;
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network(() => up), clock });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    const down = await settledState(connectivity, 'offline');
    expect(down.lastError).toMatchObject({ kind: 'network', code: 'NETWORK_UNREACHABLE' });
    const failedAt = down.lastErrorAtMillis!;

    advance(5_000);
    up = true;
    const back = await settledState(connectivity, 'online');
    expect(back.consecutiveFailures).toBe(0);
    // The state's own date is the recovery; the error is older than it, and older than the last success.
    expect(back.sinceMillis).toBe(failedAt + 5_000);
    expect(back.lastErrorAtMillis).toBeLessThan(back.sinceMillis);
    expect(back.lastSuccessAtMillis).toBeGreaterThan(back.lastErrorAtMillis!);
    connectivity.close();
  });

  it('server errors, then an answer: online again at once, the 5xx dated before it', () => {
    const { clock, advance } = handClock();
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network(() => true), clock });
    connectivity.recordResponse(503);
    connectivity.recordResponse(500);
    expect(connectivity.snapshot()).toMatchObject({ state: 'degraded', consecutiveFailures: 2, lastError: { kind: 'http-status', status: 500 } });
    const failedAt = connectivity.snapshot().lastErrorAtMillis!;
    advance(1_000);
    connectivity.recordResponse(200);
    const back = connectivity.snapshot();
    expect(back).toMatchObject({ state: 'online', consecutiveFailures: 0, sinceMillis: failedAt + 1_000, lastSuccessAtMillis: failedAt + 1_000 });
    expect(back.lastErrorAtMillis).toBeLessThan(back.sinceMillis);
    connectivity.close();
  });
});
