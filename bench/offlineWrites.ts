/**
 * 14. Writes kept offline (issue 43) in Chromium: 10 writes made in 3 tabs while the service and the app's API are
 * away, handed to the broker with `client.fetch(…, { queue: { idempotencyKey } })`, as test/e2e/appRequests.test.ts
 * makes them; how long after the service's return all 10 are applied by the API (test/support/appApi.ts), and whether
 * each was applied exactly once, in the order made. Then the same with a fifth of the replay's requests failing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { createAppApi, type AppApi } from '../test/support/appApi.js';
import { setServiceReachable } from '../test/support/emulator.js';
import { Stage, type PageServer } from './browser.js';
import {
  fmt,
  listenOnLoopback,
  median,
  startBenchEmulator,
  type BenchEmulator,
  type BenchResult,
  type Flags,
} from './harness.js';

const TABS = 3;
const WRITES = 10;
const GOAL_MILLIS = 2000;
/** A fifth of the replay's requests fail, at the emulator and at the app's API alike. */
const FAULT_SHARE = 0.2;

type PageKit = {
  offlineWrites: {
    write(url: string, body: string, idempotencyKey: string): void;
    answered(): Promise<number[]>;
    pending(): Promise<number>;
  };
};

/** The API on its own loopback origin (CORS for the bench page, preflights kept 2 hours), as an app's would be. */
async function serveApi(pageOrigin: string, api: AppApi): Promise<{ origin: string; stop(): Promise<void> }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('access-control-allow-origin', pageOrigin);
    if (request.method === 'OPTIONS') {
      // Unreachable means unreachable: the preflight's connection drops as the request's would.
      if (!api.reachable) return void request.socket.destroy();
      response.writeHead(204, {
        'access-control-allow-methods': 'GET, PUT',
        'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '',
        'access-control-max-age': '7200',
      });
      return void response.end();
    }
    if (!api.handle(request, response)) response.writeHead(404).end();
  });
  return listenOnLoopback(server);
}

async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface ReplayRun {
  faults: boolean;
  /** From the service's return until the API had applied every write (ms). */
  appliedMillis: number;
  /** Until every tab had its writes' answers (ms). */
  answeredMillis: number;
  onceInOrder: boolean;
  /** Writes never applied, or not answered 200 in their tab. */
  lost: number;
  /** Writes applied more than once. */
  duplicated: number;
  /** PUTs that reached the API beyond one per write: sent again after a dropped connection. */
  resent: number;
  faultsInjected: number;
}

