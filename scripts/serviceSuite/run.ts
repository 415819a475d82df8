/**
 * The service-suite lane (`npm run test:service-suite`): runs the client-facing files of Stack Auth's
 * own backend end-to-end suite, unchanged, against a fresh emulator and (with `--target real` or
 * `--target both`) against the real backend of `npm run test:real`, then writes
 * test/service-suite/REPORT.md. See DEVELOPERS.md.
 *
 *   --target emulator|real|both   default emulator
 *   --report-only                 write the report again from the last runs' results
 *   --merge                       with SERVICE_SUITE_FILES: put the partial run's files into the target's last
 *                                 full results (e.g. to run a few files again on the slow real backend)
 *
 *   GIT_DIR_UPSTREAM           the git directory of a fetched stack-auth/stack-auth (DEVELOPERS.md)
 *   SERVICE_SUITE_DIR          the suite's work folder (default .artifacts/service-suite/work)
 *   SERVICE_SUITE_FILES        only these files (space-separated, as in suite.ts): a partial run, kept in
 *                              <target>-partial.json; the report is left as it was
 *   SERVICE_SUITE_WORKERS      default 2
 *   SERVICE_SUITE_TEST_TIMEOUT a test's time limit in ms (default the suite's own with CI set: 50000)
 *   SERVICE_SUITE_PORT_PREFIX  the emulator target's port prefix (default 83: 8302, 8305, 8314)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { log, runToEnd, secondsSince } from './processes.js';
import { writeEmulatorFailures, writeReport } from './report.js';
import { counts, type FileOutcome, type RunResults } from './results.js';
import {
  ARTIFACTS,
  PINNED_COMMIT,
  portPrefix,
  REPORT_FILE,
  ROOT,
  SUITE_DIR,
  SUITE_FILES,
  workFolder,
  type TargetName,
} from './suite.js';
import { startTarget } from './targets.js';
import { prepareWorkspace } from './workspace.js';

const artifacts = ARTIFACTS.pathname;
const resultsFile = (target: TargetName, partial: boolean) =>
  join(artifacts, `${target}${partial ? '-partial' : ''}.json`);
const NOT_RUN_FILE = join(artifacts, 'real-not-run.txt');

function readResults(target: TargetName): RunResults | null {
  const file = resultsFile(target, false);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RunResults) : null;
}

function writeReports(): void {
  const results = { emulator: readResults('emulator'), real: readResults('real') };
  const reason = existsSync(NOT_RUN_FILE) ? readFileSync(NOT_RUN_FILE, 'utf8').trim() : null;
  writeReport(REPORT_FILE, results, results.real === null ? reason : null);
  writeEmulatorFailures(new URL('emulator-failures.md', ARTIFACTS), results);
  const relative = (path: string) => path.replace(ROOT.pathname, '');
  log(`wrote ${relative(REPORT_FILE.pathname)} and ${relative(artifacts)}emulator-failures.md`);
}

/** A partial run's files put into the target's last full results, which then name it among their reruns. */
function mergeIntoFull(partial: RunResults): void {
  const full = readResults(partial.target);
  if (full === null || full.commit !== partial.commit)
    throw new Error(`--merge: no full ${partial.target} run at ${partial.commit.slice(0, 12)} to merge into`);
  const rerun = new Set(partial.files.map((file) => file.file));
  full.files = [...full.files.filter((file) => !rerun.has(file.file)), ...partial.files].sort(
    (a, b) => SUITE_FILES.indexOf(a.file) - SUITE_FILES.indexOf(b.file),
  );
  full.reruns = [
    ...(full.reruns ?? []),
    {
      startedAt: partial.startedAt,
      files: [...rerun],
      testSeconds: partial.testSeconds,
      authbrokerCommit: partial.authbrokerCommit,
      ...(partial.testTimeoutMillis === undefined ? {} : { testTimeoutMillis: partial.testTimeoutMillis }),
    },
  ];
  writeFileSync(resultsFile(partial.target, false), `${JSON.stringify(full, null, 2)}\n`);
  log(`merged ${rerun.size} files into ${partial.target}.json`);
}

function selectedFiles(): { files: string[]; partial: boolean } {
  const named = (process.env.SERVICE_SUITE_FILES ?? '').split(/\s+/).filter(Boolean);
  for (const file of named)
    if (!SUITE_FILES.includes(file)) throw new Error(`SERVICE_SUITE_FILES: ${file} is not one of the lane's files`);
  return named.length === 0 ? { files: [...SUITE_FILES], partial: false } : { files: named, partial: true };
}

