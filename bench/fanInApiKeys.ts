/**
 * Benchmark 1's API-keys row: N tabs each showing the user's own API keys too (`useQuery({ kind: 'userApiKeys' })`;
 * the tabs and the counting are fanInPanel.ts's).
 */
import type { Stage } from './browser.js';
import type { BenchEmulator } from './harness.js';
import { endpoints } from '../protocol/index.js';
import { createTransport } from '../protocol/transport.js';
import { demoUserOnServer, medianOfRuns, pageRequests, panelFanIn, type PanelRun } from './fanInPanel.js';

export type ApiKeysRun = PanelRun;

/** The demo project allows user API keys, and the demo user has one, so that the list is not empty. */
async function giveTheDemoUserAKey(emulator: BenchEmulator): Promise<void> {
  const { em } = emulator;
  const { demo } = em.projects;
  const admin = createTransport({
    baseUrl: em.url,
    projectId: demo.id,
    diagnoseFailures: false,
    accessType: 'admin',
    superSecretAdminKey: demo.superSecretAdminKey,
  });
  await endpoints.updateCurrentProject(admin, { config: { allow_user_api_keys: true } });
  const { server, userId } = await demoUserOnServer(emulator);
  await endpoints.createUserApiKey(server, { user_id: userId, description: 'bench key', expires_at_millis: null });
}

/** Opens N tabs with the API keys shown, for each N (`repeats` times), and counts what reached the emulator. */
export async function apiKeysFanIn(
  stage: Stage,
  emulator: BenchEmulator,
  tabCounts: number[],
  repeats: number,
  settleMillis: number,
): Promise<ApiKeysRun[]> {
  await giveTheDemoUserAKey(emulator);
  return panelFanIn(
    stage,
    emulator,
    { param: 'apiKeys', mark: 'apiKeys', label: 'API keys' },
    { tabCounts, repeats, settleMillis },
  );
}

/** The requests for the page's data (median of the runs with `tabs` tabs), the broker's connectivity checks aside. */
export const apiKeysRequests = (runs: ApiKeysRun[], tabs: number): number => medianOfRuns(runs, tabs, pageRequests);

/** How many times the user's API keys were fetched (median of the runs with `tabs` tabs). */
export const apiKeyListRequests = (runs: ApiKeysRun[], tabs: number): number =>
  medianOfRuns(runs, tabs, (r) => r.byRoute['GET /user-api-keys'] ?? 0);
