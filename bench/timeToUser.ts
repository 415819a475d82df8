/**
 * 4. Time to a signed-in screen in a new tab: warm broker (another tab open), cold broker (session
 * in IndexedDB, no tab open), the official SDK and the naive client, from script start to the
 * user in the DOM; and how many requests the emulator received in that window.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { Stage, type ClientKind, type PageServer } from './browser.js';
import { fmt, median, sleep, startBenchEmulator, summarize, type BenchResult, type Flags } from './harness.js';

type Variant = 'warm' | 'cold' | 'sdk' | 'naive';
const VARIANTS: Array<{ variant: Variant; kind: ClientKind; holder: boolean; label: string }> = [
  { variant: 'warm', kind: 'authbroker', holder: true, label: 'authbroker, warm broker (another tab open, user cached)' },
  { variant: 'cold', kind: 'authbroker', holder: false, label: 'authbroker, cold broker (session in IndexedDB, no tab open)' },
  { variant: 'sdk', kind: 'sdk', holder: true, label: 'official SDK @stackframe/js (another tab open; tokens in cookies)' },
  { variant: 'naive', kind: 'naive', holder: false, label: 'naive per-tab client (tokens in localStorage)' },
];

interface Sample {
  variant: Variant;
  /** Context: the page's own script run, and (authbroker) until connected to the broker, from script start. */
  scriptRun: number;
  connected: number | null;
  fromScriptStart: number;
  fromNavigation: number;
  requestsInWindow: number;
  requestsUntilReady: number;
}

export async function timeToUser(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const reps = flags.quick ? 3 : 15;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let external: string[] = [];
  const samples: Sample[] = [];
  const contexts = new Map<Variant, BrowserContext>();
  try {
    for (const { variant, kind, holder } of VARIANTS) {
      const context = await stage.newContext();
      contexts.set(variant, context);
      await stage.seedSession(context, kind);
      if (holder) await stage.waitMark(await stage.open(context, kind, 'hooks'), 'ready');
    }
    // Rep 0 warms the HTTP and code caches of every variant and is not counted.
    for (let rep = 0; rep <= reps; rep++) {
      for (const { variant, kind, holder } of VARIANTS) {
        const context = contexts.get(variant)!;
        if (!holder) await stage.waitNoBroker(context);
        await sleep(100);
        emulator.reset();
        const page = await stage.open(context, kind, 'hooks');
        await stage.waitMark(page, 'user');
        await stage.waitMark(page, 'ready');
        await sleep(300);
        const marks = await page.evaluate(() => window.__bench.marks);
        await page.close();
        if (rep === 0) continue;
        samples.push({
          variant,
          scriptRun: marks.scriptEnd! - marks.t0,
          connected: marks.connected === undefined ? null : marks.connected - marks.t0,
          fromScriptStart: marks.user! - marks.t0,
          fromNavigation: marks.user!,
          requestsInWindow: emulator.log.between(marks.t0Epoch, marks.userEpoch!),
          requestsUntilReady: emulator.log.entries.length,
        });
      }
    }
  } finally {
    for (const context of contexts.values()) await context.close().catch(() => undefined);
    await stage.close();
    await emulator.stop();
  }

  const of = (variant: Variant) => samples.filter((s) => s.variant === variant);
  const warm = summarize(of('warm').map((s) => s.fromScriptStart));
  const warmRequests = of('warm').map((s) => s.requestsInWindow);
  const sdkMedian = median(of('sdk').map((s) => s.fromScriptStart));
  return {
    id: 'time-to-user',
    title: '4. Time to a signed-in screen in a new tab',
    method: [
      `Four browser contexts, each with the demo user signed in from a set-up tab: warm (an authbroker tab with the hooks stays open, so the broker runs and has the user cached), cold (no tab open: the harness waits until the broker SharedWorker is gone before each tab; the session is in IndexedDB), the official SDK (an SDK tab stays open; tokens in cookies) and the naive client (tokens in localStorage).`,
      `Each repetition opens one new tab of the bench page per variant (variants interleaved) and closes it afterwards. Time = performance.now() when the user is in the DOM (a layout effect of the screen) minus performance.now() at the first statement of the page's bundle (script start); "from navigation" is the same moment from the navigation start. Requests = every request the emulator received (CORS preflights included; Node's http diagnostics channel, epoch ms) between script start and that moment; "until ready" counts until teams and contact channels are shown too, plus 300 ms.`,
      `Context columns: "script run" is the first synchronous run of the page's bundle (React, the client, the first render scheduled); "connected" is when authbroker's client had its broker connection.`,
      `${reps} repetitions per variant after one uncounted warm-up (scripts are served cacheable, as a deployed app's would be). React 19 production build, esbuild-minified pages.`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Time to the user in the DOM (ms) and requests received by the emulator',
        columns: ['variant', 'median from script start', 'p95', 'median from navigation start', 'requests in window (median; max)', 'requests until all shown (median)', 'context: script run / connected (median ms from script start)'],
        rows: VARIANTS.map(({ variant, label }) => {
          const list = of(variant);
          const s = summarize(list.map((x) => x.fromScriptStart));
          return [
            label,
            fmt(s.median, 1),
            fmt(s.p95, 1),
            fmt(median(list.map((x) => x.fromNavigation)), 1),
            `${fmt(median(list.map((x) => x.requestsInWindow)), 0)}; ${Math.max(0, ...list.map((x) => x.requestsInWindow))}`,
            fmt(median(list.map((x) => x.requestsUntilReady)), 0),
            `${fmt(median(list.map((x) => x.scriptRun)), 1)} / ${list.some((x) => x.connected !== null) ? fmt(median(list.map((x) => x.connected ?? Number.NaN)), 1) : '—'}`,
          ];
        }),
      },
    ],
    goals: [
      { goal: 'warm broker: signed-in screen ≤ 15 ms from script start (median)', measured: `median ${fmt(warm.median, 1)} ms (p95 ${fmt(warm.p95, 1)} ms)`, met: warm.median <= 15 },
      { goal: 'warm broker: no network request in that window', measured: `${warmRequests.filter((r) => r > 0).length} of ${warmRequests.length} tabs saw requests (max ${Math.max(0, ...warmRequests)})`, met: warmRequests.every((r) => r === 0) },
    ],
    notes: [...external, `Side by side: warm authbroker median is ×${fmt(warm.median / sdkMedian, 2)} the official SDK's (${fmt(sdkMedian, 1)} ms).`],
    data: { reps, samples },
  };
}
