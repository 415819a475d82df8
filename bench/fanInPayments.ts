/**
 * Benchmark 1's payments row: N tabs of one browser context each showing the user, teams, contact
 * channels and the user's credits and products (`useItem({ userId }, 'credits')`, `useProducts({ userId })`);
 * how many requests reach the emulator. authbroker only: the goal is that N = 20 costs the requests of N = 1.
 */
import type { Stage } from './browser.js';
import { median, sleep, type BenchEmulator } from './harness.js';
import { endpoints } from '../protocol/index.js';
import { createTransport } from '../protocol/transport.js';

export interface PaymentsRun {
  tabs: number;
  requests: number;
  byRoute: Record<string, number>;
}

const ITEM_ROUTE = 'GET /payments/items/:customer_type/:customer_id/:item_id';
const PRODUCTS_ROUTE = 'GET /payments/products/:customer_type/:customer_id';

/** The demo user owns a pack of credits (the demo project's shop), so that both lists have something in them. */
async function giveTheDemoUserCredits(emulator: BenchEmulator): Promise<void> {
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
  await endpoints.grantProduct(server, 'user', user.id, { product_id: 'credit_pack' });
}

/** Opens N tabs with the credits and products shown, for each N (`repeats` times), and counts what reached the emulator. */
export async function paymentsFanIn(
  stage: Stage,
  emulator: BenchEmulator,
  tabCounts: number[],
  repeats: number,
  settleMillis: number,
): Promise<PaymentsRun[]> {
  await giveTheDemoUserCredits(emulator);
  const runs: PaymentsRun[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const tabs of tabCounts) {
      const context = await stage.newContext();
      try {
        await stage.seedSession(context, 'authbroker');
        emulator.reset();
        const opened = await Promise.all(
          Array.from({ length: tabs }, () => stage.open(context, 'authbroker', 'hooks', { payments: '1' })),
        );
        await Promise.all(
          opened.map((page) =>
            page.waitForFunction(
              () => window.__bench.marks.ready !== undefined && window.__bench.marks.payments !== undefined,
              null,
              { timeout: 60_000, polling: 20 },
            ),
          ),
        );
        await sleep(settleMillis);
        const { requests, byRoute } = emulator.counts();
        runs.push({ tabs, requests, byRoute });
        console.log(`  fan-in with items and products, authbroker N=${tabs}: ${requests} requests`);
      } finally {
        await context.close();
      }
    }
  }
  return runs;
}

/** The requests for the page's data (median of the runs with `tabs` tabs), the broker's connectivity checks aside. */
export function paymentsPageRequests(runs: PaymentsRun[], tabs: number): number {
  return median(runs.filter((r) => r.tabs === tabs).map((r) => r.requests - (r.byRoute['GET /'] ?? 0)));
}

/** How many times the item and the products were fetched together (median of the runs with `tabs` tabs). */
export function paymentsRequests(runs: PaymentsRun[], tabs: number): number {
  return median(
    runs.filter((r) => r.tabs === tabs).map((r) => (r.byRoute[ITEM_ROUTE] ?? 0) + (r.byRoute[PRODUCTS_ROUTE] ?? 0)),
  );
}
