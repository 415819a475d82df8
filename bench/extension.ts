/**
 * Benchmark 11: the demo browser extension in Chromium (issue 33). Requests to the service for N
 * open extension contexts (pages and the background) when every one of them renews and refetches
 * at once after the access token expired: one broker in the background, so the count stays flat.
 * And the time from a stopped background (as the browser's idle stop) to the first answer a page
 * gets: its port reconnects, the background and its broker start, the session is read back.
 *
 * Runs alone: `npm run bench -- --only=extension`.
 */
import { startEmulator } from '../emulator/index.js';
import { startCollector, type DriverContext } from '../test/extension/support/collector.js';
import { launchWithExtension, skipExtensionEngine } from '../test/extension/support/browsers.js';
import { fmt, summarize, type BenchResult, type Flags, type Goal } from './harness.js';

const ELEVEN_MINUTES = 11 * 60 * 1000;
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };

export async function extensionBench(flags: Flags): Promise<BenchResult> {
  const counts = flags.quick ? [1, 4] : [1, 2, 4, 8];
  const stops = flags.quick ? 3 : 10;
  if (skipExtensionEngine('chromium')) throw new Error('Chromium is not installed.');
  const emulator = await startEmulator({ port: 0 });
  const collector = await startCollector();
  const extension = await launchWithExtension('chromium', emulator, collector);
  const rows: Array<{ contexts: number; tokenRequests: number; userReads: number; total: number }> = [];
  const firstAnswers: number[] = [];
  try {
    const pages: DriverContext[] = [await extension.openExtensionPage('popup.html')];
    await collector.run(pages[0]!, 'signIn', DEMO);
    for (const n of counts) {
      while (pages.length < n)
        pages.push(await extension.openExtensionPage(pages.length % 2 === 0 ? 'popup.html' : 'options.html'));
      const contexts = [...pages.slice(0, n - 1), await extension.background()];
      emulator.env.stats.reset();
      emulator.env.clock.advance(ELEVEN_MINUTES);
      await Promise.all(contexts.map((context) => collector.run(context, 'refetchUser')));
      const stats = emulator.env.stats.snapshot();
      rows.push({
        contexts: n,
        tokenRequests: stats.token_refreshes,
        userReads: stats.requests['GET /users/me']?.['200'] ?? 0,
        total: stats.requests_total,
      });
    }
    for (let i = 0; i < stops; i += 1) {
      await extension.stopBackground!();
      const { millis } = await collector.run<{ millis: number }>(pages[0]!, 'timedSession');
      firstAnswers.push(millis);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  } finally {
    await extension.close();
    await collector.close();
    await emulator.stop();
  }
  const stop = summarize(firstAnswers);
  // Flat: one token request at every N, and the requests in all do not grow with N (a refetch that
  // arrives once the first fetch has answered is a fetch of its own, as for a web app's tabs: at most one more).
  const totals = rows.map((row) => row.total);
  const flat = rows.every((row) => row.tokenRequests === 1) && Math.max(...totals) - Math.min(...totals) <= 1;
  const goals: Goal[] = [
    {
      goal: 'Requests for N open extension contexts after expiry are flat (one token request at every N; the total does not grow with N)',
      measured: rows.map((row) => `N=${row.contexts}: ${row.total}`).join(', '),
      met: flat,
    },
    {
      goal: 'A stopped background answers from storage (reported, not a target)',
      measured: `median ${fmt(stop.median, 0)} ms, max ${fmt(stop.max, 0)} ms over ${stops} stops`,
      met: null,
    },
  ];
  return {
    id: 'extension',
    title: '11. A browser extension: N contexts, and a stopped background',
    method: [
      "The demo extension (demo-extension/, built with the tests' driver) in Debian's Chromium through puppeteer-core (`enableExtensions`), against the emulator on loopback, signed in once.",
      `For N = ${counts.join(', ')} open contexts (extension pages opened by the background, and the background itself), the emulator's clock jumps past the access token's life and every context refetches the user at once: the emulator counts the requests.`,
      `Then the background is stopped ${stops} times (CDP's ServiceWorker.stopAllWorkers, what the browser's idle stop does) and the popup at once reads the session: the time of that one call, measured in the popup (its port reconnects, which starts the background, whose broker reads the session back from IndexedDB).`,
    ].join(' '),
    tables: [
      {
        columns: ['open contexts', 'token requests', 'GET /users/me', 'requests in all'],
        rows: rows.map((row) => [row.contexts, row.tokenRequests, row.userReads, row.total]),
      },
      {
        columns: ['stopped background → first answer', 'median', 'p95', 'max'],
        rows: [[`${stops} stops`, `${fmt(stop.median, 0)} ms`, `${fmt(stop.p95, 0)} ms`, `${fmt(stop.max, 0)} ms`]],
      },
    ],
    goals,
    notes: [
      'Each context is a separate page with its own client; all of them share the one broker in the background, so the service sees one client.',
      'The requests in all count the refused call that finds the token expired (401), the one token request, and the reads of the user: a refetch that arrives after the first read has answered starts one more, whatever N.',
    ],
    data: { rows, firstAnswers },
  };
}
