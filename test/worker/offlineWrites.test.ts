/**
 * Writes that wait out an outage (issue 43, item 3), against the emulator: kept while the service is unreachable,
 * shown to every tab with their optimistic values, sent in order once it answers, refusals reported and rolled back,
 * dropped on sign-out; and, by default, failing at once as before.
 */
import { describe, expect, it } from 'vitest';
import type { PendingChange } from '../../contract/appRequests.js';
import type { User } from '../../protocol/models.js';
import { createBroker } from '../../worker/index.js';
import type { BrokerConfig } from '../../worker/config.js';
import { emulatorClock } from '../support/broker.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { setServiceReachable, uniqueEmail, useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';
import type { SimulatedTab } from '../support/tabs.js';

const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const APP = 'http://localhost:5173';

async function brokerWith(config: Partial<BrokerConfig>, locks = new LocalLockManager()) {
  const { demo } = emulator().projects;
  const broker = scope.track(
    await createBroker(
      { baseUrl: emulator().url, projectId: demo.id, publishableClientKey: demo.publishableClientKey, ...config },
      { mode: 'shared-worker', clock: emulatorClock(emulator()), locks },
    ),
  );
  return { broker, locks };
}

async function signedInTabs(count: number, config: Partial<BrokerConfig> = { offlineWrites: true }) {
  const started = await brokerWith(config);
  const tabs: SimulatedTab[] = [];
  for (let i = 0; i < count; i++) tabs.push(await scope.tab(started));
  await tabs[0]!.api.signUpWithPassword({
    email: uniqueEmail('writes'),
    password: 'writes-password',
    verificationCallbackUrl: `${APP}/x`,
  });
  for (const tab of tabs) {
    await tab.subscribe('pending', { kind: 'pendingChanges' });
    await tab.subscribe('user', { kind: 'currentUser' });
    await tab.waitFor('user', (s) => (s.data as User | null)?.id !== undefined);
  }
  return { ...started, tabs };
}

const pending = (tab: SimulatedTab) => (tab.latest('pending')?.data ?? []) as PendingChange[];
const displayName = (tab: SimulatedTab) => (tab.latest('user')?.data as User | null)?.displayName;
const patches = () => emulator().env.stats.snapshot().writes.by_route['PATCH /users/me'] ?? 0;

describe('offline writes', () => {
  it('by default a write while the service is unreachable fails at once, as before, and nothing is kept', async () => {
    const { tabs } = await signedInTabs(1, {});
    await setServiceReachable(emulator(), false);
    try {
      await expect(tabs[0]!.api.updateUser({ displayName: 'Away' })).rejects.toMatchObject({
        code: 'NETWORK_UNREACHABLE',
      });
      expect(pending(tabs[0]!)).toEqual([]);
    } finally {
      await setServiceReachable(emulator(), true);
    }
  });

  it('writes made while the service is away wait in every tab, show at once, and are applied once each, in order, when it returns', async () => {
    const { tabs } = await signedInTabs(3);
    await setServiceReachable(emulator(), false);
    const calls: Array<Promise<User>> = [];
    try {
      for (let i = 1; i <= 6; i++) {
        calls.push(tabs[i % 3]!.api.updateUser({ displayName: `Name ${i}`, clientMetadata: { n: i } }));
        // Each is kept before the next is made, so their order is the tabs' order.
        await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === i);
      }
      for (const tab of tabs) {
        await tab.waitFor('pending', (s) => (s.data as PendingChange[]).length === 6);
        expect(pending(tab).map((c) => c.label)).toEqual(Array(6).fill('updateUser'));
        expect(pending(tab).every((c) => c.state === 'waiting' && c.error === null)).toBe(true);
        // The optimistic value: the last write's, in every tab.
        await tab.waitFor('user', (s) => (s.data as User).displayName === 'Name 6');
      }
      emulator().env.stats.reset();
    } finally {
      await setServiceReachable(emulator(), true);
    }
    const answers = await Promise.all(calls);
    expect(answers.map((u) => u.clientMetadata)).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ n })));
    expect(patches()).toBe(6);
    for (const tab of tabs) await tab.waitFor('pending', (s) => (s.data as PendingChange[]).length === 0);
    expect(displayName(tabs[1]!)).toBe('Name 6');
  });

  it('a write the service refuses is reported in every tab, rolled back, never sent again; the next ones still go', async () => {
    const { tabs } = await signedInTabs(2);
    await setServiceReachable(emulator(), false);
    let refused: Promise<unknown>;
    let after: Promise<User>;
    try {
      refused = tabs[0]!.api.updateContactChannel('00000000-0000-4000-8000-000000000000', { usedForAuth: false });
      refused.catch(() => undefined);
      await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === 1);
      after = tabs[1]!.api.updateUser({ displayName: 'After the refusal' });
      await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === 2);
    } finally {
      await setServiceReachable(emulator(), true);
    }
    await expect(refused).rejects.toMatchObject({ status: 400 });
    expect((await after).displayName).toBe('After the refusal');
    for (const tab of tabs) {
      const [report] = (
        await tab.waitFor('pending', (s) => (s.data as PendingChange[]).every((c) => c.state === 'refused'))
      ).data as PendingChange[];
      expect(report).toMatchObject({ label: 'updateContactChannel', state: 'refused', attempts: 1 });
      expect(report!.error?.code).toBeTruthy();
    }
    const id = pending(tabs[0]!)[0]!.id;
    await tabs[1]!.api.dismissPendingChange(id);
    for (const tab of tabs) await tab.waitFor('pending', (s) => (s.data as PendingChange[]).length === 0);
  });

  it('signing out with writes waiting drops them, and every tab is told why; nothing is sent', async () => {
    const { tabs } = await signedInTabs(2);
    await setServiceReachable(emulator(), false);
    const kept = [1, 2, 3].map((n) => tabs[n % 2]!.api.updateUser({ displayName: `Never ${n}` }));
    for (const call of kept) call.catch(() => undefined);
    await tabs[0]!.waitFor('pending', (s) => (s.data as PendingChange[]).length === 3);
    emulator().env.stats.reset();
    await tabs[1]!.api.signOut();
    for (const tab of tabs) {
      const dropped = (
        await tab.waitFor(
          'pending',
          (s) =>
            (s.data as PendingChange[]).length === 3 && (s.data as PendingChange[]).every((c) => c.state === 'dropped'),
        )
      ).data as PendingChange[];
      expect(dropped.every((c) => c.error?.code === 'WRITE_DROPPED')).toBe(true);
    }
    for (const call of kept) await expect(call).rejects.toMatchObject({ code: 'WRITE_DROPPED' });
    await setServiceReachable(emulator(), true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(patches()).toBe(0);
  });
});
