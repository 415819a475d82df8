/**
 * Bench 4's rows about what a new tab does before its first frame (issue 25), today's tab side and
 * the one before (`BEFORE_COMMIT`) side by side in the same run: a page that uses only
 * `authbroker/client`, timed from its module's first line, and a first visit ever.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { BEFORE_COMMIT, type BenchPage, type Stage } from './browser.js';
import { fmt, median, sleep, summarize, type BenchEmulator, type Goal, type Table } from './harness.js';
import type { ClientOnlyMarks, Marks } from './pages/marks.js';

/** A script the page fetched: its path, and when the fetch started and ended (ms from navigation). */
interface Fetched {
  path: string;
  start: number;
  end: number;
}

/** The page's marks and the scripts it fetched. */
async function readPage(page: Page): Promise<{ marks: Marks; scripts: Fetched[] }> {
  return page.evaluate(() => ({
    marks: window.__bench.marks,
    scripts: performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => ({
        path: new URL(entry.name).pathname,
        start: entry.startTime,
        end: (entry as PerformanceResourceTiming).responseEnd,
      })),
  }));
}

/** The lazy connection's chunk among a page's scripts (today's tab side only). */
const connectionChunk = (scripts: Fetched[]) => scripts.find((script) => /\/connection-[\w]+\.js$/.test(script.path));

export interface ClientOnlySample {
  before: boolean;
  /** No client: the page only reads the kept copy from localStorage itself (the floor). */
  floor: boolean;
  warm: boolean;
  /** From the app module's first line to the kept user in hand (null: none was given). */
  keptUser: number | null;
  calls: ClientOnlyMarks['calls'];
  /** The library's synchronous share: its calls added up. */
  library: number;
  firstFrame: number | null;
  /** When the connection's chunk was asked for, from the first frame (today's tab side). */
  connectionAfterFrame: number | null;
  connected: number | null;
  fresh: number | null;
}

export interface FirstVisitSample {
  before: boolean;
  /** The sign-in form on screen, from navigation start and from script start. */
  fromNavigation: number;
  fromScriptStart: number;
  /** Scripts fetched before the screen settled. */
  scripts: number;
  /** How long fetching the connection's chunk took (today's tab side). */
  connectionFetch: number | null;
}

/**
 * One client-only tab in `context` (warm: a tab holding the broker is open there; cold: none is).
 * `floor`: the page reads the kept copy itself, with no client.
 */
export async function clientOnlyTab(
  stage: Stage,
  emulator: BenchEmulator,
  context: BrowserContext,
  warm: boolean,
  before: boolean,
  floor = false,
): Promise<ClientOnlySample> {
  if (!warm) await stage.waitNoBroker(context);
  await sleep(100);
  emulator.reset();
  const page = await stage.open(
    context,
    before ? 'before/client-only' : 'client-only',
    'hooks',
    floor ? { floor: '1' } : {},
  );
  await page.waitForFunction(
    (alone) =>
      window.__bench.marks.clientOnly?.firstFrame !== undefined &&
      (alone || window.__bench.marks.clientOnly.fresh !== undefined),
    floor,
    { timeout: 60_000, polling: 20 },
  );
  await sleep(300);
  const { marks, scripts } = await readPage(page);
  await page.close();
  const own = marks.clientOnly!;
  const since = (time: number | undefined) => (time === undefined ? null : time - own.appStart);
  const chunk = connectionChunk(scripts);
  return {
    before,
    floor,
    warm,
    keptUser: since(own.keptUser),
    calls: own.calls,
    library: Object.values(own.calls).reduce((sum, took) => sum + took, 0),
    firstFrame: since(own.firstFrame),
    connectionAfterFrame: chunk === undefined || own.firstFrame === undefined ? null : chunk.start - own.firstFrame,
    connected: since(marks.connected),
    fresh: since(own.fresh),
  };
}

