/**
 * 3. RPC overhead in Chromium: a cached `getUser()` (client.read({kind:'currentUser'}) once
 * cached) tab → broker → tab, next to a raw postMessage round trip carrying the same payload and
 * a direct in-page call. Goal (issue 13): at most ×1.5 that round trip.
 */
import type { Browser } from 'playwright-core';
import { Stage, type PageServer } from './browser.js';
import { fmt, startBenchEmulator, summarize, type BenchResult, type Flags, type Summary } from './harness.js';

const LABELS: Record<string, string> = {
  broker: 'authbroker cached read (tab → SharedWorker → tab, Comlink)',
  inPage: 'same read on an in-page broker (mode in-process, no messaging)',
  rawSame: 'raw postMessage round trip to a trivial SharedWorker, same payload (query out, user back): the baseline',
  raw: 'raw postMessage round trip to a trivial SharedWorker echoing a number',
  rawUser: 'raw postMessage round trip echoing the user object both ways',
  direct: 'direct in-page call (async function returning the cached user)',
};

export async function rpcOverhead(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const rounds = flags.quick ? 4 : 20;
  const perRound = flags.quick ? 100 : 250;
  const warmup = flags.quick ? 100 : 500;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let external: string[] = [];
  let outcome: { samples: Record<string, number[]>; crossOriginIsolated: boolean; timerStepMillis: number };
  try {
    const context = await stage.newContext();
    await stage.seedSession(context, 'authbroker');
    const page = await stage.open(context, 'authbroker', 'idle');
    await page.evaluate(() => window.__bench.ready());
    outcome = await page.evaluate(
      ([r, p, w]) => (window.__bench.rpc as (r: number, p: number, w: number) => Promise<typeof outcome>)(r!, p!, w!),
      [rounds, perRound, warmup],
    );
    await context.close();
  } finally {
    external = stage.externalNote();
    await stage.close();
    await emulator.stop();
  }
  const stats: Record<string, Summary> = {};
  for (const [variant, samples] of Object.entries(outcome.samples)) stats[variant] = summarize(samples);
  const broker = stats.broker!;
  const baseline = stats.rawSame!;
  const ratio = broker.median / baseline.median;
  return {
    id: 'rpc',
    title: '3. RPC overhead in Chromium (cached getUser round trip)',
    method: [
      `One tab of the authbroker bench page (signed in, broker SharedWorker running, the user read once so it is cached). In the page, ${rounds} rounds × ${perRound} sequential calls per variant, variants interleaved round by round (order rotated), after ${warmup} warm-up calls each; every call timed with performance.now().`,
      `The page is served with COOP/COEP (crossOriginIsolated: ${outcome.crossOriginIsolated}); the smallest step performance.now() showed was ${fmt(outcome.timerStepMillis * 1000, 1)} µs, so single calls are resolved well below the goal.`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Round-trip time per call (ms)',
        columns: ['variant', 'median', 'p95', 'p99', 'mean', 'n', 'median ÷ same-payload postMessage'],
        rows: Object.entries(stats).map(([variant, s]) => [
          LABELS[variant] ?? variant,
          fmt(s.median, 3),
          fmt(s.p95, 3),
          fmt(s.p99, 3),
          fmt(s.mean, 3),
          s.n,
          `×${fmt(s.median / baseline.median, 2)}`,
        ]),
      },
    ],
    goals: [
      {
        goal: 'cached getUser() at most ×1.5 a raw postMessage round trip carrying the same payload (medians)',
        measured: `×${fmt(ratio, 2)} (${fmt(broker.median, 3)} ms vs ${fmt(baseline.median, 3)} ms; p95 ${fmt(broker.p95, 3)} ms)`,
        met: ratio <= 1.5,
      },
    ],
    notes: [
      'The absolute goal of 0.3 ms is retired (issue 13): a round trip between threads costs what the machine makes it cost, so the goal is a ratio to the same round trip without authbroker.',
      ...external,
    ],
    data: {
      rounds,
      perRound,
      warmup,
      crossOriginIsolated: outcome.crossOriginIsolated,
      timerStepMillis: outcome.timerStepMillis,
      stats,
    },
  };
}