/** Runs the suite's vitest in the work folder against a target that is already answering. */
async function runSuite(
  target: TargetName,
  files: string[],
  partial: boolean,
): Promise<{ outcomes: FileOutcome[]; seconds: number }> {
  const dir = workFolder();
  const name = `${target}${partial ? '-partial' : ''}`;
  const raw = join(artifacts, `${name}-vitest.json`);
  const logFile = join(artifacts, `${name}.log`);
  rmSync(raw, { force: true });
  rmSync(logFile, { force: true });
  const started = performance.now();
  const heartbeat = setInterval(
    () => log(`… still running (${Math.round(secondsSince(started))} s; log: ${logFile})`),
    60_000,
  );
  const code = await runToEnd(
    join(dir, 'node_modules/.bin/vitest'),
    [
      'run',
      '--config',
      'vitest.service-suite.config.ts',
      `--reporter=${new URL('reporter.ts', import.meta.url).pathname}`,
      '--reporter=basic',
      ...(partial ? files.map((file) => `${SUITE_DIR}/${file}`) : []),
    ],
    {
      cwd: join(dir, 'apps/e2e'),
      env: {
        ...process.env,
        NEXT_PUBLIC_STACK_PORT_PREFIX: portPrefix(target),
        // The suite's CI timeout (50 s a test): the real backend compiles each route on its first call.
        CI: 'true',
        SERVICE_SUITE_RESULTS_FILE: raw,
        SERVICE_SUITE_WORKERS: process.env.SERVICE_SUITE_WORKERS ?? '2',
      },
      logFile,
    },
  );
  clearInterval(heartbeat);
  if (!existsSync(raw)) throw new Error(`the suite's vitest wrote no results (exit ${code}); see ${logFile}`);
  return { outcomes: JSON.parse(readFileSync(raw, 'utf8')) as FileOutcome[], seconds: secondsSince(started) };
}

/** HEAD of this repository, with `+` when files differ from it (the emulator that ran is then not HEAD's). */
function authbrokerCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT.pathname, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short=12', 'HEAD')}${git('status', '--porcelain', '--', 'emulator', 'protocol') === '' ? '' : '+'}`;
  } catch {
    return 'unknown';
  }
}

async function runTarget(target: TargetName): Promise<RunResults> {
  const { files, partial } = selectedFiles();
  const startedAt = new Date().toISOString();
  const setupStarted = performance.now();
  const workspace = await prepareWorkspace(workFolder(), artifacts);
  log(
    `suite ready (${workspace.reused ? 'reused' : `exported and installed in ${workspace.seconds} s`}); starting the ${target} target`,
  );
  const running = await startTarget(target, { prefix: portPrefix(target), workDir: workFolder(), artifacts });
  const setupSeconds = secondsSince(setupStarted);
  log(`${target} answers at ${running.apiUrl} (set-up ${setupSeconds} s); running ${files.length} files`);
  let outcomes: FileOutcome[];
  let testSeconds: number;
  // Stopped by a signal, the lane still stops what it started (the target's processes run detached).
  const onSignal = () => void running.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    ({ outcomes, seconds: testSeconds } = await runSuite(target, files, partial));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await running.stop();
  }
  const results: RunResults = {
    target,
    startedAt,
    commit: PINNED_COMMIT,
    authbrokerCommit: authbrokerCommit(),
    workers: Number(process.env.SERVICE_SUITE_WORKERS ?? '2'),
    testTimeoutMillis: Number(process.env.SERVICE_SUITE_TEST_TIMEOUT ?? '50000'),
    setupSeconds,
    testSeconds,
    files: outcomes.sort((a, b) => SUITE_FILES.indexOf(a.file) - SUITE_FILES.indexOf(b.file)),
  };
  writeFileSync(resultsFile(target, partial), `${JSON.stringify(results, null, 2)}\n`);
  const c = counts(results.files);
  log(`${target}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped of ${c.total} (tests ${testSeconds} s)`);
  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      target: { type: 'string', default: 'emulator' },
      'report-only': { type: 'boolean' },
      merge: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(
      readFileSync(new URL(import.meta.url), 'utf8')
        .split('*/')[0]!
        .replace(/^\/\*\*?|^ \* ?/gm, ''),
    );
    return;
  }
  mkdirSync(artifacts, { recursive: true });
  if (values['report-only']) return writeReports();
  const targets: TargetName[] =
    values.target === 'both'
      ? ['real', 'emulator']
      : values.target === 'real'
        ? ['real']
        : values.target === 'emulator'
          ? ['emulator']
          : [];
  if (targets.length === 0) throw new Error(`--target must be emulator, real or both; got "${values.target}"`);
  const { partial } = selectedFiles();
  if (values.merge && !partial) throw new Error('--merge needs SERVICE_SUITE_FILES: it merges a partial run');
  let failed = false;
  for (const target of targets) {
    try {
      const results = await runTarget(target);
      if (target === 'real' && !partial) rmSync(NOT_RUN_FILE, { force: true });
      if (values.merge) mergeIntoFull(results);
    } catch (error) {
      failed = true;
      const reason = error instanceof Error ? error.message : String(error);
      log(`${target}: not run: ${reason}`);
      if (target === 'real' && !partial) writeFileSync(NOT_RUN_FILE, `${reason}\n`);
    }
  }
  if (!partial || values.merge) writeReports();
  else if (targets.includes('emulator') && existsSync(resultsFile('emulator', true))) {
    // A partial run's failures, for whoever is closing them (the full run's list comes back with --report-only).
    const emulator = JSON.parse(readFileSync(resultsFile('emulator', true), 'utf8')) as RunResults;
    writeEmulatorFailures(new URL('emulator-failures.md', ARTIFACTS), { emulator, real: readResults('real') });
    log('wrote emulator-failures.md (this partial run only)');
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
