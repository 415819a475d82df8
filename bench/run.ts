/**
 * `npm run bench [-- --quick] [-- --only=fan-in,rpc] [-- --load-seconds=60] [-- --tabs=1,10,20]` (bench 9's N): runs
 * every benchmark
 * in sequence on this machine and writes bench/results.json and bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { appFetchBench } from './appFetch.js';
import { brokerLoad } from './brokerLoad.js';
import { brokerMemory } from './brokerMemory.js';
import { buildPages, launchBrowser, servePages, type PageServer } from './browser.js';
import { bundleSize } from './bundleSize.js';
import { emulatorThroughput } from './emulatorThroughput.js';
import { engineReloads } from './engineReloads.js';
import { extensionBench } from './extension.js';
import { fanIn } from './fanIn.js';
import { floodFairness } from './flood.js';
import { idleCost } from './idleCost.js';
import { manyReads } from './manyReads.js';
import { machineInfo, packageVersion, parseFlags, type BenchResult, type Flags } from './harness.js';
import { nodeRpc } from './nodeRpc.js';
import { offlineWritesBench } from './offlineWrites.js';
import { refreshStorm } from './refreshStorm.js';
import { writeResults } from './report.js';
import { rpcOverhead } from './rpcOverhead.js';
import { serviceStoppedBench } from './serviceStopped.js';
import { timeToUser } from './timeToUser.js';
import { workerMemory } from './workerMemory.js';

interface BrowserKit {
  browser: Browser;
  pages: PageServer;
}

interface Benchmark {
  id: string;
  title: string;
  run(flags: Flags, kit: () => Promise<BrowserKit>): Promise<BenchResult>;
}

const benchmarks: Benchmark[] = [
  {
    id: 'fan-in',
    title: '1. Fan-in',
    run: async (flags, kit) => fanIn(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'refresh-storm',
    title: '2. Refresh storm',
    run: async (flags, kit) => refreshStorm(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'rpc',
    title: '3. RPC overhead in Chromium',
    run: async (flags, kit) => rpcOverhead(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'time-to-user',
    title: '4. Time to a signed-in screen',
    run: async (flags, kit) => timeToUser(flags, (await kit()).browser, (await kit()).pages),
  },
  { id: 'bundle-size', title: '5. Bundle size', run: (flags) => bundleSize(flags) },
  { id: 'broker-memory', title: '6. Broker memory', run: (flags) => brokerMemory(flags) },
  {
    id: 'worker-memory',
    title: '6b. Broker memory in Chromium',
    run: async (flags, kit) => workerMemory(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'emulator-throughput',
    title: '7. Emulator throughput and start-up',
    run: (flags) => emulatorThroughput(flags),
  },
  { id: 'node-rpc', title: '7. Comlink round trip in Node', run: (flags) => nodeRpc(flags) },
  { id: 'broker-load', title: '8. Broker load', run: (flags) => brokerLoad(flags) },
  {
    id: 'idle-cost',
    title: '9. Idle cost and memory of N tabs',
    run: async (flags, kit) => idleCost(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'flood',
    title: '11. A flood of cheap valid calls from one page',
    // Its own Chromium and Firefox (puppeteer-core); the kit's page server.
    run: async (flags, kit) => floodFairness(flags, (await kit()).pages),
  },
  {
    id: 'many-reads',
    title: "12. Many reads from one page, and the app's refetch",
    run: async (flags, kit) => manyReads(flags, (await kit()).pages),
  },
  {
    id: 'app-fetch',
    title: "13. The app's own requests: client.fetch over fetch, and 20 tabs after expiry",
    run: async (flags, kit) => appFetchBench(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'offline-writes',
    title: '14. Writes kept offline across 3 tabs, applied on the service’s return',
    run: async (flags, kit) => offlineWritesBench(flags, (await kit()).browser, (await kit()).pages),
  },
  {
    id: 'service-stopped',
    title: '15. The service stopped while a tab is idle',
    run: async (flags, kit) => serviceStoppedBench(flags, (await kit()).browser, (await kit()).pages),
  },
  // Launches its own browsers, one engine at a time.
  { id: 'engine-reloads', title: '10. Reloading the only tab, per engine', run: (flags) => engineReloads(flags) },
  // Launches its own Chromium with the demo extension.
  {
    id: 'extension',
    title: '11. A browser extension: N contexts, and a stopped background',
    run: (flags) => extensionBench(flags),
  },
];

/**
 * The official SDK: the registry holds 2.7.23, 2.8.3, 2.8.39, 2.8.41, 2.8.51, 2.8.77, 2.8.102 and
 * 2.8.108. Fan-in and refresh storm run 2.8.3 (compared since the first report) and 2.8.102, the
 * newest release that speaks `x-stack-*`, side by side.
 */
