/**
 * 15. The service stopped while a tab is idle (issue 40) in Chromium: one shown tab, signed in, renders a connectivity
 * banner (`useConnectivity`) and does nothing else; the service stops; how long until the banner says it is not online
 * and names the service's URL. Then what watching costs: the requests the broker makes over 20 s with the service up,
 * the tab shown and the tab hidden (nobody looking: none).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Stage, type PageServer } from './browser.js';
import { fmt, median, sleep, startBenchEmulator, type BenchEmulator, type BenchResult, type Flags } from './harness.js';

const GOAL_MILLIS = 5000;
/** The broker's default `connectivityCheckMillis` (worker/config.ts), which the bench page keeps. */
const CHECK_MILLIS = 4000;
const WINDOW_MILLIS = 20_000;
/** How long the harness waits for the banner before calling the run a miss. */
const GIVE_UP_MILLIS = 20_000;

/** Lets the harness mark the page hidden (as bench/idleCost.ts does): the client reports it to the broker. */
const HIDE_SWITCH = `(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  window.__setHidden = (value) => { hidden = value; document.dispatchEvent(new Event('visibilitychange')); };
})();`;

interface BannerChange {
  atEpoch: number;
  state: string;
  message: string | null;
}
type PageKit = { connectivity: { changes(): BannerChange[] } };
const changesOf = (page: Page) => page.evaluate(() => (window.__bench as unknown as PageKit).connectivity.changes());
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => (window as unknown as { __setHidden(h: boolean): void }).__setHidden(h), hidden);

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeout: number) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(20);
  }
}

/** A fresh context with the demo user signed in, and one shown tab rendering the banner, online. */
async function openWatchingTab(stage: Stage): Promise<{ context: BrowserContext; page: Page }> {
  const context = await stage.newContext();
  await context.addInitScript(HIDE_SWITCH);
  await stage.seedSession(context, 'authbroker');
  const page = await stage.open(context, 'authbroker', 'hooks', { connectivity: '1' });
  await stage.waitMark(page, 'ready');
  await waitFor(
    'the banner to say online',
    () => changesOf(page),
    (c) => c.at(-1)?.state === 'online',
    10_000,
  );
  return { context, page };
}

interface StopRun {
  idleMillis: number;
  /** Requests the emulator received while the tab sat idle before the stop. */
  idleRequests: number;
  /** From the stop until the banner was not online (ms), whatever it said. */
  notOnlineMillis: number | null;
  /** Until it was not online and its message named the service's URL (ms): the goal's figure. */
  namedMillis: number | null;
  state: string | null;
  message: string | null;
}

/** One run on its own emulator: the tab idles `idleMillis`, the emulator stops (connections refused). */
async function stopWhileIdle(browser: Browser, pages: PageServer, idleMillis: number): Promise<StopRun> {
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let running = true;
  const { context, page } = await openWatchingTab(stage);
  try {
    const url = emulator.em.url;
    emulator.reset();
    await sleep(idleMillis);
    const idleRequests = emulator.log.entries.length;
    await emulator.stop();
    running = false;
    const stoppedAt = Date.now();
    const after = (changes: BannerChange[]) => changes.filter((c) => c.atEpoch >= stoppedAt && c.state !== 'online');
    const changes = await waitFor(
      'the banner to name the service',
      () => changesOf(page),
      (c) => after(c).some((change) => change.message?.includes(url) === true),
      GIVE_UP_MILLIS,
    ).catch(() => changesOf(page));
    const down = after(changes);
    const named = down.find((change) => change.message?.includes(url) === true);
    const run: StopRun = {
      idleMillis,
      idleRequests,
      notOnlineMillis: down[0] === undefined ? null : down[0].atEpoch - stoppedAt,
      namedMillis: named === undefined ? null : named.atEpoch - stoppedAt,
      state: (named ?? down[0])?.state ?? null,
      message: (named ?? down[0])?.message ?? null,
    };
    console.log(
      `  idle ${idleMillis} ms (${idleRequests} request(s)), then stopped: not online after ${run.notOnlineMillis ?? 'never'} ms, named after ${run.namedMillis ?? 'never'} ms (${run.state}: ${run.message})`,
    );
    return run;
  } finally {
    await context.close();
    await stage.close();
    if (running) await emulator.stop();
  }
}

interface WindowCount {
  hidden: boolean;
  requests: number;
  byPath: Record<string, number>;
}

function countWindow(emulator: BenchEmulator, hidden: boolean): WindowCount {
  const byPath: Record<string, number> = {};
  for (const entry of emulator.log.entries) {
    const key = `${entry.method} ${entry.path}`;
    byPath[key] = (byPath[key] ?? 0) + 1;
  }
  const count = { hidden, requests: emulator.log.entries.length, byPath };
  console.log(
    `  ${hidden ? 'hidden' : 'shown'}, ${WINDOW_MILLIS / 1000} s with the service up: ${count.requests} request(s) ${JSON.stringify(byPath)}`,
  );
  return count;
}

