import { describe, expect, it } from 'vitest';
import type { BrokerApi } from '../../contract/api.js';
import { MAX_TAB_WARNING_LENGTH, MAX_TAB_WARNINGS } from '../../worker/status.js';
import { LOCKLESS_CHECK_MILLIS, TAB_PING_TIMEOUT_MILLIS } from '../../worker/tabs/liveness.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { useEmulator } from '../support/emulator.js';
import { answered, useHandMadeConnections } from '../support/hostilePage.js';
import { holdLock } from '../support/locks.js';
import { EmulatorClock, flush } from '../support/scheduler.js';

/**
 * Tabs are the broker's own: no page can disconnect another page's tab or make every tab give a
 * live broker up for lost (issue 27, item 4), and what tabs report, and tabs that are gone, are
 * bounded (item 7). The Chromium versions are in test/e2e/hostilePage.test.ts.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const byHand = useHandMadeConnections();

describe("no page can disconnect another page's tab", () => {
  it("a hello with another tab's id and lock makes a new tab and leaves that one connected", async () => {
    const started = await scope.start();
    const victim = await scope.tab(started);
    await victim.subscribe('session', { kind: 'session' });
    await byHand.connect(started.broker, { tabId: victim.tabId, lockName: `authbroker:tab:${victim.tabId}` });
    expect(await answered(victim.api.status())).toMatchObject({ tabsConnected: 2, subscriptions: 1 });
    // Its subscription is still delivered.
    await victim.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await victim.waitFor('session', (s) => (s.data as { status: string }).status === 'signed-in');
  });

  it('a tab whose lifetime lock another page takes and lets go stays connected; it is released when it really goes', async () => {
    const clock = new EmulatorClock(emulator().env.clock);
    const started = await scope.start({ clock });
    const [victim, other] = [await scope.tab(started), await scope.tab(started)];
    await victim.subscribe('session', { kind: 'session' });
    // Lock names are no secret (navigator.locks.query()); any page can steal one and let it go.
    await started.locks.request(`authbroker:tab:${victim.tabId}`, { steal: true }, () => undefined);
    await flush();
    expect(await answered(victim.api.status())).toMatchObject({ tabsConnected: 2, subscriptions: 1 });
    await clock.advance(TAB_PING_TIMEOUT_MILLIS);
    expect(await answered(other.api.status())).toMatchObject({ tabsConnected: 2, subscriptions: 1 });

    // As the client does, the tab takes a fresh lock and names it; when the tab goes, it is released.
    const fresh = holdLock(started.locks, `authbroker:tab:${victim.tabId}:1`);
    await fresh.ready;
    await victim.api.watchLifetime(`authbroker:tab:${victim.tabId}:1`);
    victim.vanish();
    fresh.release();
    await flush();
    await clock.advance(TAB_PING_TIMEOUT_MILLIS);
    expect(await answered(other.api.status())).toMatchObject({ tabsConnected: 1, subscriptions: 0 });
  });

  it('a broker whose lifetime lock another page takes holds a fresh one, and names it to its tabs', async () => {
    const started = await scope.start();
    const tab = await scope.tab(started);
    const first = await tab.api.watchLifetime(`authbroker:tab:${tab.tabId}`);
    expect(first).toBe(`authbroker:broker:${started.broker.status().brokerId}`);
    await started.locks.request(first!, { steal: true }, () => undefined);
    await flush();
    const next = await tab.api.watchLifetime(`authbroker:tab:${tab.tabId}`);
    expect(next).toBe(`${first}:1`);
    expect(started.locks.isHeld(next!)).toBe(true);
  });
});

describe('what tabs report, and tabs that are gone, are bounded', () => {
  it('warnings from tabs are cut short, shown once, at most a few in all, and leave with their tab', async () => {
    const started = await scope.start();
    const app = await scope.tab(started);
    const long = (i: number) => `${i}:${'w'.repeat(1999 - String(i).length)}`;
    const tabs: BrokerApi[] = [];
    for (let i = 0; i < 30; i++)
      tabs.push(
        await byHand.connect(started.broker, { warnings: Array.from({ length: 10 }, (_, j) => long(i * 10 + j)) }),
      );
    // The same sentence from every tab is one warning.
    for (let i = 0; i < 5; i++)
      tabs.push(
        await byHand.connect(started.broker, {
          warnings: ['The broker runs in service-worker mode because a better host did not start.'],
        }),
      );
    const { warnings } = await app.api.status();
    expect(warnings.length).toBeLessThanOrEqual(MAX_TAB_WARNINGS);
    expect(warnings.every((w) => w.length <= MAX_TAB_WARNING_LENGTH)).toBe(true);
    expect(new Set(warnings).size).toBe(warnings.length);
    for (const api of tabs) await api.goodbye();
    expect((await app.api.status()).warnings).toEqual([]);
  });

  it('tabs that never name a lock and never answer are released; a live one without a lock stays', async () => {
    const clock = new EmulatorClock(emulator().env.clock);
    const started = await scope.start({ clock });
    const app = await scope.tab(started);
    // A page without Web Locks: it names no lock, but answers over its port.
    const lockless = await scope.tab(started, { lifetimeLock: 'never' });
    for (let i = 0; i < 30; i++) await byHand.connect(started.broker, {});
    expect((await app.api.status()).tabsConnected).toBe(32);
    await clock.advance(LOCKLESS_CHECK_MILLIS);
    await clock.advance(TAB_PING_TIMEOUT_MILLIS);
    expect((await app.api.status()).tabsConnected).toBe(2);
    expect(await answered(lockless.api.status())).toMatchObject({ tabsConnected: 2 });
  });
});
