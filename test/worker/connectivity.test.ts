import { describe, expect, it } from 'vitest';
import {
  CONTACT_FRESH_MILLIS,
  Connectivity,
  type ConnectivitySnapshot,
} from '../../worker/connectivity/connectivity.js';
import { compressedClock } from '../support/broker.js';
import { flush, ManualClock } from '../support/scheduler.js';

/** A network where some URLs answer and others fail. */
function network(answers: (url: string) => boolean): typeof fetch {
  return async (input) => {
    const url = String(input);
    if (!answers(url)) throw new TypeError('fetch failed');
    return new Response('ok', { status: 200 });
  };
}

/** Waits until the state is `wanted` and a probe has reported (diagnostics present). */
async function settledState(
  connectivity: Connectivity,
  wanted: ConnectivitySnapshot['state'],
): Promise<ConnectivitySnapshot> {
  const done = () => connectivity.snapshot().state === wanted && connectivity.snapshot().diagnostics !== null;
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return connectivity.snapshot();
}

describe('connectivity from probes', () => {
  it('the API unreachable while /health answers is degraded, not online', async () => {
    const connectivity = new Connectivity({
      baseUrl: 'http://api.test',
      fetch: network((url) => url.endsWith('/health')),
      clock: compressedClock,
    });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    const snapshot = await settledState(connectivity, 'degraded');
    expect(snapshot.state).toBe('degraded');
    expect(snapshot.diagnostics).toMatchObject({ apiRoot: { reachable: false }, health: { reachable: true } });
    connectivity.close();
  });

  it('nothing reachable is offline; everything reachable again is online', async () => {
    let up = false;
    const connectivity = new Connectivity({
      baseUrl: 'http://api.test',
      fetch: network(() => up),
      clock: compressedClock,
    });
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
    expect(connectivity.snapshot()).toMatchObject({
      state: 'degraded',
      consecutiveFailures: 2,
      lastError: { kind: 'http-status', status: 500 },
    });
    const failedAt = connectivity.snapshot().lastErrorAtMillis!;
    advance(1_000);
    connectivity.recordResponse(200);
    const back = connectivity.snapshot();
    expect(back).toMatchObject({
      state: 'online',
      consecutiveFailures: 0,
      sinceMillis: failedAt + 1_000,
      lastSuccessAtMillis: failedAt + 1_000,
    });
    expect(back.lastErrorAtMillis).toBeLessThan(back.sinceMillis);
    connectivity.close();
  });
});

/** A service that is up or down (connection refused) as the test says, counting the checks' requests. */
function switchableService() {
  const service = { up: true, requests: 0 };
  const fetchFn: typeof fetch = async () => {
    service.requests += 1;
    if (!service.up) throw new TypeError('fetch failed: connect ECONNREFUSED');
    return new Response('ok', { status: 200 });
  };
  return { service, fetchFn };
}

function started(clockStart = 0) {
  const clock = new ManualClock(clockStart);
  const { service, fetchFn } = switchableService();
  const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: fetchFn, clock });
  return { clock, service, connectivity, checks: () => service.requests / 2 };
}

describe('tabs arriving or coming back into view', () => {
  it('with the last contact older than CONTACT_FRESH_MILLIS: one check for any number of tabs, and a refused connection is offline at once', async () => {
    const { clock, service, connectivity, checks } = started();
    await clock.advance(30_000);
    service.up = false;
    for (let tab = 0; tab < 20; tab++) connectivity.verifyContact();
    await flush();
    expect(checks()).toBe(1);
    expect(connectivity.snapshot()).toMatchObject({ state: 'offline', diagnostics: { apiRoot: { reachable: false } } });
    // More tabs within the moment: the state is fresh, nothing more is sent.
    for (let tab = 0; tab < 20; tab++) connectivity.verifyContact();
    await flush();
    expect(checks()).toBe(1);
    connectivity.close();
  });

  it('with a fresh contact: no check now, one when it grows old, none if the service answers meanwhile', async () => {
    const { clock, service, connectivity, checks } = started();
    connectivity.recordResponse(200);
    service.up = false;
    await clock.advance(500);
    for (let tab = 0; tab < 5; tab++) connectivity.verifyContact();
    await flush();
    expect(checks()).toBe(0);
    // The service went away just after its last answer: the tab's state is right CONTACT_FRESH_MILLIS after it.
    await clock.advance(CONTACT_FRESH_MILLIS - 500);
    expect(checks()).toBe(1);
    expect(connectivity.snapshot().state).toBe('offline');
    connectivity.close();

    const again = started();
    again.connectivity.recordResponse(200);
    again.connectivity.verifyContact();
    await again.clock.advance(1000);
    again.connectivity.recordResponse(200);
    await again.clock.advance(CONTACT_FRESH_MILLIS * 3);
    expect(again.checks()).toBe(0);
    again.connectivity.close();
  });

  it('the service back while probes back off: a tab becoming visible finds it within CONTACT_FRESH_MILLIS, not at the next backoff step', async () => {
    const { clock, service, connectivity, checks } = started();
    service.up = false;
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    // 1, 2, 4 and 8 s: the next probe is 15 s away.
    await clock.advance(1000 + 2000 + 4000 + 8000);
    expect(checks()).toBe(5);
    expect(connectivity.snapshot().state).toBe('offline');
    service.up = true;
    await clock.advance(CONTACT_FRESH_MILLIS);
    for (let tab = 0; tab < 10; tab++) connectivity.verifyContact();
    await flush();
    expect(checks()).toBe(6);
    expect(connectivity.snapshot()).toMatchObject({ state: 'online', consecutiveFailures: 0 });
    connectivity.close();
  });
});

