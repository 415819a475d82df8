/**
 * 1. Fan-in: N tabs of one browser context, each mounting the user, teams and contact-channels
 * hooks; how many requests reach the emulator, for each client kind side by side. Then the same with
 * the user's own API keys shown too, authbroker only (fanInApiKeys.ts).
 */
import { CLIENT_KINDS, CLIENT_LABELS, Stage, type ClientKind } from './browser.js';
import { fmt, median, sleep, startBenchEmulator, type BenchResult, type Flags } from './harness.js';
import type { Browser } from 'playwright-core';
import type { PageServer } from './browser.js';
import { apiKeyListRequests, apiKeysFanIn, apiKeysRequests, type ApiKeysRun } from './fanInApiKeys.js';
import { paymentsFanIn, paymentsPageRequests, paymentsRequests, type PaymentsRun } from './fanInPayments.js';

interface Run {
  kind: ClientKind;
  tabs: number;
  requests: number;
  preflights: number;
  tokenRequests: number;
  byRoute: Record<string, number>;
  allReadyMillis: number;
  pageErrors: string[];
}

export async function fanIn(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const tabCounts = flags.quick ? [1, 5] : [1, 5, 10, 20];
  const repeats = flags.quick ? 1 : 3;
  const settleMillis = 1000;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  let external: string[] = [];
  const runs: Run[] = [];
  // The API-keys row (issue 42): the fewest and the most tabs, authbroker only.
  const keyTabCounts = [tabCounts[0]!, tabCounts.at(-1)!];
  let keyRuns: ApiKeysRun[] = [];
  let paymentRuns: PaymentsRun[] = [];
  try {
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const tabs of tabCounts) {
        for (const kind of CLIENT_KINDS) {
          const context = await stage.newContext();
          try {
            await stage.seedSession(context, kind);
            emulator.reset();
            const started = Date.now();
            const opened = await Promise.all(Array.from({ length: tabs }, () => stage.open(context, kind, 'hooks')));
            await Promise.all(opened.map((page) => stage.waitMark(page, 'ready')));
            const allReadyMillis = Date.now() - started;
            await sleep(settleMillis);
            const counts = emulator.counts();
            const pageErrors = (
              await Promise.all(opened.map((page) => page.evaluate(() => window.__bench.marks.errors)))
            ).flat();
            runs.push({ kind, tabs, ...counts, allReadyMillis, pageErrors });
            console.log(
              `  fan-in ${kind} N=${tabs}: ${counts.requests} requests (+${counts.preflights} preflights), ${counts.tokenRequests} token requests, all ready in ${allReadyMillis} ms`,
            );
          } finally {
            await context.close();
          }
        }
      }
    }
    keyRuns = await apiKeysFanIn(stage, emulator, keyTabCounts, repeats, settleMillis);
    paymentRuns = await paymentsFanIn(stage, emulator, keyTabCounts, repeats, settleMillis);
  } finally {
    external = stage.externalNote();
    await stage.close();
    await emulator.stop();
  }

  const cell = (kind: ClientKind, tabs: number) => runs.filter((r) => r.kind === kind && r.tabs === tabs);
  const med = (kind: ClientKind, tabs: number, pick: (r: Run) => number) => median(cell(kind, tabs).map(pick));
  const range = (kind: ClientKind, tabs: number) => {
    const values = cell(kind, tabs).map((r) => r.requests);
    return repeats === 1 ? '' : ` (${Math.min(...values)}–${Math.max(...values)})`;
  };
  const ours = tabCounts.map((n) => med('authbroker', n, (r) => r.requests));
  const grows = ours.some((count) => count > ours[0]!);
  const routes = (kind: ClientKind) => {
    const last = cell(kind, tabCounts.at(-1)!).at(-1);
    return last
      ? Object.entries(last.byRoute)
          .map(([route, count]) => `${route} ×${count}`)
          .join(', ')
      : '';
  };
  const errors = runs.flatMap((r) => r.pageErrors.map((e) => `${r.kind} N=${r.tabs}: ${e}`));
  const keyCounts = keyTabCounts.map((n) => apiKeysRequests(keyRuns, n));
  const keyLists = keyTabCounts.map((n) => apiKeyListRequests(keyRuns, n));
  const paymentCounts = keyTabCounts.map((n) => paymentsPageRequests(paymentRuns, n));
  const paymentFetches = keyTabCounts.map((n) => paymentsRequests(paymentRuns, n));
  const paymentRoutes = Object.entries(paymentRuns.filter((r) => r.tabs === keyTabCounts[1]).at(-1)?.byRoute ?? {})
    .map(([route, count]) => `${route} ×${count}`)
    .join(', ');
  const keyRoutes = Object.entries(keyRuns.filter((r) => r.tabs === keyTabCounts[1]).at(-1)?.byRoute ?? {})
    .map(([route, count]) => `${route} ×${count}`)
    .join(', ');
  return {
    id: 'fan-in',
    title: '1. Fan-in: requests reaching the emulator for N tabs',
    method: [
      `For each client kind and N, a fresh browser context; the demo user signs in from a set-up tab, which is then closed (for authbroker: until no broker SharedWorker is left, so the session is only in IndexedDB; the SDK keeps it in cookies, the naive client in localStorage).`,
      `The emulator's statistics are reset, then N tabs of the bench page open at once, each mounting the user, teams and contact-channels hooks (React 19 production build). When every tab shows all three, the harness waits ${settleMillis} ms more and reads \`em.env.stats.snapshot()\` (requests_total, token_refreshes, per route).`,
      `CORS preflights (OPTIONS) are not in the emulator's statistics; they are counted separately through Node's \`http.server.request.start\` diagnostics channel. Median of ${repeats} run(s)${repeats > 1 ? ' (min–max in brackets)' : ''}; the order of client kinds is interleaved.`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Requests that reached the emulator (median; without preflights)',
        columns: ['client', ...tabCounts.map((n) => `N=${n}`)],
        rows: CLIENT_KINDS.map((kind) => [
          CLIENT_LABELS[kind],
          ...tabCounts.map(
            (n) =>
              `${fmt(
                med(kind, n, (r) => r.requests),
                0,
              )}${range(kind, n)}`,
          ),
        ]),
      },
      {
        caption: 'Ratio to authbroker at the same N, CORS preflights and token requests (medians)',
        columns: ['client', ...tabCounts.map((n) => `N=${n}: ×ours / preflights / token req.`)],
        rows: CLIENT_KINDS.map((kind) => [
          CLIENT_LABELS[kind],
          ...tabCounts.map(
            (n) =>
              `×${fmt(
                med(kind, n, (r) => r.requests) /
                  Math.max(
                    1,
                    med('authbroker', n, (r) => r.requests),
                  ),
                1,
              )} / ${fmt(
                med(kind, n, (r) => r.preflights),
                0,
              )} / ${fmt(
                med(kind, n, (r) => r.tokenRequests),
                0,
              )}`,
          ),
        ]),
      },
      {
        caption:
          "With the user's own API keys shown too (`useQuery({ kind: 'userApiKeys' })`): the page's data requests, connectivity checks aside / of them GET /user-api-keys (medians)",
        columns: ['client', ...keyTabCounts.map((n) => `N=${n}`)],
        rows: [
          [
            CLIENT_LABELS.authbroker,
            ...keyTabCounts.map((_, i) => `${fmt(keyCounts[i]!, 0)} / ${fmt(keyLists[i]!, 0)}`),
          ],
        ],
      },
      {
        caption:
          "With the user's credits and products shown too (`useItem({ userId }, 'credits')`, `useProducts({ userId })`): the page's data requests, connectivity checks aside / of them the item's and the products' (medians)",
        columns: ['client', ...keyTabCounts.map((n) => `N=${n}`)],
        rows: [
          [
            CLIENT_LABELS.authbroker,
            ...keyTabCounts.map((_, i) => `${fmt(paymentCounts[i]!, 0)} / ${fmt(paymentFetches[i]!, 0)}`),
          ],
        ],
      },
      {
        caption: 'Context only: wall time from opening the N tabs until all show user, teams and channels (ms, median)',
        columns: ['client', ...tabCounts.map((n) => `N=${n}`)],
        rows: CLIENT_KINDS.map((kind) => [
          CLIENT_LABELS[kind],
          ...tabCounts.map((n) =>
            fmt(
              med(kind, n, (r) => r.allReadyMillis),
              0,
            ),
          ),
        ]),
      },
    ],
    goals: [
      {
        goal: "authbroker's request count does not grow with N",
        measured: tabCounts.map((n, i) => `N=${n}: ${fmt(ours[i], 0)}`).join(', '),
        met: !grows,
      },
      {
        goal: `N = ${keyTabCounts[1]} tabs showing the user's API keys cost the data requests of N = ${keyTabCounts[0]} (the keys fetched once)`,
        measured: keyTabCounts
          .map((n, i) => `N=${n}: ${fmt(keyCounts[i]!, 0)} (GET /user-api-keys ×${fmt(keyLists[i]!, 0)})`)
          .join(', '),
        met: keyCounts[1]! <= keyCounts[0]! && keyLists[1]! <= 1,
      },
      {
        goal: `N = ${keyTabCounts[1]} tabs showing the user's credits and products cost the data requests of N = ${keyTabCounts[0]} (each fetched once)`,
        measured: keyTabCounts
          .map((n, i) => `N=${n}: ${fmt(paymentCounts[i]!, 0)} (item and products ×${fmt(paymentFetches[i]!, 0)})`)
          .join(', '),
        met: paymentCounts[1]! <= paymentCounts[0]! && paymentFetches[1]! <= 2,
      },
    ],
    notes: [
      ...CLIENT_KINDS.map(
        (kind) => `Routes at N=${tabCounts.at(-1)} (${CLIENT_LABELS[kind]}, last run): ${routes(kind) || 'none'}.`,
      ),
      `Routes at N=${keyTabCounts[1]} with API keys (authbroker, last run): ${keyRoutes || 'none'}.`,
      `Routes at N=${keyTabCounts[1]} with items and products (authbroker, last run): ${paymentRoutes || 'none'}.`,
      ...external,
      ...(errors.length ? [`Page errors: ${[...new Set(errors)].slice(0, 10).join('; ')}`] : []),
    ],
    data: {
      tabCounts,
      repeats,
      settleMillis,
      runs,
      apiKeys: { tabCounts: keyTabCounts, runs: keyRuns },
      payments: { tabCounts: keyTabCounts, runs: paymentRuns },
    },
  };
}
