import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../worker/index.js';
import { emulatorClock } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { heldLoader } from '../support/heldLoader.js';
import { useEmulator } from '../support/emulator.js';

/** oauth4webapi's grants are a lazy part of the broker: loaded on the first renewal of a token, not at its start. */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const TEN_MINUTES = 10 * 60 * 1000;

const grantLoader = (options: { failFirst?: string } = {}) => heldLoader(() => import('../../protocol/tokenGrant.js'), options);

describe('the token grants, a module of their own', () => {
  it('a broker with fresh tokens never loads them; the first renewal loads them once, and a renewal asked for meanwhile waits for it', async () => {
    const em = emulator();
    const loader = grantLoader();
    const started = await scope.start({ tokenGrant: loader.load, clock: emulatorClock(em) });
    const [one, two] = [await scope.tab(started), await scope.tab(started)];
    await one.api.signInWithPassword(DEMO);
    const signedInToken = await one.api.getAccessToken();
    expect((await two.api.read({ kind: 'currentUser' }))?.primaryEmail).toBe(DEMO.email);
    await two.api.status();
    expect(loader.calls()).toBe(0);

    em.env.clock.advance(TEN_MINUTES + 1000);
    const renewed = [one.api.getAccessToken(), two.api.getAccessToken()];
    await expect.poll(() => loader.calls()).toBe(1);
    loader.release();
    const [a, b] = await Promise.all(renewed);
    expect(a).toBe(b);
    expect(a).not.toBe(signedInToken);
    expect(em.env.stats.snapshot().requests['POST /auth/oauth/token']?.['200']).toBe(1);
    expect(loader.calls()).toBe(1);
  });

  it('grants that do not load fail that renewal with BROKER_UNAVAILABLE saying why, the session kept; the next renewal loads them', async () => {
    const em = emulator();
    const loader = grantLoader({ failFirst: 'authbroker-shared-worker-tokenGrant-123.js: 404' });
    const started = await scope.start({ tokenGrant: loader.load, clock: emulatorClock(em) });
    const tab = await scope.tab(started);
    await tab.subscribe('session', { kind: 'session' });
    await tab.api.signInWithPassword(DEMO);
    em.env.clock.advance(TEN_MINUTES + 1000);
    loader.release();
    await expect(tab.api.getAccessToken()).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringContaining('authbroker-shared-worker-tokenGrant-123.js: 404'),
    });
    expect((tab.latest('session')!.data as SessionInfo).status).toBe('signed-in');
    await expect(tab.api.getAccessToken()).resolves.toEqual(expect.any(String));
    expect(loader.calls()).toBe(2);
  });
});
