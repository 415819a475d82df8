/**
 * Benchmark 1's payments row: N tabs each showing the user's credits and products too (`useItem({ userId },
 * 'credits')`, `useProducts({ userId })`; the tabs and the counting are fanInPanel.ts's).
 */
import type { Stage } from './browser.js';
import type { BenchEmulator } from './harness.js';
import { endpoints } from '../protocol/index.js';
import { demoUserOnServer, medianOfRuns, pageRequests, panelFanIn, type PanelRun } from './fanInPanel.js';

export type PaymentsRun = PanelRun;

const ITEM_ROUTE = 'GET /payments/items/:customer_type/:customer_id/:item_id';
const PRODUCTS_ROUTE = 'GET /payments/products/:customer_type/:customer_id';

/** The demo user owns a pack of credits (the demo project's shop), so that both lists have something in them. */
async function giveTheDemoUserCredits(emulator: BenchEmulator): Promise<void> {
  const { server, userId } = await demoUserOnServer(emulator);
  await endpoints.grantProduct(server, 'user', userId, { product_id: 'credit_pack' });
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
  return panelFanIn(
    stage,
    emulator,
    { param: 'payments', mark: 'payments', label: 'items and products' },
    { tabCounts, repeats, settleMillis },
  );
}

/** The requests for the page's data (median of the runs with `tabs` tabs), the broker's connectivity checks aside. */
export const paymentsPageRequests = (runs: PaymentsRun[], tabs: number): number =>
  medianOfRuns(runs, tabs, pageRequests);

/** How many times the item and the products were fetched together (median of the runs with `tabs` tabs). */
export const paymentsRequests = (runs: PaymentsRun[], tabs: number): number =>
  medianOfRuns(runs, tabs, (r) => (r.byRoute[ITEM_ROUTE] ?? 0) + (r.byRoute[PRODUCTS_ROUTE] ?? 0));
