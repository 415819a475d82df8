import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../worker/index.js';
import { GRANT_PREFETCH_MILLIS } from '../../worker/lazy/refreshGrant.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { heldLoader } from '../support/heldLoader.js';
import { useEmulator } from '../support/emulator.js';
import { EmulatorClock } from '../support/scheduler.js';
import { settle } from './network.js';

/**
 * oauth4webapi's grants are a lazy part of the broker: not loaded at its start, fetched in the
 * background a little after it once there is a session to renew, and used by every renewal.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const TEN_MINUTES = 10 * 60 * 1000;
const grantModule = () => import('../../protocol/tokenGrant.js');

/** A broker on a clock that moves only when the test says, and two tabs. */
async function brokerWith(load: () => ReturnType<typeof grantModule>) {
  const clock = new EmulatorClock(emulator().env.clock);
  const started = await scope.start({ tokenGrant: load, clock });
  return { clock, started, tabs: [await scope.tab(started), await scope.tab(started)] as const };
}

describe('the token grants, a module of their own', () => {
  it('not loaded at the start nor by a signed-out broker; fetched once in the background after a sign-in; every renewal uses that one load', async () => {
    const loader = heldLoader(grantModule);
    const {
      clock,
      tabs: [one, two],
    } = await brokerWith(loader.load);
    await two.api.read({ kind: 'project' });
    await clock.advance(GRANT_PREFETCH_MILLIS * 2);
    expect(loader.calls()).toBe(0);

    await one.api.signInWithPassword(DEMO);
    const signedInToken = await one.api.getAccessToken();
    expect((await two.api.read({ kind: 'currentUser' }))?.primaryEmail).toBe(DEMO.email);
    await two.api.status();
    expect(loader.calls()).toBe(0);
    await clock.advance(GRANT_PREFETCH_MILLIS);
    expect(loader.calls()).toBe(1);

    // Renewals asked for while that load is still under way wait for it.
    await clock.advance(TEN_MINUTES);
    const renewed = [one.api.getAccessToken(), two.api.getAccessToken()];
    await settle(50);
    loader.release();
    const [a, b] = await Promise.all(renewed);
    expect(a).toBe(b);
    expect(a).not.toBe(signedInToken);
    expect(emulator().env.stats.snapshot().requests['POST /auth/oauth/token']?.['200']).toBe(1);
    expect(loader.calls()).toBe(1);
  });

  it('grants that do not load: the background fetch says nothing, the renewal fails with BROKER_UNAVAILABLE saying why and keeps the session, the next renewal loads them', async () => {
    let calls = 0;
    const load = async () => {
      calls += 1;
      if (calls <= 2) throw new Error('authbroker-shared-worker-tokenGrant-123.js: 404');
      return grantModule();
    };
    const {
      clock,
      tabs: [tab],
    } = await brokerWith(load);
    await tab.subscribe('session', { kind: 'session' });
    await tab.api.signInWithPassword(DEMO);
    await clock.advance(GRANT_PREFETCH_MILLIS);
    expect(calls).toBe(1);
    expect((await tab.api.status()).warnings).toEqual([]);

    await clock.advance(TEN_MINUTES);
    await expect(tab.api.getAccessToken()).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringContaining('authbroker-shared-worker-tokenGrant-123.js: 404'),
    });
    expect((tab.latest('session')!.data as SessionInfo).status).toBe('signed-in');
    await expect(tab.api.getAccessToken()).resolves.toEqual(expect.any(String));
    expect(calls).toBe(3);
  });
});
