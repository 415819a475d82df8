/**
 * What fan-in's authbroker-only rows share (fanInApiKeys.ts, fanInPayments.ts): N tabs of one browser context each
 * showing the user, teams, contact channels and one panel of the page (`?apiKeys=1`, `?payments=1`), and how many
 * requests reached the emulator. The goal of each is that N = 20 costs the requests of N = 1.
 */
import type { Stage } from './browser.js';
import { median, sleep, type BenchEmulator } from './harness.js';
import { endpoints } from '../protocol/index.js';
import { createTransport, type Transport } from '../protocol/transport.js';
import type { Marks } from './pages/marks.js';

export interface PanelRun {
  tabs: number;
  requests: number;
  byRoute: Record<string, number>;
}

/** The panel a row shows: the page's query parameter that turns it on, and the mark set once it is in the DOM. */
export interface Panel {
  param: 'apiKeys' | 'payments';
  mark: keyof Marks & ('apiKeys' | 'payments');
  /** How the row's lines of progress name it. */
  label: string;
}

/** The demo project's server transport and its demo user's id, for a row's set-up. */
export async function demoUserOnServer(
  emulator: BenchEmulator,
): Promise<{ server: Transport<'server'>; userId: string }> {
  const { em } = emulator;
  const { demo } = em.projects;
  const server = createTransport({
    baseUrl: em.url,
    projectId: demo.id,
    diagnoseFailures: false,
    accessType: 'server',
    secretServerKey: demo.secretServerKey,
  });
  const users = await endpoints.listUsers(server, { query: em.demoUser?.email });
  const user = users.items.find((u) => u.primary_email === em.demoUser?.email);
  if (!user) throw new Error('The emulator has no demo user.');
  return { server, userId: user.id };
}

/** Opens N tabs with the panel shown, for each N (`repeats` times), and counts what reached the emulator. */
export async function panelFanIn(
  stage: Stage,
  emulator: BenchEmulator,
  panel: Panel,
  runsOf: { tabCounts: number[]; repeats: number; settleMillis: number },
): Promise<PanelRun[]> {
  const runs: PanelRun[] = [];
  for (let repeat = 0; repeat < runsOf.repeats; repeat++) {
    for (const tabs of runsOf.tabCounts) {
      const context = await stage.newContext();
      try {
        await stage.seedSession(context, 'authbroker');
        emulator.reset();
        const opened = await Promise.all(
          Array.from({ length: tabs }, () => stage.open(context, 'authbroker', 'hooks', { [panel.param]: '1' })),
        );
        await Promise.all(
          opened.map((page) =>
            page.waitForFunction(
              (mark) => window.__bench.marks.ready !== undefined && window.__bench.marks[mark] !== undefined,
              panel.mark,
              { timeout: 60_000, polling: 20 },
            ),
          ),
        );
        await sleep(runsOf.settleMillis);
        const { requests, byRoute } = emulator.counts();
        runs.push({ tabs, requests, byRoute });
        console.log(`  fan-in with ${panel.label}, authbroker N=${tabs}: ${requests} requests`);
      } finally {
        await context.close();
      }
    }
  }
  return runs;
}

/** The median over the runs with `tabs` tabs of what `count` reads in each. */
export function medianOfRuns(runs: PanelRun[], tabs: number, count: (run: PanelRun) => number): number {
  return median(runs.filter((r) => r.tabs === tabs).map(count));
}

/**
 * The requests for the page's data: every request but the broker's connectivity checks (`GET /`, the API root), which
 * a machine slowed by N tabs opening at once may add.
 */
export const pageRequests = (run: PanelRun): number => run.requests - (run.byRoute['GET /'] ?? 0);