/** The emulator's fault rules for the replay: a fifth of its requests dropped or answered 503. */
async function injectFaults(emulator: BenchEmulator): Promise<void> {
  const response = await fetch(`${emulator.em.url}/emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      rules: ['/api/v1*', '/health'].flatMap((path) => [
        { path, probability: FAULT_SHARE / 2, effect: { type: 'drop', phase: 'before' } },
        { path, probability: FAULT_SHARE / 2, effect: { type: 'status', status: 503 } },
      ]),
    }),
  });
  if (!response.ok) throw new Error(`faults: ${response.status} ${await response.text()}`);
}

let replays = 0;

/** 3 tabs of a fresh signed-in context; 10 writes during an outage; the service returns; until all are applied. */
async function replay(stage: Stage, emulator: BenchEmulator, api: AppApi, origin: string, faults: boolean) {
  // Keys of this run's own: the API answers a key it has seen from its record, without applying it again.
  const run = ++replays;
  const context = await stage.newContext();
  try {
    await stage.seedSession(context, 'authbroker');
    const tabs: Page[] = [];
    for (let i = 0; i < TABS; i++)
      tabs.push(await stage.open(context, 'authbroker', 'idle', { appApi: origin, offlineWrites: '1' }));
    for (const tab of tabs) await tab.evaluate(() => window.__bench.ready());
    // Signed in in this tab too (the user read from the service) before the outage starts.
    await tabs[0]!.evaluate(() => (window.__bench as unknown as { readUser(): Promise<unknown> }).readUser());
    api.applied.length = 0;
    api.arrivals.length = 0;
    api.dropWrites = 0;
    await setServiceReachable(emulator.em, false);
    api.reachable = false;
    const url = `${origin}/api/notes/today`;
    for (let i = 1; i <= WRITES; i++) {
      await tabs[i % TABS]!.evaluate(
        ([u, n, r]) => (window.__bench as unknown as PageKit).offlineWrites.write(u, `v${n}`, `r${r}-w-${n}`),
        [url, i, run] as const,
      );
      await waitFor(
        `write ${i} to be kept`,
        () => tabs[0]!.evaluate(() => (window.__bench as unknown as PageKit).offlineWrites.pending()),
        (kept) => kept === i,
      );
    }
    if (faults) api.dropWrites = FAULT_SHARE;
    api.reachable = true;
    await setServiceReachable(emulator.em, true);
    emulator.reset();
    if (faults) await injectFaults(emulator);
    const back = Date.now();
    let appliedMillis = Number.NaN;
    const applied = waitFor(
      'every write to be applied',
      () => new Set(api.applied.map((w) => w.key)).size,
      (n) => n >= WRITES,
    ).then(() => (appliedMillis = Date.now() - back));
    const statuses = (
      await Promise.all(
        tabs.map((tab) => tab.evaluate(() => (window.__bench as unknown as PageKit).offlineWrites.answered())),
      )
    ).flat();
    const answeredMillis = Date.now() - back;
    await applied.catch(() => undefined);
    await fetch(`${emulator.em.url}/emulator/faults`, { method: 'DELETE' });
    const faultsInjected = emulator.em.env.stats.snapshot().faults_injected.total;
    const keys = api.applied.map((w) => w.key);
    const expected = Array.from({ length: WRITES }, (_, i) => `r${run}-w-${i + 1}`);
    const appliedAt = new Map(keys.map((key, i) => [key, i]));
    const result: ReplayRun = {
      faults,
      appliedMillis,
      answeredMillis,
      onceInOrder: JSON.stringify(keys) === JSON.stringify(expected),
      lost: Math.max(expected.filter((key) => !appliedAt.has(key)).length, statuses.filter((s) => s !== 200).length),
      duplicated: keys.length - appliedAt.size,
      resent: api.arrivals.filter((a) => a.method === 'PUT').length - appliedAt.size,
      faultsInjected,
    };
    console.log(
      `  ${faults ? 'with faults' : 'clean'}: applied ${appliedMillis} ms, answered ${answeredMillis} ms after the return; once in order: ${result.onceInOrder}; lost ${result.lost}, duplicated ${result.duplicated}, resent ${result.resent}, emulator faults ${faultsInjected}`,
    );
    return result;
  } finally {
    api.reachable = true;
    api.dropWrites = 0;
    await setServiceReachable(emulator.em, true);
    await context.close();
  }
}

const range = (values: number[]) => `${fmt(Math.min(...values), 0)}–${fmt(Math.max(...values), 0)}`;

export async function offlineWritesBench(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const repeats = flags.quick ? 1 : 3;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  const { em } = emulator;
  const api = createAppApi({ baseUrl: em.url, projectId: em.projects.demo.id, now: () => em.env.clock.now() });
  const server = await serveApi(pages.url, api);
  const clean: ReplayRun[] = [];
  const faulty: ReplayRun[] = [];
  let external: string[] = [];
  try {
    for (let i = 0; i < repeats; i++) clean.push(await replay(stage, emulator, api, server.origin, false));
    for (let i = 0; i < repeats; i++) faulty.push(await replay(stage, emulator, api, server.origin, true));
  } finally {
    external = stage.externalNote();
    await stage.close();
    await server.stop();
    await emulator.stop();
  }
  const applied = clean.map((r) => r.appliedMillis);
  const yesNo = (runs: ReplayRun[]) => (runs.every((r) => r.onceInOrder && r.lost === 0) ? 'yes' : 'no');
  const sum = (runs: ReplayRun[], pick: (r: ReplayRun) => number) => runs.reduce((n, r) => n + pick(r), 0);
  return {
    id: 'offline-writes',
    title: '14. Writes kept offline across 3 tabs, applied on the service’s return',
    method: [
      `A fresh context, the demo user signed in; ${TABS} tabs of the authbroker bench page with \`offlineWrites: true\` and \`appRequests.origins\` naming the bench's API (test/support/appApi.ts on its own loopback origin: it checks tokens with \`authbroker/server\` and applies a write once per \`Idempotency-Key\`). The service (\`/api/v1*\`, \`/health\`, by the emulator's fault rules, as test/support/emulator.ts's \`setServiceReachable\` does) and the API go away; tab (i mod ${TABS}) hands write i (i = 1…${WRITES}, \`PUT /api/notes/today\`) to the broker with \`client.fetch(…, { queue: { idempotencyKey } })\`, each waited for in the pending list before the next, as test/e2e/appRequests.test.ts does. Then both return; the time runs from then until the API has applied all ${WRITES} (polled every 5 ms in Node), and until every tab has its answers.`,
      `**With faults.** The same, with a fifth of the replay's requests failing: at the emulator, rules on \`/api/v1*\` and \`/health\` dropping 10 % of connections and answering 503 to 10 %; at the API (whose writes the emulator does not see), \`dropWrites: ${FAULT_SHARE}\`: half the dropped writes lost before being applied, half after (their answer lost). Lost: writes never applied or not answered 200 in their tab; duplicated: writes applied twice; resent: PUTs that reached the API beyond one per write (sent again after a dropped connection; those already applied are answered from the API's Idempotency-Key record). ${repeats} run(s) each.`,
    ].join('\n\n'),
    tables: [
      {
        caption: `${WRITES} writes kept in ${TABS} tabs, per run (ms after the service's return)`,
        columns: [
          'run',
          'faults',
          'all applied',
          'all answered',
          'once, in order',
          'lost',
          'duplicated',
          'resent',
          'faults injected',
        ],
        rows: [...clean, ...faulty].map((r, i) => [
          (i % repeats) + 1,
          r.faults ? `${FAULT_SHARE * 100} %` : 'none',
          fmt(r.appliedMillis, 0),
          fmt(r.answeredMillis, 0),
          r.onceInOrder ? 'yes' : 'no',
          r.lost,
          r.duplicated,
          r.resent,
          r.faultsInjected,
        ]),
      },
    ],
    goals: [
      {
        goal: `${WRITES} writes kept offline across ${TABS} tabs: all applied ≤ ${GOAL_MILLIS / 1000} s after the service's return (median)`,
        measured: `${fmt(median(applied), 0)} ms (median of ${applied.length}; range ${range(applied)} ms); applied exactly once, in order: ${yesNo(clean)}; with ${FAULT_SHARE * 100} % faults: lost ${sum(faulty, (r) => r.lost)}, duplicated ${sum(faulty, (r) => r.duplicated)} (${faulty.length} run(s), median ${fmt(median(faulty.map((r) => r.appliedMillis)), 0)} ms, range ${range(faulty.map((r) => r.appliedMillis))} ms, once in order: ${yesNo(faulty)})`,
        met: median(applied) <= GOAL_MILLIS && yesNo(clean) === 'yes',
      },
    ],
    notes: [
      'Reported, never asserted in a test: test/e2e/appRequests.test.ts and test/engines/appRequests.test.ts assert once and in order, and log the time.',
      ...external,
    ],
    data: { tabs: TABS, writes: WRITES, repeats, clean, faulty },
  };
}
