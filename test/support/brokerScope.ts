import { afterEach, beforeEach } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import type { Broker } from '../../worker/broker.js';
import { resetIndexedDb, startTestBroker, type TestBroker } from './broker.js';
import { connectTab, type SimulatedTab } from './tabs.js';

type StartOptions = Parameters<typeof startTestBroker>[1];
type TabOptions = Parameters<typeof connectTab>[2];

/**
 * What most broker tests do around each test: a fresh fake IndexedDB and emulator counters before,
 * and every broker and tab the test opened closed after. `start` and `tab` open them and remember
 * them; `track` remembers a broker made some other way.
 */
export function useBrokerScope(emulator: () => RunningEmulator) {
  const brokers: Broker[] = [];
  const tabs: SimulatedTab[] = [];
  beforeEach(async () => {
    await resetIndexedDb();
    emulator().env.stats.reset();
  });
  afterEach(() => {
    for (const tab of tabs.splice(0)) tab.close();
    for (const broker of brokers.splice(0)) broker.close();
  });
  const track = <B extends Broker>(broker: B): B => {
    brokers.push(broker);
    return broker;
  };
  const tab = async (started: Pick<TestBroker, 'broker' | 'locks'>, options?: TabOptions): Promise<SimulatedTab> => {
    const opened = await connectTab(started.broker, started.locks, options);
    tabs.push(opened);
    return opened;
  };
  return {
    track,
    tab,
    async start(options?: StartOptions): Promise<TestBroker> {
      const started = await startTestBroker(emulator(), options);
      track(started.broker);
      return started;
    },
    /** A broker and `count` tabs on it. */
    async startWithTabs(count: number, options?: StartOptions): Promise<TestBroker & { tabs: SimulatedTab[] }> {
      const started = await this.start(options);
      return { ...started, tabs: await Promise.all(Array.from({ length: count }, () => tab(started))) };
    },
  };
}