/** A first visit ever: a fresh context (no session, no kept copy, no broker, nothing cached), signed out. */
export async function firstVisit(stage: Stage, before: boolean): Promise<FirstVisitSample> {
  const context = await stage.newContext();
  try {
    const page = await stage.open(context, (before ? 'before/authbroker' : 'authbroker') satisfies BenchPage, 'hooks');
    await page.waitForFunction(() => window.__bench.marks.settled !== undefined, null, {
      timeout: 60_000,
      polling: 20,
    });
    const { marks, scripts } = await readPage(page);
    await page.close();
    return {
      before,
      fromNavigation: marks.settled!,
      fromScriptStart: marks.settled! - marks.t0,
      scripts: scripts.filter((script) => script.start < marks.settled!).length,
      connectionFetch: (() => {
        const chunk = connectionChunk(scripts);
        return chunk === undefined ? null : chunk.end - chunk.start;
      })(),
    };
  } finally {
    await context.close().catch(() => undefined);
  }
}

const ms = (values: Array<number | null>) => {
  const list = values.filter((value): value is number => value !== null);
  return list.length === 0 ? Number.NaN : median(list);
};

/** The tables and goals of these rows. `localFetch`: what one more local fetch may cost (see the goals). */
export function bootReport(
  clientOnly: ClientOnlySample[],
  visits: FirstVisitSample[],
): { tables: Table[]; goals: Goal[]; localFetch: number; method: string } {
  const side = (before: boolean) => (before ? `before (${BEFORE_COMMIT.slice(0, 7)})` : 'today');
  const rowsOf = (warm: boolean, before: boolean, floor = false) =>
    clientOnly.filter((s) => s.warm === warm && s.before === before && s.floor === floor);
  const keptUser = (warm: boolean, before: boolean) =>
    summarize(rowsOf(warm, before).map((s) => s.keptUser ?? Number.NaN));
  const visitsOf = (before: boolean) => visits.filter((s) => s.before === before);
  const localFetch = ms(visits.map((s) => s.connectionFetch));
  const visitBefore = ms(visitsOf(true).map((s) => s.fromNavigation));
  const visitAfter = ms(visitsOf(false).map((s) => s.fromNavigation));
  const clientOnlyRows = [true, false].flatMap((warm) => [
    ...[true, false].map((before) => {
      const list = rowsOf(warm, before);
      const kept = keptUser(warm, before);
      const call = (name: keyof ClientOnlyMarks['calls']) => fmt(median(list.map((s) => s.calls[name])), 2);
      return [
        `${warm ? 'warm' : 'cold'} broker, ${side(before)}`,
        `${fmt(kept.median, 2)} (p95 ${fmt(kept.p95, 2)})`,
        fmt(median(list.map((s) => s.library)), 2),
        `${call('createBrokerClient')} / ${call('subscribeSession')} / ${call('subscribeCurrentUser')} / ${call('getSnapshot')}`,
        fmt(ms(list.map((s) => s.firstFrame)), 1),
        before ? '— (at the first subscribe)' : fmt(ms(list.map((s) => s.connectionAfterFrame)), 1),
        `${fmt(ms(list.map((s) => s.connected)), 1)} / ${fmt(ms(list.map((s) => s.fresh)), 1)}`,
        `${list.filter((s) => s.keptUser !== null).length} of ${list.length}`,
      ];
    }),
    (() => {
      const list = rowsOf(warm, false, true);
      const kept = summarize(list.map((s) => s.keptUser ?? Number.NaN));
      return [
        `${warm ? 'warm' : 'cold'} broker, no client: the page reads the kept copy itself (the floor)`,
        `${fmt(kept.median, 2)} (p95 ${fmt(kept.p95, 2)})`,
        '—',
        '—',
        fmt(ms(list.map((s) => s.firstFrame)), 1),
        '—',
        '—',
        `${list.filter((s) => s.keptUser !== null).length} of ${list.length}`,
      ];
    })(),
  ]);
  const visitRows = [true, false].map((before) => {
    const list = visitsOf(before);
    return [
      side(before),
      fmt(ms(list.map((s) => s.fromNavigation)), 1),
      fmt(summarize(list.map((s) => s.fromNavigation)).p95, 1),
      fmt(ms(list.map((s) => s.fromScriptStart)), 1),
      fmt(ms(list.map((s) => s.scripts)), 0),
      before ? '—' : fmt(ms(list.map((s) => s.connectionFetch)), 1),
    ];
  });
  const warmAfter = keptUser(true, false);
  const today = clientOnly.filter((s) => !s.before && !s.floor);
  const floorOf = (warm: boolean) => ms(rowsOf(warm, false, true).map((s) => s.keptUser));
  const coldAfter = keptUser(false, false);
  return {
    localFetch,
    method: [
      `Client-only page (\`bench/pages/clientOnly.ts\`, no React): a new tab creates the client, subscribes to \`session\` and \`currentUser\`, reads \`getSnapshot({ kind: 'currentUser' })\` and shows it. Times are from the first line of the page's own module (the library's module code has run before it); the library's share is its four calls added up. Warm: a tab holding the broker is open; cold: none (the harness waits until the broker SharedWorker is gone). Both with the copy a previous visit kept. The floor row is the same page without the client: it reads the kept copy from \`localStorage\` itself and parses it, the least any page that shows a kept copy on its first render pays (in Chromium the first read of \`localStorage\` is a synchronous call to the browser process, which loads the origin's storage). The pages of the tab side before (the commit the work started from, ${BEFORE_COMMIT.slice(0, 7)}, \`git archive\` into bench/.tmp/before) are built the same way and run in the same contexts, interleaved with today's.`,
      `First visit ever: a fresh browser context per tab (no session, no kept copy, no broker, an empty HTTP cache), the authbroker bench page with the hooks; the time is to the settled screen, here the sign-in form (nobody is signed in), from navigation start and from script start; "scripts" counts the scripts the page fetched before it settled. Before and today interleaved. One local fetch is what fetching the connection's chunk took on today's first visits (median).`,
    ].join('\n\n'),
    tables: [
      {
        caption:
          'Client-only page: the kept user from the app module’s first line, and the library’s synchronous share (ms, median)',
        columns: [
          'variant',
          'kept user known',
          "library's share",
          'createBrokerClient / subscribe(session) / subscribe(currentUser) / getSnapshot',
          'first frame',
          'connection chunk asked for, after the first frame',
          'connected / the broker’s value',
          'kept user given',
        ],
        rows: clientOnlyRows,
      },
      {
        caption: 'First visit ever (no kept copy, no broker): time to the sign-in form (ms)',
        columns: [
          'tab side',
          'median from navigation',
          'p95',
          'median from script start',
          'scripts fetched before it (median)',
          'fetching the connection chunk (median)',
        ],
        rows: visitRows,
      },
    ],
    goals: [
      // Issue 25's decision (recorded in issue 32): measured against the same page without the library, side by side.
      ...([true, false] as const).map((warm) => {
        const after = warm ? warmAfter : coldAfter;
        const floor = floorOf(warm);
        return {
          goal: `client-only page, ${warm ? 'warm' : 'cold'} broker: the kept user known ≤ 3 ms after the page with no library that reads the copy itself (medians, side by side)`,
          measured: `${fmt(after.median - floor, 2)} ms after it (${fmt(after.median, 2)} ms against ${fmt(floor, 2)} ms from the app module's start; p95 ${fmt(after.p95, 2)}; before ${fmt(keptUser(warm, true).median, 2)} ms)`,
          met: after.median - floor <= 3,
        };
      }),
      {
        goal: 'client-only page: the connection starts after the first frame (its chunk asked for after the frame, every tab)',
        measured: `${today.filter((s) => s.connectionAfterFrame !== null && s.connectionAfterFrame >= 0).length} of ${today.length} tabs`,
        met: today.every((s) => s.connectionAfterFrame !== null && s.connectionAfterFrame >= 0),
      },
      {
        goal: 'first visit ever: the settled screen at most one local fetch later than before (medians from navigation)',
        measured: `today ${fmt(visitAfter, 1)} ms, before ${fmt(visitBefore, 1)} ms (${visitAfter >= visitBefore ? '+' : ''}${fmt(visitAfter - visitBefore, 1)} ms; one local fetch ${fmt(localFetch, 1)} ms)`,
        met: visitAfter - visitBefore <= localFetch,
      },
    ],
  };
}
