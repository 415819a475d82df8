import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { installErrorTransfer } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import type { BrokerApi, BrokerEntry } from '../../contract/api.js';
import { PING, PONG, type PingMessage } from '../../contract/wire.js';
import type { Broker } from '../../worker/broker.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
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

/**
 * A page's connection by hand with a hello that names no lock: it answers the broker's questions (each counted) until
 * it leaves, without a word and without closing its ports, as a page's ports never say that it went.
 */
async function locklessPage(broker: Broker): Promise<{ pinged: number[]; leave(): void }> {
  const pinged: number[] = [];
  let here = true;
  installErrorTransfer(tabErrors);
  const entryPorts = new MessageChannel();
  exposeBrokerEntry(async () => broker, entryPorts.port2);
  const listener = new MessageChannel();
  listener.port1.addEventListener('message', (event: MessageEvent<PingMessage>) => {
    if (event.data?.type !== PING) return;
    pinged.push(event.data.id);
    if (here) listener.port1.postMessage({ type: PONG, id: event.data.id } satisfies PingMessage);
  });
  listener.port1.start();
  const entry = Comlink.wrap<BrokerEntry>(entryPorts.port1);
  const apiPort = await entry.connect(
    broker.config,
    { version: '' },
    Comlink.transfer(listener.port2, [listener.port2]),
  );
  byHand.track(() => {
    entryPorts.port1.close();
    listener.port1.close();
    (apiPort as MessagePort).close();
  });
  return { pinged, leave: () => (here = false) };
}

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

  it('a lock-less tab that leaves while no other tab connects is found gone: asked again every period (issue 39, item 1)', async () => {
    const clock = new EmulatorClock(emulator().env.clock);
    const started = await scope.start({ clock });
    const app = await scope.tab(started);
    // A page that names no lock: it answers its first check, then leaves without a word.
    const page = await locklessPage(started.broker);
    const pinged = page.pinged;
    await clock.advance(LOCKLESS_CHECK_MILLIS);
    await flush();
    expect(pinged).toHaveLength(1);
    expect((await app.api.status()).tabsConnected).toBe(2);
    // Still there a period later: asked once more, not more often.
    await clock.advance(LOCKLESS_CHECK_MILLIS);
    await flush();
    expect(pinged).toHaveLength(2);
    await clock.advance(LOCKLESS_CHECK_MILLIS / 2);
    await flush();
    expect(pinged).toHaveLength(2);
    // It leaves; nothing else connects. Before, it was asked again only when a new tab connected.
    page.leave();
    await clock.advance(LOCKLESS_CHECK_MILLIS / 2);
    await clock.advance(TAB_PING_TIMEOUT_MILLIS);
    expect((await app.api.status()).tabsConnected).toBe(1);
  });
});
