/**
 * The app's own requests through the broker (issue 43), against the emulator and an API of the app's own
 * (test/support/appApi.ts): the token for `client.fetch` and its one renewal for every tab, the origins it may go to,
 * and `client.fetch` writes kept while the service is away, applied once each, in order, also when a fifth of the
 * connections drop, before or after the write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AppResponse, PendingChange } from '../../contract/appRequests.js';
import type { User } from '../../protocol/models.js';
import { createBroker } from '../../worker/index.js';
import type { BrokerConfig } from '../../worker/config.js';
import { createAppApi, serveAppApi } from '../support/appApi.js';
import { emulatorClock } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { devRequest, setServiceReachable, uniqueEmail, useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import type { SimulatedTab } from '../support/tabs.js';

const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function world(tabCount: number, config: Partial<BrokerConfig> = {}) {
  const { demo } = emulator().projects;
  const api = createAppApi({ baseUrl: emulator().url, projectId: demo.id, now: () => emulator().env.clock.now() });
  const served = await serveAppApi(api);
  stops.push(served.stop);
  const locks = new LocalLockManager();
  const broker = scope.track(
    await createBroker(
      {
        baseUrl: emulator().url,
        projectId: demo.id,
        publishableClientKey: demo.publishableClientKey,
        appRequests: { origins: [served.url] },
        offlineWrites: true,
        ...config,
      },
      { mode: 'shared-worker', clock: emulatorClock(emulator()), locks },
    ),
  );
  const tabs: SimulatedTab[] = [];
  for (let i = 0; i < tabCount; i++) tabs.push(await scope.tab({ broker, locks }));
  await tabs[0]!.api.signUpWithPassword({
    email: uniqueEmail('app-requests'),
    password: 'app-requests-password',
    verificationCallbackUrl: 'http://localhost:5173/x',
  });
  const user = (await tabs[0]!.api.read({ kind: 'currentUser' })) as User;
  return { api, url: served.url, broker, tabs, userId: user.id };
}

const put = (url: string, note: string, text: string, key: string) => ({
  url: `${url}/api/notes/${note}`,
  method: 'PUT',
  headers: [['content-type', 'text/plain']] as Array<[string, string]>,
  body: new TextEncoder().encode(text),
  idempotencyKey: key,
});
const text = (response: AppResponse) => new TextDecoder().decode(response.body);
const tokenRequests = () => emulator().env.stats.snapshot().token_refreshes;

describe("the app's own requests", () => {
  it('a token the app refuses is renewed once for every tab and call, and a brand-new one is not renewed again', async () => {
    const { tabs } = await world(5);
    const first = await tabs[0]!.api.appToken();
    expect(first.accessToken).toMatch(/^ey/);
    expect(first.reuseUntilMillis).toBeGreaterThan(emulator().env.clock.now());
    emulator().env.stats.reset();
    const refused = first.accessToken!;
    const answers = await Promise.all(
      tabs.flatMap((tab) => Array.from({ length: 4 }, () => tab.api.appToken(refused))),
    );
    expect(tokenRequests()).toBe(1);
    const renewed = answers[0]!.accessToken;
    expect(renewed).not.toBe(refused);
    expect(new Set(answers.map((a) => a.accessToken))).toEqual(new Set([renewed]));
    // Refused again at once: renewing cannot help (the server refuses it for another reason); it is given back.
    expect((await tabs[1]!.api.appToken(renewed!)).accessToken).toBe(renewed);
    expect(tokenRequests()).toBe(1);
  });

  it('a queued call to an origin the app did not allow is refused before anything is sent', async () => {
    const { api, tabs } = await world(1);
    await expect(tabs[0]!.api.sendAppRequest(put('http://127.0.0.1:1', 'a', 'x', 'k'))).rejects.toMatchObject({
      code: 'ORIGIN_NOT_ALLOWED',
    });
    expect(api.arrivals).toEqual([]);
  });

  it('calls made while the app cannot be reached wait in every tab and go once each, in order, when it returns', async () => {
    const { api, url, tabs, userId } = await world(3);
    for (const tab of tabs) await tab.subscribe('pending', { kind: 'pendingChanges' });
    api.reachable = false;
    const calls: Array<Promise<AppResponse>> = [];
    for (let i = 1; i <= 10; i++) {
      calls.push(tabs[i % 3]!.api.sendAppRequest(put(url, 'n1', `version ${i}`, `key-${i}`)));
      await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === i);
    }
    for (const tab of tabs) {
      const pending = (await tab.waitFor('pending', (s) => (s.data as PendingChange[]).length === 10))
        .data as PendingChange[];
      expect(pending.map((c) => c.label)).toEqual(Array(10).fill('PUT /api/notes/n1'));
    }
    api.dropWrites = 0.2;
    api.reachable = true;
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.every((a) => a.queued)).toBe(true);
    expect(JSON.parse(text(answers[9]!))).toMatchObject({ text: 'version 10' });
    // Each applied once, in the order made, whatever connections dropped on the way.
    expect(api.applied.map((w) => w.key)).toEqual(Array.from({ length: 10 }, (_, i) => `key-${i + 1}`));
    expect(api.notes(userId)).toEqual([{ id: 'n1', text: 'version 10', version: 10 }]);
    for (const tab of tabs) await tab.waitFor('pending', (s) => (s.data as PendingChange[]).length === 0);
  });

  it('under the emulator dropping and failing a fifth of the requests, ten kept writes are applied once each, in order', async () => {
    const { tabs } = await world(3);
    await setServiceReachable(emulator(), false);
    const calls: Array<Promise<User>> = [];
    try {
      for (let i = 1; i <= 10; i++) {
        calls.push(tabs[i % 3]!.api.updateUser({ clientMetadata: { n: i } }));
        await tabs[0]!.subscribe('pending', { kind: 'pendingChanges' });
        await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === i);
      }
    } finally {
      await setServiceReachable(emulator(), true);
    }
    emulator().env.stats.reset();
    await devRequest(emulator(), 'POST', '/emulator/faults', {
      seed: 11,
      rules: [
        // A fifth of the writes: half dropped after the service applied them (their answer lost), half before.
        { path: '/api/v1/users/me', method: 'PATCH', probability: 0.15, effect: { type: 'drop', phase: 'after' } },
        { path: '/api/v1/users/me', method: 'PATCH', probability: 0.06, effect: { type: 'drop', phase: 'before' } },
        // A fifth of everything else (the session's confirmation, the checks of what the service holds).
        { path: '/api/v1*', probability: 0.1, effect: { type: 'drop', phase: 'before' } },
        { path: '/api/v1*', probability: 0.11, effect: { type: 'status', status: 503 } },
      ],
    });
    try {
      const answers = await Promise.all(calls);
      expect(answers.map((u) => u.clientMetadata)).toEqual(Array.from({ length: 10 }, (_, i) => ({ n: i + 1 })));
    } finally {
      await devRequest(emulator(), 'DELETE', '/emulator/faults');
    }
    const stats = emulator().env.stats.snapshot();
    // Some writes were applied and their answer lost: sent again, they would have been applied twice.
    expect(stats.faults_injected.by_effect['drop-after']).toBeGreaterThan(0);
    // Exactly one applied PATCH per write, none lost, none twice: those answered, and those whose answer was dropped
    // after they were applied (only the PATCH rule drops after).
    expect((stats.writes.by_route['PATCH /users/me'] ?? 0) + stats.faults_injected.by_effect['drop-after']!).toBe(10);
    expect(((await tabs[1]!.api.read({ kind: 'currentUser' })) as User).clientMetadata).toEqual({ n: 10 });
  });
});