const SDK_NOTE = [
  `Side by side with authbroker run \`@stackframe/js\` ${packageVersion('@stackframe/js')} (compared since the first report) and, in fan-in and refresh storm, ${packageVersion('stackframe-js-newest')}, the newest published release that speaks \`x-stack-*\` (cookie token store in both). Every release from 2.7.23 to 2.8.108 works against the emulator in Chromium; test/emulator/officialSdk.test.ts and test/e2e/officialSdk.test.ts drive 2.7.23, 2.8.102 and 2.8.108 through sign-up, sign-in, reading and updating the user, creating and listing teams, refresh and sign-out.`,
  "Releases from 2.8.39 send `x-stack-allow-anonymous-user` and `ngrok-skip-browser-warning` on every call, which the emulator's CORS preflight now allows; releases from 2.8.41 accept only access tokens with the claims later service versions add (`project_id`, `branch_id`, `refresh_token_id`, `role`, `name`, `email`, …), which the emulator's tokens now carry beside the v2.7.27 ones.",
  '2.8.108 sends `x-hexclave-*` headers instead of `x-stack-*` and reads either family back; the emulator accepts both families (CORS included) and answers with both.',
  'The SDK has no React hooks in this package; its bench page wraps `app.getUser()`, `user.listTeams()` and `user.listContactChannels()` in small effects (bench/pages/sdkPage.tsx, the same for both releases).',
];

function chromiumVersion(): string {
  try {
    return execFileSync('/usr/lib/chromium/chromium', ['--version'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flags = parseFlags(argv);
  const started = Date.now();
  const selected = benchmarks.filter((b) => flags.only === null || flags.only.has(b.id));
  if (selected.length === 0)
    throw new Error(`No benchmark matches --only; ids: ${benchmarks.map((b) => b.id).join(', ')}`);

  let kit: BrowserKit | null = null;
  let kitPromise: Promise<BrowserKit> | null = null;
  const getKit = () =>
    (kitPromise ??= (async () => {
      console.log('Bundling the bench pages and starting Chromium…');
      await buildPages();
      kit = { browser: await launchBrowser(), pages: await servePages() };
      return kit;
    })());

  const machine = machineInfo();
  const results: BenchResult[] = [];
  let browserVersion = 'not started';
  for (const benchmark of selected) {
    // Node-only benchmarks run with the browser closed, so it takes no CPU from them.
    if (
      kit !== null &&
      ![
        'fan-in',
        'refresh-storm',
        'rpc',
        'time-to-user',
        'worker-memory',
        'flood',
        'many-reads',
        'app-fetch',
        'offline-writes',
        'service-stopped',
      ].includes(benchmark.id)
    ) {
      const open = kit as BrowserKit;
      browserVersion = open.browser.version();
      await open.browser.close();
      await open.pages.stop();
      kit = null;
      kitPromise = null;
    }
    console.log(`\n▶ ${benchmark.title}`);
    const start = Date.now();
    let result: BenchResult;
    try {
      result = await benchmark.run(flags, getKit);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`  ✗ ${benchmark.title} failed: ${message}`);
      result = {
        id: benchmark.id,
        title: benchmark.title,
        method: '(not run)',
        tables: [],
        goals: [],
        notes: [],
        data: null,
        error: message,
      };
    }
    result.durationMillis = Date.now() - start;
    results.push(result);
    for (const goal of result.goals)
      console.log(`  ${goal.met === null ? '·' : goal.met ? '✓' : '✗'} ${goal.goal}: ${goal.measured}`);
  }
  if (kit !== null) {
    const open = kit as BrowserKit;
    browserVersion = open.browser.version();
    await open.browser.close();
    await open.pages.stop();
  }

  writeResults(
    {
      date: new Date().toISOString(),
      quick: flags.quick,
      flags: argv,
      machine,
      versions: {
        chromium:
          browserVersion === 'not started'
            ? chromiumVersion()
            : `${chromiumVersion()} (playwright reports ${browserVersion})`,
        authbroker: `${packageVersion('..')} (working tree)`,
        '@stackframe/js': packageVersion('@stackframe/js'),
        react: packageVersion('react'),
        comlink: packageVersion('comlink'),
        esbuild: packageVersion('esbuild'),
        'playwright-core': packageVersion('playwright-core'),
        'puppeteer-core': packageVersion('puppeteer-core'),
        autocannon: packageVersion('autocannon'),
      },
      totalMillis: Date.now() - started,
      loadSeconds: flags.loadSeconds,
      sdkNote: SDK_NOTE,
    },
    results,
  );
  console.log(`\nWrote bench/results.json and bench/RESULTS.md (${Math.round((Date.now() - started) / 1000)} s).`);
  const missed = results.flatMap((r) => r.goals.filter((g) => g.met === false)).length;
  const failed = results.filter((r) => r.error).length;
  console.log(`${results.length - failed} benchmarks ran, ${failed} failed to run; ${missed} goal(s) missed.`);
  process.exit(failed > 0 ? 1 : 0);
}

await main();
