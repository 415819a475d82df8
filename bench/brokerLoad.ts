/**
 * 8. Broker load (report only): 20 simulated tabs × 50 subscriptions whose values change every
 * 100 ms, for --load-seconds (60 by default, 10 in --quick): lost updates, heap, event-loop lag.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BENCH, fmt, isChild, runChild, sleep, spawnEmulator, type BenchResult, type Flags } from './harness.js';
import { connectSimTab, settledHeap, startNodeBroker } from './simTabs.js';
import type { QuerySnapshot, QuerySpec } from '../worker/index.js';

const TABS = 20;
const SUBSCRIPTIONS = 50;
const TICK_MILLIS = 100;

interface LoadOutcome {
  seconds: number;
  ticks: number;
  lateTicks: number;
  lastSeq: number;
  lost: number;
  checked: number;
  delivered: number;
  heapStartBytes: number;
  heapEndBytes: number;
  heapPeakBytes: number;
  lagMillis: { p50: number; p99: number; max: number; mean: number };
  updateUserMillis: { median: number; max: number };
}

const LAG_RESOLUTION_MILLIS = 10;
const lagOf = (nanos: number) => Math.max(0, nanos / 1e6 - LAG_RESOLUTION_MILLIS);

const seqOf = (snapshot: QuerySnapshot | undefined) =>
  (snapshot?.data as { clientMetadata?: { seq?: number } } | null | undefined)?.clientMetadata?.seq ?? -1;

async function child(seconds: number): Promise<LoadOutcome> {
  const emulator = await spawnEmulator({ teams: SUBSCRIPTIONS - 1 });
  try {
    const { info } = emulator;
    const bench = await startNodeBroker(info);
    const tabs = await Promise.all(Array.from({ length: TABS }, () => connectSimTab(bench)));
    await tabs[0]!.api.signInWithPassword(info.demoUser);
    const specs: QuerySpec[] = [
      { kind: 'currentUser' },
      ...info.teamIds.map((teamId) => ({ kind: 'team' as const, teamId })),
    ];
    await Promise.all(tabs.map((tab) => Promise.all(specs.map((spec, i) => tab.subscribe(`s${i}`, spec)))));
    while (tabs.some((tab) => [...tab.latest.values()].some((s) => s.status !== 'success'))) await sleep(20);
    const teams = specs
      .slice(1)
      .map((spec, i) => ({ spec, base: tabs[0]!.latest.get(`s${i + 1}`)!.data as Record<string, unknown> }));

    const heapStartBytes = await settledHeap();
    let heapPeakBytes = heapStartBytes;
    const sampler = setInterval(() => (heapPeakBytes = Math.max(heapPeakBytes, process.memoryUsage().heapUsed)), 250);
    const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MILLIS });
    lag.enable();
    const updateTimes: number[] = [];
    const started = performance.now();
    let seq = 0;
    let lateTicks = 0;
    // One tick: the user through the broker's updateUser (PATCH to the emulator, then the answer
    // into the cache) and every team through the broker's own cache mutation path.
    while (performance.now() - started < seconds * 1000) {
      const due = started + seq * TICK_MILLIS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      else if (wait < -TICK_MILLIS) lateTicks++;
      seq++;
      for (const { spec, base } of teams)
        bench.broker.parts.queries.setQueryData(spec, { ...base, clientMetadata: { seq } });
      const t = performance.now();
      await tabs[1]!.api.updateUser({ clientMetadata: { seq } });
      updateTimes.push(performance.now() - t);
    }
    lag.disable();
    clearInterval(sampler);
    // Every tab must end on the last value; give deliveries up to 3 s to arrive.
    const deadline = Date.now() + 3000;
    const lostNow = () =>
      tabs.reduce((a, tab) => a + specs.filter((_, i) => seqOf(tab.latest.get(`s${i}`)) !== seq).length, 0);
    while (lostNow() > 0 && Date.now() < deadline) await sleep(20);
    const lost = lostNow();
    const heapEndBytes = await settledHeap();
    updateTimes.sort((a, b) => a - b);
    bench.broker.close();
    return {
      seconds,
      ticks: seq,
      lateTicks,
      lastSeq: seq,
      lost,
      checked: TABS * specs.length,
      delivered: tabs.reduce((a, tab) => a + tab.delivered, 0),
      heapStartBytes,
      heapEndBytes,
      heapPeakBytes,
      // The histogram records the whole interval between timer ticks: the lag is that minus the resolution.
      lagMillis: {
        p50: lagOf(lag.percentile(50)),
        p99: lagOf(lag.percentile(99)),
        max: lagOf(lag.max),
        mean: lagOf(lag.mean),
      },
      updateUserMillis: {
        median: updateTimes[Math.floor(updateTimes.length / 2)] ?? Number.NaN,
        max: updateTimes.at(-1) ?? Number.NaN,
      },
    };
  } finally {
    await emulator.stop();
  }
}

const MiB = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MiB`;

export async function brokerLoad(flags: Flags): Promise<BenchResult> {
  const out = await runChild<LoadOutcome>(`${BENCH}brokerLoad.ts`, [`--seconds=${flags.loadSeconds}`], {
    nodeFlags: ['--expose-gc'],
    timeoutMillis: (flags.loadSeconds + 120) * 1000,
  });
  const perSubscriptionPerTick = out.delivered / out.checked / out.ticks;
  return {
    id: 'broker-load',
    title: `8. Broker load (report only): ${TABS} tabs × ${SUBSCRIPTIONS} subscriptions, values changing every ${TICK_MILLIS} ms, for ${out.seconds} s`,
    method: [
      `**Duration of this run: ${out.seconds} s** (\`--load-seconds\`; the brief's figure is 60 s, which is the default of a full run).`,
      `In a child process (\`--expose-gc\`): a SharedWorker-mode broker (fake-indexeddb, real timers) against an emulator in another process, ${TABS} simulated tabs over Comlink/MessageChannel, each subscribing to the current user and ${SUBSCRIPTIONS - 1} teams (${SUBSCRIPTIONS} subscriptions per tab, ${TABS * SUBSCRIPTIONS} in all). Every ${TICK_MILLIS} ms a tick writes a new sequence number into all ${SUBSCRIPTIONS} values: the user through a tab's \`updateUser({ clientMetadata })\` (a PATCH to the emulator, whose answer the broker writes into its cache), the teams through the broker's own cache mutation path (\`core.setQueryData\`). Ticks run back to back when one is late.`,
      `At the end every subscription of every tab must show the last sequence number (3 s allowed for delivery). Heap after forced GCs at start and end, peak heapUsed sampled every 250 ms; event-loop lag from \`perf_hooks.monitorEventLoopDelay\` (10 ms resolution; the histogram records the interval between ticks, so lag = recorded − 10 ms) over the load. Tabs and broker share one process here, so the lag includes the tabs' own work.`,
    ].join('\n\n'),
    tables: [
      {
        columns: ['figure', 'value'],
        rows: [
          ['ticks (changes of every value)', `${out.ticks} (${out.lateTicks} more than one tick late)`],
          ['lost updates (subscriptions not on the last value)', `${out.lost} of ${out.checked}`],
          [
            'snapshots delivered to tabs',
            `${out.delivered} (${fmt(perSubscriptionPerTick, 2)} per subscription per tick)`,
          ],
          [
            'heap at start / end (after GC)',
            `${MiB(out.heapStartBytes)} / ${MiB(out.heapEndBytes)} (${out.heapEndBytes >= out.heapStartBytes ? '+' : ''}${MiB(out.heapEndBytes - out.heapStartBytes)})`,
          ],
          ['peak heapUsed during the load', MiB(out.heapPeakBytes)],
          [
            'event-loop lag p50 / p99 / max',
            `${fmt(out.lagMillis.p50, 1)} / ${fmt(out.lagMillis.p99, 1)} / ${fmt(out.lagMillis.max, 1)} ms`,
          ],
          [
            'updateUser round trip median / max',
            `${fmt(out.updateUserMillis.median, 1)} / ${fmt(out.updateUserMillis.max, 1)} ms`,
          ],
        ],
      },
    ],
    goals: [
      {
        goal: 'no lost update: every tab ends on the last value (report only)',
        measured: `${out.lost} lost of ${out.checked}`,
        met: null,
      },
    ],
    notes: out.lost > 0 ? [`${out.lost} subscriptions did not end on the last value: a lost update.`] : [],
    data: out,
  };
}

if (isChild(import.meta.url)) {
  const seconds = Number(process.argv.find((a) => a.startsWith('--seconds='))?.split('=')[1] ?? '60');
  console.log(JSON.stringify(await child(seconds)));
  process.exit(0);
}
