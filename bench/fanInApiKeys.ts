/**
 * Benchmark 1's API-keys row: N tabs of one browser context each showing the user, teams, contact
 * channels and the user's own API keys (`useQuery({ kind: 'userApiKeys' })`); how many requests reach
 * the emulator. authbroker only: the goal is that N = 20 costs the requests of N = 1.
 */
import type { Stage } from './browser.js';
import { median, sleep, type BenchEmulator } from './harness.js';
import { endpoints } from '../protocol/index.js';
import { createTransport } from '../protocol/transport.js';

export interface ApiKeysRun {
  tabs: number;
  requests: number;
  byRoute: Record<string, number>;
}

/** The demo project allows user API keys, and the demo user has one, so that the list is not empty. */
async function giveTheDemoUserAKey(emulator: BenchEmulator): Promise<void> {
  const { em } = emulator;
  const { demo } = em.projects;
  const keys = { baseUrl: em.url, projectId: demo.id, diagnoseFailures: false } as const;
  const admin = createTransport({ ...keys, accessType: 'admin', superSecretAdminKey: demo.superSecretAdminKey });
  await endpoints.updateCurrentProject(admin, { config: { allow_user_api_keys: true } });
  const server = createTransport({ ...keys, accessType: 'server', secretServerKey: demo.secretServerKey });
  const users = await endpoints.listUsers(server, { query: em.demoUser?.email });
  const user = users.items.find((u) => u.primary_email === em.demoUser?.email);
  if (!user) throw new Error('The emulator has no demo user.');
  await endpoints.createUserApiKey(server, { user_id: user.id, description: 'bench key', expires_at_millis: null });
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
  const runs: ApiKeysRun[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const tabs of tabCounts) {
      const context = await stage.newContext();
      try {
        await stage.seedSession(context, 'authbroker');
        emulator.reset();
        const opened = await Promise.all(
          Array.from({ length: tabs }, () => stage.open(context, 'authbroker', 'hooks', { apiKeys: '1' })),
        );
        await Promise.all(
          opened.map((page) =>
            page.waitForFunction(
              () => window.__bench.marks.ready !== undefined && window.__bench.marks.apiKeys !== undefined,
              null,
              { timeout: 60_000, polling: 20 },
            ),
          ),
        );
        await sleep(settleMillis);
        const { requests, byRoute } = emulator.counts();
        runs.push({ tabs, requests, byRoute });
        console.log(`  fan-in with API keys, authbroker N=${tabs}: ${requests} requests`);
      } finally {
        await context.close();
      }
    }
  }
  return runs;
}

/**
 * The requests for the page's data (median of the runs with `tabs` tabs): every request but the broker's
 * connectivity checks (`GET /`, the API root), which a machine slowed by N tabs opening at once may add.
 */
export function apiKeysRequests(runs: ApiKeysRun[], tabs: number): number {
  return median(runs.filter((r) => r.tabs === tabs).map((r) => r.requests - (r.byRoute['GET /'] ?? 0)));
}

/** How many times the user's API keys were fetched (median of the runs with `tabs` tabs). */
export function apiKeyListRequests(runs: ApiKeysRun[], tabs: number): number {
  return median(runs.filter((r) => r.tabs === tabs).map((r) => r.byRoute['GET /user-api-keys'] ?? 0));
}
