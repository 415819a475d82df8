import { describe, expect, it } from 'vitest';
import { useBrokerScope } from '../support/brokerScope.js';
import { heldLoader } from '../support/heldLoader.js';
import { useEmulator } from '../support/emulator.js';
import { recordingFetch, settle } from './network.js';

const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };

const servicesLoader = (options: { failFirst?: string } = {}) =>
  heldLoader(() => import('../../worker/api/methods.js'), options);

describe('the service methods, a module of their own', () => {
  it('a broker whose tabs only read never loads them; the first call loads them once for every tab, and calls made meanwhile wait for them', async () => {
    const loader = servicesLoader();
    const net = recordingFetch();
    const started = await scope.start({ services: loader.load, fetch: net.fetch });
    const one = await scope.tab(started);
    const two = await scope.tab(started);
    await one.subscribe('user', { kind: 'currentUser' });
    await two.api.read({ kind: 'project' });
    await one.api.status();
    expect(loader.calls()).toBe(0);

    const sent = () =>
      net.urls.map((url) => new URL(url).pathname).filter((path) => path.startsWith('/api/v1/auth/password/'));
    const signedIn = one.api.signInWithPassword(DEMO);
    const resetSent = two.api.sendPasswordResetEmail({ email: DEMO.email, callbackUrl: 'http://localhost:3000/reset' });
    const checked = one.api.checkPasswordResetCode('a'.repeat(45)).catch((error: unknown) => error);
    await settle();
    expect(loader.calls()).toBe(1);
    expect(sent()).toEqual([]);
    loader.release();
    await expect(signedIn).resolves.toMatchObject({ status: 'signed-in' });
    await resetSent;
    expect(await checked).toMatchObject({ code: 'VERIFICATION_CODE_NOT_FOUND' });
    expect(sent().sort()).toEqual([
      '/api/v1/auth/password/reset/check-code',
      '/api/v1/auth/password/send-reset-code',
      '/api/v1/auth/password/sign-in',
    ]);
    await two.api.updateUser({ displayName: 'Lazy Person' });
    expect((await one.api.read({ kind: 'currentUser' }))?.displayName).toBe('Lazy Person');
    expect(loader.calls()).toBe(1);
  });

  it('methods that do not load fail that call with BROKER_UNAVAILABLE saying why; reads go on, and the next call loads them', async () => {
    const loader = servicesLoader({ failFirst: 'authbroker-shared-worker-services-123.js: 404' });
    const started = await scope.start({ services: loader.load });
    const tab = await scope.tab(started);
    loader.release();
    await expect(tab.api.signInWithPassword(DEMO)).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringContaining('authbroker-shared-worker-services-123.js: 404'),
    });
    expect(await tab.api.read({ kind: 'currentUser' })).toBeNull();
    await expect(tab.api.signInWithPassword(DEMO)).resolves.toMatchObject({ status: 'signed-in' });
    expect((await tab.api.read({ kind: 'currentUser' }))?.primaryEmail).toBe(DEMO.email);
    expect(loader.calls()).toBe(2);
  });

  it('arguments are checked before anything loads: a bad call loads nothing', async () => {
    const loader = servicesLoader();
    const started = await scope.start({ services: loader.load });
    const tab = await scope.tab(started);
    await expect(tab.api.signInWithPassword({ email: 'demo@authbroker.dev' } as never)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect((tab.api.updateUser as (...args: unknown[]) => Promise<unknown>)({}, {})).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(loader.calls()).toBe(0);
  });
});
