/**
 * The real-service lane (`npm run test:real`): starts the real Stack Auth backend at the pinned
 * commit (scripts/real/start-backend.sh, with the shared scripts), a mail sink on the port the
 * backend sends to, creates and configures a project, runs the lane's tests against it (the
 * differential check, the suites written over a service target, the end-to-end flows in Chromium)
 * and writes test/real/REPORT.md. Ends with one line: `N passed, N failed`.
 *
 *   GIT_DIR_UPSTREAM  the git directory of a fetched stack-auth/stack-auth (DEVELOPERS.md)
 *   R                 the backend's work folder (default .artifacts/real-backend in this repository)
 *   REAL_LANE_FILES   optional: only these test files (space-separated), for working on one
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { startMailSink, type RunningMailSink } from '../../test/real/support/mailSink.js';
import { createDemoProject } from '../../test/real/support/realProject.js';
import { startStripeStandIn, type RunningStripeStandIn } from '../../test/real/support/stripeStandIn.js';
import { writeLaneReport, type LaneTimings } from '../../test/real/support/report.js';
import type { RealTargetFile } from '../../test/support/serviceTarget.js';
import { EMAIL_RENDERING_MODULES, startRenderSandbox, type RenderSandbox } from './renderSandbox.js';
import { realBackendWorkFolder } from './workFolder.js';
import { pumpEmailQueue } from './emailQueue.js';

const ROOT = new URL('../../', import.meta.url);
const ARTIFACTS = new URL('.artifacts/real/', ROOT);
const PORT = Number(process.env.PORT ?? 8202);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const MAIL_HTTP_PORT = 8130;
const STRIPE_PORT = 8223;
const INTERNAL_PUBLISHABLE_KEY = 'this-publishable-client-key-is-for-local-development-only';

const seconds = (from: number) => Math.round((performance.now() - from) / 100) / 10;
const log = (line: string) => console.log(`[real lane ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

/** Runs a command in the repository; `onLine` sees each line of its standard output (which is shown as it comes). */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  onLine?: (line: string) => void,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['inherit', onLine === undefined ? 'inherit' : 'pipe', 'inherit'],
      env,
      cwd: ROOT.pathname,
    });
    if (onLine !== undefined)
      createInterface({ input: child.stdout! }).on('line', (line) => {
        console.log(line);
        onLine(line);
      });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * Starts the backend (or finds it running). When the lane starts it, the start script's own log
 * splits the time: installing (the backend's packages, the workspace packages it needs, code
 * generation) ends where it starts Postgres.
 */
async function startBackend(timings: LaneTimings): Promise<void> {
  const started = performance.now();
  timings.backendWasRunning = await answers(`${BASE_URL}/api/v1`);
  timings.installedBefore = existsSync(`${realBackendWorkFolder()}/src-fresh/node_modules`);
  const code = await run('bash', [new URL('scripts/real/start-backend.sh', ROOT).pathname], process.env, (line) => {
    if (/starting Postgres/.test(line)) timings.installSeconds ??= seconds(started);
  });
  if (code !== 0) throw new Error(`start-backend.sh failed (exit ${code})`);
  timings.startSeconds = seconds(started);
}

async function mailSink(): Promise<{ url: string; sink: RunningMailSink | null }> {
  const url = `http://127.0.0.1:${MAIL_HTTP_PORT}`;
  try {
    const health = (await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).json()) as {
      mailSink?: boolean;
    };
    if (health.mailSink) {
      log(`a mail sink already answers at ${url}; using it`);
      return { url, sink: null };
    }
  } catch {
    // none yet
  }
  const sink = await startMailSink({ smtpPort: 8129, httpPort: MAIL_HTTP_PORT });
  log(`mail sink: SMTP 127.0.0.1:${sink.smtpPort}, mailbox ${sink.httpUrl}`);
  return { url: sink.httpUrl, sink };
}

/**
 * The backend renders each e-mail in a code sandbox it reaches on port 8222 in development (a
 * container upstream): the lane's stand-in (scripts/real/renderSandbox.ts), unless one answers there.
 */
async function renderSandbox(): Promise<RenderSandbox | null> {
  try {
    await fetch('http://127.0.0.1:8222/', { signal: AbortSignal.timeout(2000) });
    log('a render sandbox already answers on 8222; using it');
    return null;
  } catch {
    // none yet
  }
  const sandbox = await startRenderSandbox({ dir: `${realBackendWorkFolder()}/render-sandbox`, log });
  log(`render sandbox for the backend's e-mails: ${sandbox.url}`);
  return sandbox;
}

/**
 * The backend asks Stripe (its development setup's `stripe-mock`, on port 8223 for the lane's prefix 82) for the
 * bookkeeping around a purchase URL, even in test mode: the lane's stand-in (test/real/support/stripeStandIn.ts),
 * unless something answers there already.
 */
