/**
 * 13. The app's own requests (issue 43) in Chromium: what `client.fetch` costs over a plain `fetch` carrying the same
 * token, against an API on loopback that checks nothing and answers at once; and how many token requests 20 tabs × 10
 * `client.fetch` calls cost right after the access token expired, against an API that checks tokens with
 * `authbroker/server` (test/support/appApi.ts, as test/e2e/appRequests.test.ts does).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { createAppApi, type AppApi } from '../test/support/appApi.js';
import { Stage, type PageServer } from './browser.js';
import {
  fmt,
  median,
  startBenchEmulator,
  summarize,
  type BenchEmulator,
  type BenchResult,
  type Flags,
  type Summary,
  listenOnLoopback,
} from './harness.js';

interface BenchApiServer {
  origin: string;
  stop(): Promise<void>;
}

/**
 * The bench's API on its own loopback origin, as an app's `api.example.com` is: `/ok` answers 200 at once and checks
 * nothing; `/api/*` is `api`. CORS allows the bench page, with a preflight kept 2 hours, so that after the first call
 * neither variant waits for one.
 */
async function serveBenchApi(pageOrigin: string, api: () => AppApi): Promise<BenchApiServer> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('access-control-allow-origin', pageOrigin);
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, PUT',
        'access-control-allow-headers': 'authorization, x-call, content-type',
        'access-control-max-age': '7200',
      });
      return void response.end();
    }
    if (request.url === '/ok') {
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      return void response.end('ok');
    }
    if (!api().handle(request, response)) response.writeHead(404).end();
  });
  server.keepAliveTimeout = 5000;
  return listenOnLoopback(server);
}

type Variant = 'client' | 'plain';
interface Overhead {
  samples: Record<Variant, number[]>;
  crossOriginIsolated: boolean;
}

interface FanInRun {
  tabs: number;
  callsPerTab: number;
  tokenRequests: number;
  answered200: number;
  /** Calls that reached the API with the expired token (each should, once). */
  refused401: number;
  /** Calls answered 200 more than once (each should be answered once). */
  answeredTwice: number;
  millis: number;
}

type PageKit = { appFetch: { burst(url: string, count: number, tab: number): Promise<number[]> } };

/** N tabs of one context, each calling the API once (each keeps its token), then `calls` each right after expiry. */
async function tabsAfterExpiry(
  stage: Stage,
  emulator: BenchEmulator,
  api: AppApi,
  origin: string,
  tabs: number,
  calls: number,
): Promise<FanInRun> {
  const context = await stage.newContext();
  try {
    await stage.seedSession(context, 'authbroker');
    const pages: Page[] = [];
    for (let i = 0; i < tabs; i++) pages.push(await stage.open(context, 'authbroker', 'idle', { appApi: origin }));
    const url = `${origin}/api/whoami`;
    for (const page of pages) {
      const [status] = await page.evaluate((u) => (window.__bench as unknown as PageKit).appFetch.burst(u, 1, -1), url);
      if (status !== 200) throw new Error(`A tab's first call answered ${status}.`);
    }
    emulator.reset();
    api.arrivals.length = 0;
    // Expired for the service and the API alike (both read the emulator's clock); the tabs' kept token looks fresh.
    emulator.em.env.clock.advance(emulator.em.env.accessTokenTtlMillis + 60_000);
    const started = Date.now();
    const statuses = await Promise.all(
      pages.map((page, t) =>
        page.evaluate(
          ([u, n, tab]) =>
            (window.__bench as unknown as PageKit).appFetch.burst(u as string, n as number, tab as number),
          [url, calls, t] as const,
        ),
      ),
    );
    const millis = Date.now() - started;
    const answered = api.arrivals.filter((a) => a.status === 200).map((a) => a.call);
    const run: FanInRun = {
      tabs,
      callsPerTab: calls,
      tokenRequests: emulator.counts().tokenRequests,
      answered200: statuses.flat().filter((s) => s === 200).length,
      refused401: api.arrivals.filter((a) => a.status === 401).length,
      answeredTwice: answered.length - new Set(answered).size,
      millis,
    };
    console.log(
      `  ${tabs} tabs × ${calls} client.fetch after expiry: ${run.tokenRequests} token request(s), ${run.answered200} answered 200, ${run.refused401} refused once with the old token, in ${millis} ms`,
    );
    return run;
  } finally {
    await context.close();
  }
}

