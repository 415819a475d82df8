import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { InvalidArgumentError } from '../../client/index.js';
import { sharedWorkerName } from '../../client/connect/hosts/sharedWorkerHost.js';
import { workerName } from '../../client/connectOptions.js';
import { useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import { createUser, demoOptions, newClient, resetBrowser } from './react/helpers.js';
import { sharedWorkers } from './sharedWorkers.js';

/**
 * The tabs of one origin and one config end on one broker's session (issue 32, items 3 and 5): a
 * broker's refusal is the answer, never a reason to try a weaker host, and a retry under a new
 * SharedWorker name never splits the tabs of a config whose tokens are kept in memory.
 */
const emulator = useEmulator();
afterEach(resetBrowser);

describe('a broker that refuses a tab', () => {
  it('options that differ from the running broker’s: the connection fails with the refusal, naming the option; no other host is tried', async () => {
    const em = emulator();
    sharedWorkers(new Set());
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // A page of the origin started the broker first, with headers of its own.
    const squatter = newClient(em, {
      mode: 'auto',
      sharedWorker: '/s.js',
      extraRequestHeaders: { 'x-app-tenant': 'other' },
    });
    await squatter.connect();
    const app = newClient(em, { mode: 'auto', sharedWorker: '/s.js' });
    const error = await app.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument: 'config.extraRequestHeaders' });
    expect((error as Error).message).toMatch(/x-app-tenant/);
    expect((error as Error).message).not.toMatch(/other/);
    // Not hosted in the page (before: the in-page host, silently but for a console warning).
    expect(app.mode).toBeNull();
    expect(warn.mock.calls.filter((call) => String(call[0]).includes('in-process mode'))).toEqual([]);
    expect((await squatter.status()).tabsConnected).toBe(1);
  });
});

describe('tokens kept in memory: one session whatever instance a tab reaches first', () => {
  it('a tab whose first instance is busy is not split off to a second one without the session: it waits for the instance that holds it', async () => {
    const em = emulator();
    const name = workerName(demoOptions(em, { tokenStore: 'memory' }));
    const busy = new Map<string, number>();
    // One origin: the instances share Web Locks.
    const created = sharedWorkers(new Set(), new Set(), new Map(), { locks: new LocalLockManager() }, busy);
    const first = newClient(em, { mode: 'auto', sharedWorker: '/s.js', tokenStore: 'memory' });
    await first.connect();
    const account = await createUser(em);
    await first.signInWithPassword({ email: account.email, password: account.password });

    // The broker is busy for 1.5 s when the next tab connects: its retry starts a second instance at 1 s.
    busy.set(name, 1500);
    const second = newClient(em, { mode: 'auto', sharedWorker: '/s.js', tokenStore: 'memory' });
    await second.connect();
    expect(created.map((worker) => worker.name)).toContain(sharedWorkerName(name, 1));
    const [a, b] = await Promise.all([first.status(), second.status()]);
    expect(b.brokerId).toBe(a.brokerId);
    expect(b.session).toMatchObject({ status: 'signed-in' });
    expect(second.mode).toBe('shared-worker');
    // One session: a sign-out in either tab is a sign-out in both.
    await second.signOut();
    expect((await first.status()).session).toMatchObject({ status: 'signed-out' });
  });

  it('a tab no worker answers does not fall back to a broker in the page while a worker serves the config: that would be another session', async () => {
    const em = emulator();
    const name = workerName(demoOptions(em, { tokenStore: 'memory' }));
    const locks = new LocalLockManager();
    Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
    onTestFinished(() => void Reflect.deleteProperty(navigator, 'locks'));
    // A worker's broker holds the config's owner lock (worker/registry.ts); this tab's instances never answer.
    const { ownerLockName } = await import('../../worker/storage/tokenStore.js');
    const { brokerKeyOf } = await import('../../worker/config.js');
    let release!: () => void;
    void locks.request(
      ownerLockName(brokerKeyOf({ baseUrl: em.url, projectId: em.projects.demo.id, tokenStore: 'memory' })),
      {},
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    sharedWorkers(new Set([0, 1].map((attempt) => sharedWorkerName(name, attempt))));
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = newClient(em, {
      mode: 'auto',
      sharedWorker: '/s.js',
      tokenStore: 'memory',
      connectTimeoutMillis: 1200,
    });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BROKER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/in-process: A worker's broker serves this project's session/);
    expect(client.mode).toBeNull();
    // The app's own choice of the page stays its own.
    release();
    const inPage = newClient(em, { mode: 'in-process', tokenStore: 'memory' });
    await inPage.connect();
    expect(inPage.mode).toBe('in-process');
  });
});