async function stripeStandIn(): Promise<RunningStripeStandIn | null> {
  if (await answers(`http://127.0.0.1:${STRIPE_PORT}/`)) {
    log(`something answers on ${STRIPE_PORT} already; using it as Stripe`);
    return null;
  }
  const stripe = await startStripeStandIn({ port: STRIPE_PORT });
  log(`Stripe stand-in for the backend's test-mode payments: ${stripe.url}`);
  return stripe;
}

/** The backend's resident memory (every process of its session) and the disk its work folder takes. */
function measureCost(timings: LaneTimings): void {
  const work = realBackendWorkFolder();
  try {
    const pid = readFileSync(`${work}/backend.pid`, 'utf8').trim();
    const rss = spawnSync('ps', ['-o', 'rss=', '-s', pid], { encoding: 'utf8' })
      .stdout.split('\n')
      .reduce((sum, line) => sum + (Number(line.trim()) || 0), 0);
    if (rss > 0) timings.backendRssMb = Math.round(rss / 1024);
  } catch {
    // started elsewhere, without a pid file here
  }
  const du = spawnSync('du', ['-sb', work], { encoding: 'utf8', timeout: 300_000 });
  const bytes = Number(du.stdout.split(/\s/)[0]);
  if (bytes > 0) timings.workFolderGb = Math.round(bytes / 1e8) / 10;
}

/** The lane's project: made and set up as every end-to-end scenario's is (test/real/support/realProject.ts). */
async function createProject(mailboxUrl: string): Promise<RealTargetFile> {
  const backend = { baseUrl: BASE_URL, internalPublishableClientKey: INTERNAL_PUBLISHABLE_KEY };
  const project = await createDemoProject(backend, 'authbroker real-service lane');
  return {
    ...project,
    ...backend,
    mailboxUrl,
    accessTokenSeconds: Number(process.env.STACK_ACCESS_TOKEN_EXPIRATION_TIME?.replace(/s$/, '') || 60),
  };
}

async function main(): Promise<void> {
  const timings: LaneTimings = {
    startSeconds: 0,
    projectSeconds: 0,
    testSeconds: 0,
    backendWasRunning: false,
    startedAt: new Date().toISOString(),
  };
  mkdirSync(ARTIFACTS, { recursive: true });
  log('starting the backend (or finding it running)');
  await startBackend(timings);
  const { url: mailboxUrl, sink } = await mailSink();
  const sandbox = await renderSandbox();
  const stripe = await stripeStandIn();
  const emails = pumpEmailQueue(BASE_URL);
  try {
    const projectStarted = performance.now();
    const [target] = await Promise.all([createProject(mailboxUrl), sandbox?.prepare(EMAIL_RENDERING_MODULES)]);
    timings.projectSeconds = seconds(projectStarted);
    const targetFile = new URL('target.json', ARTIFACTS).pathname;
    writeFileSync(targetFile, `${JSON.stringify(target, null, 2)}\n`);
    log(`project ${target.projectId} (${timings.projectSeconds} s); running the lane's tests`);

    const testsStarted = performance.now();
    const resultsFile = new URL('vitest.json', ARTIFACTS).pathname;
    const files = (process.env.REAL_LANE_FILES ?? '').split(/\s+/).filter(Boolean);
    await run(
      'npx',
      [
        'vitest',
        'run',
        '--config',
        'test/real/vitest.config.ts',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${resultsFile}`,
        ...files,
      ],
      {
        ...process.env,
        AUTHBROKER_SERVICE_TARGET: `real:${targetFile}`,
      },
    );
    timings.testSeconds = seconds(testsStarted);
    measureCost(timings);
    writeFileSync(new URL('timings.json', ARTIFACTS), `${JSON.stringify(timings, null, 2)}\n`);
    const { passed, failed } = writeLaneReport({
      resultsFile,
      differentialFile: new URL('differential.json', ARTIFACTS).pathname,
      timings,
      target,
    });
    console.log(`${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 ? 0 : 1;
  } finally {
    await emails.stop();
    await sandbox?.stop();
    await stripe?.stop();
    await sink?.stop();
  }
}

/**
 * `--report-only`: writes test/real/REPORT.md again from the last run's artifacts (after a change to the report's
 * form).
 */
function reportOnly(): void {
  const read = <T>(name: string) => JSON.parse(readFileSync(new URL(name, ARTIFACTS), 'utf8')) as T;
  const timings = { ...read<LaneTimings>('timings.json') };
  const { passed, failed } = writeLaneReport({
    resultsFile: new URL('vitest.json', ARTIFACTS).pathname,
    differentialFile: new URL('differential.json', ARTIFACTS).pathname,
    timings,
    target: read<RealTargetFile>('target.json'),
  });
  console.log(`${passed} passed, ${failed} failed`);
}

if (process.argv.includes('--report-only')) reportOnly();
else
  main().catch((error: unknown) => {
    console.error(error);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
  });