export async function appFetchBench(flags: Flags, browser: Browser, pages: PageServer): Promise<BenchResult> {
  const rounds = flags.quick ? 4 : 10;
  const perRound = flags.quick ? 10 : 20;
  const warmup = flags.quick ? 20 : 50;
  const repeats = flags.quick ? 1 : 3;
  const tabs = 20;
  const calls = 10;
  const emulator = await startBenchEmulator();
  const stage = await Stage.open(emulator, browser, pages);
  const { em } = emulator;
  const api = createAppApi({ baseUrl: em.url, projectId: em.projects.demo.id, now: () => em.env.clock.now() });
  const server = await serveBenchApi(pages.url, () => api);
  let external: string[] = [];
  let overhead: Overhead;
  const runs: FanInRun[] = [];
  try {
    const context = await stage.newContext();
    try {
      await stage.seedSession(context, 'authbroker');
      const page = await stage.open(context, 'authbroker', 'idle', { appApi: server.origin });
      await page.evaluate(() => window.__bench.ready());
      await stage.waitQuiet();
      overhead = await page.evaluate(
        ([u, r, p, w]) =>
          (
            window.__bench as unknown as {
              appFetch: { overhead(u: string, r: number, p: number, w: number): Promise<Overhead> };
            }
          ).appFetch.overhead(u as string, r as number, p as number, w as number),
        [`${server.origin}/ok`, rounds, perRound, warmup] as const,
      );
    } finally {
      await context.close();
    }
    for (let repeat = 0; repeat < repeats; repeat++)
      runs.push(await tabsAfterExpiry(stage, emulator, api, server.origin, tabs, calls));
  } finally {
    external = stage.externalNote();
    await stage.close();
    await server.stop();
    await emulator.stop();
  }

  const stats: Record<Variant, Summary> = {
    client: summarize(overhead.samples.client),
    plain: summarize(overhead.samples.plain),
  };
  const ratio = stats.client.median / stats.plain.median;
  const labels: Record<Variant, string> = {
    client: '`client.fetch(url)` (token kept by the tab, attached as Authorization: Bearer)',
    plain: "`fetch(url, { headers: { authorization: 'Bearer ' + token } })`, the same token: the baseline",
  };
  const tokenRequests = median(runs.map((r) => r.tokenRequests));
  const allAnswered = runs.every((r) => r.answered200 === tabs * calls && r.answeredTwice === 0);
  return {
    id: 'app-fetch',
    title: "13. The app's own requests: client.fetch over fetch, and 20 tabs after expiry",
    method: [
      `**client.fetch vs plain fetch.** One tab of the authbroker bench page (signed in, broker SharedWorker running, \`appRequests.origins\` naming the bench's API: a Node server on its own loopback origin whose \`/ok\` checks nothing and answers 200 at once, CORS preflights kept 2 hours). In the page, ${rounds} rounds × ${perRound} sequential calls per variant (${rounds * perRound} each), variants alternating round by round, after ${warmup} warm-up calls each; each call timed with performance.now() until its body was read (crossOriginIsolated: ${overhead.crossOriginIsolated}).`,
      `**${tabs} tabs × ${calls} calls after expiry.** A fresh context, the demo user signed in; ${tabs} tabs of the page (\`idle\`), each calling the API's \`/api/whoami\` once (test/support/appApi.ts: it checks the token with \`authbroker/server\` by the emulator's clock), so each tab keeps a token. The emulator's clock then moves past the token's lifetime, and every tab makes ${calls} \`client.fetch\` calls at once; token requests are the emulator's \`token_refreshes\`. ${repeats} run(s).`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Time per call, body read (ms)',
        columns: ['variant', 'median', 'p95', 'p99', 'mean', 'n', 'median ÷ plain fetch'],
        rows: (['client', 'plain'] as const).map((variant) => [
          labels[variant],
          fmt(stats[variant].median, 3),
          fmt(stats[variant].p95, 3),
          fmt(stats[variant].p99, 3),
          fmt(stats[variant].mean, 3),
          stats[variant].n,
          `×${fmt(stats[variant].median / stats.plain.median, 2)}`,
        ]),
      },
      {
        caption: `${tabs} tabs × ${calls} client.fetch calls right after the access token expired, per run`,
        columns: [
          'run',
          'token requests',
          'answered 200',
          'refused once (old token)',
          'answered twice',
          'wall time (ms)',
        ],
        rows: runs.map((r, i) => [i + 1, r.tokenRequests, r.answered200, r.refused401, r.answeredTwice, r.millis]),
      },
    ],
    goals: [
      {
        goal: 'client.fetch at most ×1.1 a plain fetch carrying the same token (medians)',
        measured: `×${fmt(ratio, 2)} (${fmt(stats.client.median, 3)} ms vs ${fmt(stats.plain.median, 3)} ms; p95 ${fmt(stats.client.p95, 3)} vs ${fmt(stats.plain.p95, 3)} ms)`,
        met: ratio <= 1.1,
      },
      {
        goal: `${tabs} tabs × ${calls} client.fetch calls right after expiry cost 1 token request, every call answered once`,
        measured: `${fmt(tokenRequests, 0)} token request(s) (median of ${runs.length}; ${runs.map((r) => r.tokenRequests).join(', ')}), ${runs.map((r) => r.answered200).join(', ')} of ${tabs * calls} answered 200`,
        met: tokenRequests <= 1 && allAnswered,
      },
    ],
    notes: [
      'Reported, never asserted in a test: the e2e suite (test/e2e/appRequests.test.ts) asserts the token count on the demo build.',
      ...external,
    ],
    data: { rounds, perRound, warmup, crossOriginIsolated: overhead.crossOriginIsolated, stats, runs },
  };
}