describe('a tab reporting the browser offline is a hint', () => {
  it('with the service answering: one check, the state stays online, writes may go, and the report no longer counts', async () => {
    const { connectivity, checks } = started();
    const states: string[] = [];
    connectivity.subscribe((snapshot) => states.push(snapshot.state));
    connectivity.reportBrowser(1, false);
    expect(connectivity.isOffline).toBe(false);
    await flush();
    expect(checks()).toBe(1);
    expect(connectivity.snapshot()).toMatchObject({ state: 'online', browserOnline: null });
    expect(states).not.toContain('offline');
    connectivity.close();
  });

  it('repeated (a page sending it in a loop): at most one check a second', async () => {
    const { clock, connectivity, checks } = started();
    for (let i = 0; i < 200; i++) {
      connectivity.reportBrowser(7, false);
      await flush();
    }
    expect(checks()).toBe(1);
    await clock.advance(1000);
    expect(checks()).toBe(2);
    expect(connectivity.snapshot().state).toBe('online');
    connectivity.close();
  });

  it('alternating offline and online (a page sending both in a loop) while the service is unreachable: about one check a second, not one per pair', async () => {
    const { clock, service, connectivity, checks } = started();
    service.up = false;
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    await flush();
    const before = checks();
    // 3 s of a page alternating the two reports every 10 ms (before: a check per pair, 511 in 3 s in Chromium).
    for (let step = 0; step < 300; step++) {
      connectivity.reportBrowser(9, false);
      connectivity.reportBrowser(9, true);
      await clock.advance(10);
    }
    // One a second from the reports (the first `online` after an `offline` may follow its check at
    // once), and the probes' own backoff (1 s, then 2 s) besides.
    expect(checks() - before).toBeLessThanOrEqual(6);
    expect(connectivity.snapshot().state).toBe('offline');
    connectivity.close();
  });

  it('with the service unreachable: offline, with the browser’s word shown until its tab leaves', async () => {
    const { clock, service, connectivity } = started();
    service.up = false;
    connectivity.reportBrowser(1, true);
    connectivity.reportBrowser(2, false);
    await flush();
    expect(connectivity.snapshot()).toMatchObject({ state: 'offline', browserOnline: false });
    connectivity.forgetTab(2);
    expect(connectivity.snapshot().browserOnline).toBe(true);
    connectivity.forgetTab(1);
    expect(connectivity.snapshot().browserOnline).toBeNull();
    // The probes go on without any tab: the service back, the broker is online.
    service.up = true;
    await clock.advance(1000);
    expect(connectivity.snapshot().state).toBe('online');
    connectivity.close();
  });

  it('a success after an offline report outweighs it: requests are no longer held', async () => {
    const { service, connectivity } = started();
    service.up = false;
    connectivity.reportBrowser(1, false);
    await flush();
    expect(connectivity.isOffline).toBe(true);
    service.up = true;
    // Some other answer gets through (a probe, or another request): the report made before it no longer counts.
    connectivity.recordResponse(200);
    expect(connectivity.snapshot()).toMatchObject({ state: 'online', browserOnline: null });
    await expect(connectivity.waitUntilOnline()).resolves.toBeUndefined();
    connectivity.close();
  });
});