/** The same tab over 20 s with the service up: shown (its confirmations), then hidden (nobody looking). */
async function idleWindows(browser: Browser, pages: PageServer): Promise<WindowCount[]> {
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  const { context, page } = await openWatchingTab(stage);
  try {
    // The check a connecting tab has made once the contact is 2 s old (CONTACT_FRESH_MILLIS) is past.
    await sleep(3000);
    emulator.reset();
    await sleep(WINDOW_MILLIS);
    const shown = countWindow(emulator, false);
    await setHidden(page, true);
    // The report reaches the broker; anything already on its way lands.
    await sleep(1000);
    emulator.reset();
    await sleep(WINDOW_MILLIS);
    const hidden = countWindow(emulator, true);
    return [shown, hidden];
  } finally {
    await context.close();
    await stage.close();
    await emulator.stop();
  }
}

const range = (values: number[]) => `${fmt(Math.min(...values), 0)}–${fmt(Math.max(...values), 0)}`;
const paths = (byPath: Record<string, number>) =>
  Object.entries(byPath)
    .map(([path, n]) => `${path} × ${n}`)
    .join(', ') || '—';

export async function serviceStoppedBench(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const repeats = flags.quick ? 1 : 5;
  const runs: StopRun[] = [];
  // Idle times spread over one check interval, so the stop falls at a different point of the broker's schedule.
  for (let i = 0; i < repeats; i++)
    runs.push(await stopWhileIdle(browser, pages, 3000 + Math.round((i * CHECK_MILLIS) / repeats)));
  const windows = await idleWindows(browser, pages);
  const named = runs.map((r) => r.namedMillis ?? Number.POSITIVE_INFINITY);
  const hidden = windows.find((w) => w.hidden)!;
  const shown = windows.find((w) => !w.hidden)!;
  const allNamed = runs.every((r) => r.namedMillis !== null);
  return {
    id: 'service-stopped',
    title: '15. The service stopped while a tab is idle',
    method: [
      `Each run on a fresh emulator and a fresh context with the demo user signed in: one shown tab of the authbroker bench page in hooks mode with \`?connectivity=1\`, which renders a banner from \`useConnectivity\` (bench/pages/connectivity.tsx) and records, at each commit that changes it, the state and \`lastError.message\` with the time. The page's broker keeps the default \`connectivityCheckMillis\` (${CHECK_MILLIS} ms). Once the screen is ready and the banner says online, the tab sits idle (no call of its own) for 3 s plus i/${repeats} of the interval in run i, so that the stop falls at different points of the broker's schedule; then the emulator stops (its listener closed, every connection refused), as test/e2e/connectivity.test.ts does. The time runs from the stop until the banner's commit that shows a state other than online with a message naming the service's URL (the page's \`Date.now()\` at the commit, against the harness's, one machine clock); ${repeats} run(s), median and range.`,
      `**Nobody looking.** On another fresh emulator, the same tab: 3 s after it is ready, every request the emulator's server receives (CORS preflights included, Node's \`http.server.request.start\` channel) is counted over ${WINDOW_MILLIS / 1000} s with the tab shown and idle, then, after the page is marked hidden (\`visibilityState\` overridden and \`visibilitychange\` dispatched, as benchmark 9 does) and 1 s for the report to reach the broker, over ${WINDOW_MILLIS / 1000} s more.`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'The service stopped while the tab idles, per run (ms after the stop)',
        columns: [
          'run',
          'idle before the stop',
          'requests while idle',
          'not online',
          'named the service',
          'banner said',
        ],
        rows: runs.map((r, i) => [
          i + 1,
          fmt(r.idleMillis, 0),
          r.idleRequests,
          r.notOnlineMillis === null ? 'never' : fmt(r.notOnlineMillis, 0),
          r.namedMillis === null ? `not within ${GIVE_UP_MILLIS / 1000} s` : fmt(r.namedMillis, 0),
          r.message === null ? '—' : `${r.state}: ${r.message}`,
        ]),
      },
      {
        caption: `Requests the emulator received over ${WINDOW_MILLIS / 1000} s with the service up, one tab watching connectivity`,
        columns: ['tab', 'requests', 'which'],
        rows: windows.map((w) => [w.hidden ? 'hidden' : 'shown, idle', w.requests, paths(w.byPath)]),
      },
    ],
    goals: [
      {
        goal: `One shown idle tab watching connectivity: the service stopped is shown, named, ≤ ${GOAL_MILLIS / 1000} s (median)`,
        measured: allNamed
          ? `${fmt(median(named), 0)} ms (median of ${runs.length}; range ${range(named)} ms)`
          : `named in ${runs.filter((r) => r.namedMillis !== null).length} of ${runs.length} run(s) within ${GIVE_UP_MILLIS / 1000} s`,
        met: allNamed && median(named) <= GOAL_MILLIS,
      },
      {
        goal: `Every tab hidden: 0 requests over ${WINDOW_MILLIS / 1000} s with the service up`,
        measured: `${hidden.requests} request(s) (shown and idle: ${shown.requests}, ${paths(shown.byPath)})`,
        met: hidden.requests === 0,
      },
    ],
    notes: [
      `The stop falls somewhere in the broker's schedule of confirmations (one \`GET /api/v1\` every ${CHECK_MILLIS} ms since the service was last heard from, while the tab is shown and idle): the next one finds it gone, so the figure runs from about 0 to one interval plus the check's own time, and the range across runs reflects where the stop fell.`,
      'Reported, never asserted in a test: test/worker/connectivityWatched.test.ts asserts the same on a fake clock (named within one interval; nothing sent while every tab is hidden).',
    ],
    data: { repeats, checkMillis: CHECK_MILLIS, windowMillis: WINDOW_MILLIS, runs, windows },
  };
}
