/**
 * 6b. Broker memory in the real host: the SharedWorker in Chromium, while batches of tabs open
 * (each mounting the user, teams and contact-channels hooks) and close again. The worker's heap is
 * read over CDP after forced garbage collections.
 */
import type { Browser } from 'playwright-core';
import { WorkerTarget } from '../test/e2e/support/workerCdp.js';
import { Stage, type PageServer } from './browser.js';
import { growthByType, objectBytesByType, totalBytes } from '../test/support/heapSnapshot.js';
import { fmt, sleep, startBenchEmulator, type BenchResult, type Flags } from './harness.js';

const TABS = 10;
/** The cache drops an entry 5 s after its last subscriber; a tab's release takes a moment more. */
const SETTLE_MILLIS = 6000;

export async function workerMemory(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const cycles = flags.quick ? 4 : 10;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let external: string[] = [];
  const afterCycle: number[] = [];
  let baseline = 0;
  let loaded = 0;
  let leftOpen = { tabs: 0, subscriptions: 0, cacheEntries: 0 };
  const half = Math.floor(cycles / 2);
  let midSnapshot: Map<string, number> | null = null;
  let objectGrowth: Record<string, number> = {};
  try {
    const context = await stage.newContext();
    await stage.seedSession(context, 'authbroker');
    // One idle tab keeps the worker alive between batches, as a user's other tab would.
    const holder = await stage.open(context, 'authbroker', 'idle');
    await holder.evaluate(() => window.__bench.ready());
    const cdp = await stage.cdp();
    const { targetInfos } = await cdp.send('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'shared_worker');
    if (!target) throw new Error('No broker SharedWorker is running.');
    const worker = await WorkerTarget.attach(cdp, target.url);
    await worker.send('HeapProfiler.enable');
    const heap = async () => {
      for (let i = 0; i < 3; i++) {
        await worker.send('HeapProfiler.collectGarbage');
        await sleep(100);
      }
      return (await worker.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
    };
    let chunks: string[] = [];
    worker.onEvent((method, params) => {
      if (method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(String(params.chunk));
    });
    const snapshotByType = async () => {
      chunks = [];
      await worker.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
      return objectBytesByType(chunks.join(''));
    };
    const batch = async (measureLoaded: boolean) => {
      const tabs = await Promise.all(Array.from({ length: TABS }, () => stage.open(context, 'authbroker', 'hooks')));
      for (const tab of tabs) await stage.waitMark(tab, 'ready');
      if (measureLoaded) loaded = await heap();
      for (const tab of tabs) await tab.close();
      await sleep(SETTLE_MILLIS);
    };
    // A warm-up batch first: code compiled and caches filled on first use are not growth.
    await batch(false);
    baseline = await heap();
    for (let cycle = 0; cycle < cycles; cycle++) {
      await batch(cycle === 0);
      afterCycle.push(await heap());
      if (cycle === half - 1) midSnapshot = await snapshotByType();
    }
    objectGrowth = growthByType(midSnapshot!, await snapshotByType());
    const status = await holder.evaluate(() =>
      (
        window.__bench.status as () => Promise<{ tabsConnected: number; subscriptions: number; cacheEntries: number }>
      )(),
    );
    leftOpen = { tabs: status.tabsConnected, subscriptions: status.subscriptions, cacheEntries: status.cacheEntries };
    await context.close();
  } finally {
    external = stage.externalNote();
    await stage.close();
    await emulator.stop();
  }
  const kB = (bytes: number) => `${fmt(bytes / 1024, 0)} KiB`;
  const oneLoad = loaded - baseline;
  const lateGrowth = afterCycle.at(-1)! - afterCycle[half - 1]!;
  const lateObjects = totalBytes(objectGrowth);
  const met = lateObjects <= 0.05 * oneLoad;
  return {
    id: 'worker-memory',
    title: '6b. Broker memory in Chromium (the SharedWorker itself)',
    method: [
      `The real host: the broker's SharedWorker in Chromium. One idle tab keeps it running. Each batch opens ${TABS} tabs of the bench page at once (each mounts the user, teams and contact-channels hooks and the session), waits until all show their data, closes them, and waits ${SETTLE_MILLIS} ms (cache entries go 5 s after their last subscriber). The worker's heap is \`Runtime.getHeapUsage().usedSize\` over CDP after three \`HeapProfiler.collectGarbage\` calls.`,
      `A warm-up batch runs first; then ${cycles} batches. "One load" is the heap with the first measured batch's ${TABS} tabs open minus the baseline. The leak check is the one of benchmark 6: heap snapshots of the worker (CDP \`HeapProfiler.takeHeapSnapshot\`) after batch ${half} and after the last are compared by node type, compiled code and V8 internals left out (usedSize counts code, which grows while functions warm up); objects may grow by at most 5 % of one load.`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'SharedWorker heap after each batch (forced GC)',
        columns: ['point', 'heap used', 'vs baseline'],
        rows: [
          ['baseline (idle tab only, after warm-up)', kB(baseline), '—'],
          [`${TABS} tabs open (first batch)`, kB(loaded), `+${kB(oneLoad)}`],
          ...afterCycle.map((bytes, i) => [
            `after batch ${i + 1}`,
            kB(bytes),
            `${bytes >= baseline ? '+' : ''}${kB(bytes - baseline)}`,
          ]),
        ],
      },
    ],
    goals: [
      {
        goal: `no leak in the SharedWorker: objects (compiled code aside) held after the last ${cycles - half} of ${cycles} batches of ${TABS} tabs grow by at most 5 % of what one load adds`,
        measured: `objects grew by ${kB(lateObjects)} (${
          Object.entries(objectGrowth)
            .map(([type, bytes]) => `${type} +${kB(bytes)}`)
            .join(', ') || 'nothing'
        }); one load adds ${kB(oneLoad)}; usedSize, code included, +${kB(lateGrowth)}; after the last batch the broker had ${leftOpen.tabs} tab(s), ${leftOpen.subscriptions} subscription(s), ${leftOpen.cacheEntries} cache entries`,
        met,
      },
    ],
    notes: [...external],
    data: { tabs: TABS, cycles, baseline, loaded, afterCycle, objectGrowth, leftOpen },
  };
}
