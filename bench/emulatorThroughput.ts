/**
 * 7. Emulator throughput over loopback (autocannon, bounded by duration) for GET /users/me with a
 * valid token and for password sign-in, the emulator pinned to core 0 and the load generator to
 * core 1; and the emulator's start-up time (median of 20 starts).
 */
import { spawn } from 'node:child_process';
import {
  BENCH,
  fmt,
  isChild,
  median,
  ROOT,
  runChild,
  spawnEmulator,
  summarize,
  tasksetAvailable,
  type BenchResult,
  type EmulatorInfo,
  type Flags,
  type Summary,
} from './harness.js';

interface CannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

const SIGN_IN_CONNECTIONS = 4;

/** One bounded autocannon run (it stops by itself after `seconds`), pinned to core 1. */
function autocannon(args: string[], seconds: number, connections = 10): Promise<CannonResult> {
  const cli = `${ROOT}node_modules/autocannon/autocannon.js`;
  const argv = [cli, '-j', '-n', '-c', String(connections), '-d', String(seconds), ...args];
  const [command, full] = tasksetAvailable()
    ? ['taskset', ['-c', '1', process.execPath, ...argv]]
    : [process.execPath, argv];
  return new Promise((resolve, reject) => {
    const child = spawn(command, full, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!) as CannonResult);
      } catch {
        reject(new Error(`autocannon exited ${code}: ${err.slice(-500)}`));
      }
    });
  });
}

function headers(info: EmulatorInfo, withToken: boolean): string[] {
  const h = [
    `x-stack-project-id=${info.projects.demo.id}`,
    'x-stack-access-type=client',
    `x-stack-publishable-client-key=${info.projects.demo.publishableClientKey}`,
  ];
  if (withToken) h.push(`x-stack-access-token=${info.accessToken}`);
  return h.flatMap((x) => ['-H', x]);
}

async function startupChild(): Promise<unknown> {
  const { startEmulator } = await import('../emulator/index.js');
  const starts: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    const em = await startEmulator({ port: 0 });
    starts.push(performance.now() - start);
    await em.stop();
  }
  return { starts };
}

export async function emulatorThroughput(flags: Flags): Promise<BenchResult> {
  const seconds = flags.quick ? 3 : 10;
  const repeats = flags.quick ? 1 : 3;
  const pinned = tasksetAvailable();
  const emulator = await spawnEmulator({ cpus: '0' });
  const runs: Record<string, CannonResult[]> = { me: [], signIn: [] };
  try {
    const { info } = emulator;
    const me = [...headers(info, true), `${info.apiUrl}/users/me`];
    const signIn = [
      ...headers(info, false),
      '-H',
      'content-type=application/json',
      '-m',
      'POST',
      '-b',
      JSON.stringify(info.demoUser),
      `${info.apiUrl}/auth/password/sign-in`,
    ];
    await autocannon(me, 2); // warm-up, not counted
    for (let i = 0; i < repeats; i++) {
      runs.me!.push(await autocannon(me, seconds));
      runs.signIn!.push(await autocannon(signIn, seconds, SIGN_IN_CONNECTIONS));
    }
  } finally {
    await emulator.stop();
  }
  const startup = await runChild<{ starts: number[] }>(`${BENCH}emulatorThroughput.ts`, [], { timeoutMillis: 120_000 });
  const startStats: Summary = summarize(startup.starts);
  // Successful responses per second of the run (autocannon's per-second average can read 0 for slow routes).
  const rps = (list: CannonResult[]) => median(list.map((r) => r['2xx'] / r.duration));
  const p99 = (list: CannonResult[]) => median(list.map((r) => r.latency.p99));
  const bad = (list: CannonResult[]) => list.reduce((a, r) => a + r.errors + r.timeouts + r.non2xx, 0);
  const meRps = rps(runs.me!);
  return {
    id: 'emulator-throughput',
    title: '7. Emulator throughput (loopback) and start-up',
    method: [
      `The emulator runs in its own process ${pinned ? 'pinned to core 0 (`taskset -c 0`)' : '(taskset missing: not pinned)'}; autocannon ${pinned ? 'pinned to core 1' : ''}, no pipelining, ${seconds} s per run (10 connections for /users/me, ${SIGN_IN_CONNECTIONS} for sign-in), after a 2 s warm-up run; median of ${repeats} run(s) per route, routes alternating; req/s = 2xx responses ÷ run duration. /users/me carries a valid access token of the demo user; sign-in posts the demo user's e-mail and password (a scrypt check and a new session per request). Latency percentiles are autocannon's (ms).`,
      `Start-up: a fresh Node process (modules already imported) runs \`startEmulator({ port: 0 })\` + \`stop()\` 20 times; each start is timed until the server listens (seeding included).`,
    ].join('\n\n'),
    tables: [
      {
        caption: 'Throughput over loopback',
        columns: [
          'route',
          'req/s (median)',
          'p50 latency (ms)',
          'p99 latency (ms)',
          'runs (req/s)',
          'errors + timeouts + non-2xx',
        ],
        rows: [
          [
            'GET /users/me (valid token)',
            fmt(meRps, 0),
            fmt(median(runs.me!.map((r) => r.latency.p50)), 1),
            fmt(p99(runs.me!), 1),
            runs.me!.map((r) => fmt(r['2xx'] / r.duration, 0)).join(', '),
            bad(runs.me!),
          ],
          [
            'POST /auth/password/sign-in',
            fmt(rps(runs.signIn!), 1),
            fmt(median(runs.signIn!.map((r) => r.latency.p50)), 1),
            fmt(p99(runs.signIn!), 1),
            runs.signIn!.map((r) => fmt(r['2xx'] / r.duration, 1)).join(', '),
            bad(runs.signIn!),
          ],
        ],
      },
      {
        caption: 'Start-up (ms)',
        columns: ['what', 'median', 'p95', 'min', 'max'],
        rows: [
          [
            'startEmulator() to listening (20 starts)',
            fmt(startStats.median, 1),
            fmt(startStats.p95, 1),
            fmt(startStats.min, 1),
            fmt(startStats.max, 1),
          ],
        ],
      },
    ],
    goals: [
      {
        goal: 'GET /users/me ≥ 2,000 req/s',
        measured: `${fmt(meRps, 0)} req/s (p99 ${fmt(p99(runs.me!), 1)} ms)`,
        met: meRps >= 2000,
      },
      {
        goal: 'emulator start-up (report only)',
        measured: `median ${fmt(startStats.median, 1)} ms of 20 starts`,
        met: null,
      },
    ],
    notes: [],
    data: { seconds, repeats, pinned, runs, startup },
  };
}

if (isChild(import.meta.url)) {
  const result = await startupChild();
  console.log(JSON.stringify(result));
  process.exit(0);
}
