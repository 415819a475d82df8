/**
 * 2. Refresh storm: N tabs start with an expired access token and each fires 10 calls at once;
 * how many token requests reach the emulator, for each client kind.
 */
import type { Browser } from 'playwright-core';
import { CLIENT_KINDS, CLIENT_LABELS, Stage, type ClientKind, type PageServer } from './browser.js';
import { fmt, median, sleep, startBenchEmulator, type BenchResult, type Flags } from './harness.js';

interface Run {
  kind: ClientKind;
  tabs: number;
  tokenRequests: number;
  tokenRequestsDuringSetup: number;
  requests: number;
  preflights: number;
  byRoute: Record<string, number>;
  ok: number;
  failed: number;
  errors: string[];
  millis: number;
}

const CALLS_PER_TAB = 10;

export async function refreshStorm(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const tabCounts = flags.quick ? [1, 5] : [1, 5, 10, 20];
  const repeats = flags.quick ? 1 : 3;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let external: string[] = [];
  const runs: Run[] = [];
  try {
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const tabs of tabCounts) {
        for (const kind of CLIENT_KINDS) {
          const context = await stage.newContext();
          try {
            emulator.reset();
            await stage.seedSession(context, kind, { expiredToken: true });
            const opened = await Promise.all(Array.from({ length: tabs }, () => stage.open(context, kind, 'idle')));
            await Promise.all(opened.map((page) => page.evaluate(() => window.__bench.ready())));
            const tokenRequestsDuringSetup = emulator.counts().tokenRequests;
            emulator.reset();
            const started = Date.now();
            const outcomes = await Promise.all(
              opened.map((page) => page.evaluate((count) => window.__bench.storm(count), CALLS_PER_TAB)),
            );
            const millis = Date.now() - started;
            await sleep(500);
            const counts = emulator.counts();
            const ok = outcomes.reduce((a, o) => a + o.ok, 0);
            const failed = outcomes.reduce((a, o) => a + o.failed, 0);
            runs.push({
              kind,
              tabs,
              ...counts,
              tokenRequestsDuringSetup,
              ok,
              failed,
              errors: [...new Set(outcomes.flatMap((o) => o.errors))],
              millis,
            });
            console.log(
              `  storm ${kind} N=${tabs}: ${counts.tokenRequests} token requests, ${counts.requests} requests, ${failed} failed calls, ${millis} ms`,
            );
          } finally {
            await context.close();
          }
        }
      }
    }
  } finally {
    external = stage.externalNote();
    await stage.close();
    await emulator.stop();
  }

  const cell = (kind: ClientKind, tabs: number) => runs.filter((r) => r.kind === kind && r.tabs === tabs);
  const med = (kind: ClientKind, tabs: number, pick: (r: Run) => number) => median(cell(kind, tabs).map(pick));
  const ours = tabCounts.map((n) => cell('authbroker', n).map((r) => r.tokenRequests));
  const allOne = ours.every((values) => values.every((v) => v === 1));
  const setupLeaks = runs.filter((r) => r.tokenRequestsDuringSetup > 0);
  const failures = runs.filter((r) => r.failed > 0);
  return {
    id: 'refresh-storm',
    title: '2. Refresh storm: token requests with an expired access token',
    method: [
      `For each client kind and N, a fresh browser context. The demo user signs in from a set-up tab while the emulator's clock is set back by the access-token lifetime + 60 s, so the stored access token has already expired by the real clock (which clients check) and by the emulator's, once its clock is put back. The set-up tab is closed (authbroker: until no broker is left).`,
      `N tabs open the bench page without mounting hooks and wait until their client is ready (authbroker: connected to the broker). The emulator's statistics are reset, then every tab fires ${CALLS_PER_TAB} calls at once: even calls ask for an access token (authbroker \`client.getAccessToken()\`, SDK \`user.getAuthJson()\`, naive \`tokenSource.getAccessToken()\`), odd calls read user, teams or contact channels (authbroker \`client.refetch(…)\`, which forces a request; SDK \`getUser()\`/\`listTeams()\`/\`listContactChannels()\`, which the SDK caches per tab; naive: the endpoint itself). After all settle and 500 ms more, \`token_refreshes\` is read.`,
      `Median of ${repeats} run(s); ${repeats > 1 ? 'the goal is checked on every run, not only the median.' : ''}`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Token requests (emulator token_refreshes, median)',
        columns: ['client', ...tabCounts.map((n) => `N=${n}`)],
        rows: CLIENT_KINDS.map((kind) => [
          CLIENT_LABELS[kind],
          ...tabCounts.map(
            (n) =>
              `${fmt(
                med(kind, n, (r) => r.tokenRequests),
                0,
              )}${
                repeats > 1
                  ? ` (${cell(kind, n)
                      .map((r) => r.tokenRequests)
                      .join(', ')})`
                  : ''
              }`,
          ),
        ]),
      },
      {
        caption: 'All requests during the storm (median, without preflights) and calls that failed (total over runs)',
        columns: ['client', ...tabCounts.map((n) => `N=${n}: requests / failed calls`)],
        rows: CLIENT_KINDS.map((kind) => [
          CLIENT_LABELS[kind],
          ...tabCounts.map(
            (n) =>
              `${fmt(
                med(kind, n, (r) => r.requests),
                0,
              )} / ${cell(kind, n).reduce((a, r) => a + r.failed, 0)}`,
          ),
        ]),
      },
    ],
    goals: [
      {
        goal: 'authbroker makes 1 token request for every N',
        measured: tabCounts.map((n, i) => `N=${n}: ${ours[i]!.join('/')}`).join(', '),
        met: allOne,
      },
    ],
    notes: [
      ...(setupLeaks.length
        ? [
            `Token requests happened during set-up (before the storm) in: ${setupLeaks.map((r) => `${r.kind} N=${r.tabs} (${r.tokenRequestsDuringSetup})`).join(', ')}; such a storm started with a fresh token.`,
          ]
        : ['No client made a token request during set-up: every storm started from the expired token.']),
      ...external,
      ...(failures.length
        ? [
            `Failed calls: ${failures.map((r) => `${r.kind} N=${r.tabs}: ${r.failed} (${r.errors.join('; ')})`).join(' | ')}`,
          ]
        : []),
    ],
    data: { tabCounts, repeats, callsPerTab: CALLS_PER_TAB, runs },
  };
}
