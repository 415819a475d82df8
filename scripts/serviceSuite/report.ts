import { writeFileSync } from 'node:fs';
import { counts, failureLine, type FailureSummary, type RunResults, type TestOutcome } from './results.js';
import { PINNED_COMMIT, SUITE_FILES } from './suite.js';

/**
 * The lane's committed report (test/service-suite/REPORT.md) and the emulator's list of failures for
 * whoever closes them (.artifacts/service-suite/emulator-failures.md), from the last runs' results.
 */

type Results = { emulator: RunResults | null; real: RunResults | null };

const TARGET_NAMES = { real: 'real backend', emulator: 'emulator' } as const;

/** Inline code that survives backticks inside it. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

const minutes = (seconds: number) =>
  seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round((seconds / 60) * 10) / 10} min`;

const key = (file: string, test: string) => `${file}\u0000${test}`;

function outcomesByKey(run: RunResults | null): Map<string, TestOutcome> {
  const map = new Map<string, TestOutcome>();
  for (const file of run?.files ?? []) for (const test of file.tests) map.set(key(file.file, test.name), test);
  return map;
}

/**
 * What a failure's first difference looks like with ids, tokens and numbers taken out, to group alike
 * failures: `expected line → received line`, or the message when there is no diff.
 */
export function signature(failure: FailureSummary | undefined): string {
  if (failure === undefined) return '(no error recorded)';
  const expected = failure.diff
    .find((line) => line.startsWith('-'))
    ?.slice(1)
    .trim();
  const received = failure.diff
    .find((line) => line.startsWith('+'))
    ?.slice(1)
    .trim();
  if (expected === undefined && received === undefined) return normalize(failure.message);
  return `${normalize(expected ?? '(nothing)')} → ${normalize(received ?? '(nothing)')}`;
}

/** Ids, tokens and numbers out; a bare number or a status kept (they are what differs). */
function normalize(text: string): string {
  if (/^\d+,?$/.test(text)) return text;
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/[A-Za-z0-9_-]{16,}/g, (token) => (/[0-9]/.test(token) ? '<id>' : token))
    .replace(/(?<!"status": \d*)\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
}

function topSignatures(failures: readonly (FailureSummary | undefined)[], limit: number): [string, number][] {
  const tally = new Map<string, number>();
  for (const failure of failures) tally.set(signature(failure), (tally.get(signature(failure)) ?? 0) + 1);
  return [...tally.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
}

function summaryRow(target: 'real' | 'emulator', run: RunResults | null, reason: string | null): string {
  if (run === null) return `| ${TARGET_NAMES[target]} | not run${reason ? `: ${reason}` : ''} | | | | | |`;
  const c = counts(run.files);
  const when = `${run.startedAt.slice(0, 16).replace('T', ' ')} UTC, authbroker ${code(run.authbrokerCommit ?? 'unknown')}`;
  const failures = run.files.flatMap((file) => file.tests).map((test) => test.failure?.message ?? '');
  const timedOut = failures.filter((message) => message.startsWith('Test timed out')).length;
  const serverErrors = failures.filter((message) => message.startsWith('API threw ISE')).length;
  const notes = [
    ...(timedOut === 0 ? [] : [`${timedOut} timed out`]),
    ...(serverErrors === 0 ? [] : [`${serverErrors} answered 500`]),
  ];
  const failed = notes.length === 0 ? `${c.failed}` : `${c.failed} (${notes.join(', ')})`;
  return `| ${TARGET_NAMES[target]} | ${when} | ${c.passed} of ${c.total} | ${failed} | ${c.skipped} | ${minutes(run.setupSeconds)} | ${minutes(run.testSeconds)} |`;
}

function perFileTable(results: Results): string[] {
  const lines = ['| file | tests | real backend passed | emulator passed |', '|---|---:|---:|---:|'];
  for (const file of SUITE_FILES) {
    const of = (run: RunResults | null) => run?.files.find((candidate) => candidate.file === file);
    const real = of(results.real);
    const emulator = of(results.emulator);
    const tests = (real ?? emulator)?.tests.filter((test) => test.state !== 'todo').length ?? 0;
    const passed = (outcome: typeof real, run: RunResults | null) =>
      run === null
        ? '–'
        : outcome === undefined
          ? 'did not run'
          : String(outcome.tests.filter((test) => test.state === 'passed').length);
    lines.push(`| ${file} | ${tests} | ${passed(real, results.real)} | ${passed(emulator, results.emulator)} |`);
  }
  return lines;
}

/** Tests the real backend passes and the emulator fails, per file, with the emulator's first failing assertion. */
function regressions(results: Results): { lines: string[]; count: number } {
  if (results.real === null || results.emulator === null) return { lines: [], count: 0 };
  const emulator = outcomesByKey(results.emulator);
  const lines: string[] = [];
  let count = 0;
  for (const file of results.real.files) {
    const failing = file.tests.filter(
      (test) => test.state === 'passed' && emulator.get(key(file.file, test.name))?.state !== 'passed',
    );
    if (failing.length === 0) continue;
    count += failing.length;
    lines.push('', `### ${file.file} (${failing.length})`, '');
    for (const test of failing) {
      const there = emulator.get(key(file.file, test.name));
      const why =
        there?.failure === undefined
          ? there === undefined
            ? 'did not run'
            : there.state
          : `${code(failureLine(there.failure))}${there.failure.at ? ` (${there.failure.at})` : ''}`;
      lines.push(`- ${test.name} — ${why}`);
    }
  }
  return { lines, count };
}

/** A run with only the lane's files (a file dropped from the list since is left out of every count). */
function lanesFiles(run: RunResults | null): RunResults | null {
  return run === null ? null : { ...run, files: run.files.filter((file) => SUITE_FILES.includes(file.file)) };
}

/** The files run again since each target's full run, when there are any. */
function rerunLines(results: Results): string[] {
  return (['real', 'emulator'] as const).flatMap((target) =>
    (results[target]?.reruns ?? []).map(
      (rerun) =>
        `Run again since on the ${TARGET_NAMES[target]} (${rerun.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${minutes(rerun.testSeconds)}, authbroker ${code(rerun.authbrokerCommit)}${rerun.testTimeoutMillis === undefined ? '' : `, limit ${rerun.testTimeoutMillis / 1000} s a test`}): ${rerun.files.join(', ')}.`,
    ),
  );
}

export function writeReport(file: URL, all: Results, realNotRunReason: string | null): void {
  const results = { real: lanesFiles(all.real), emulator: lanesFiles(all.emulator) };
  const { real, emulator } = results;
  const lines = [
    "# Stack Auth's own test suite against the emulator and the real backend",
    '',
    `Written by \`npm run test:service-suite\` (scripts/serviceSuite/; \`--report-only\` writes it again from the last runs'`,
    "results in `.artifacts/service-suite/`). The lane runs the client-facing part of Stack Auth's backend end-to-end",
    `suite (\`apps/e2e\` of stack-auth/stack-auth at \`${PINNED_COMMIT.slice(0, 12)}\`, the real-service lane's pin): the`,
    `${SUITE_FILES.length} files under \`tests/backend/endpoints/api/v1/\` listed in scripts/serviceSuite/suite.ts, unchanged,`,
    `with ${emulator?.workers ?? real?.workers ?? 2} workers and whole-answer inline snapshots, against a fresh emulator and against the real backend`,
    'of `npm run test:real` (development mode). The suite is AGPL-3.0: it is exported into an ignored folder at run time and',
    "never copied here. Both targets use Stack Auth's own mock OAuth server (exported with the suite) for OAuth and an",
    'Inbucket mail API; neither has a webhook server (Svix) on PREFIX13, so the tests of webhooks fail on both, and the',
    'real backend has no file store (s3mock) on PREFIX21, so its uploads of profile images fail.',
    '',
    '| target | run | passed | failed | skipped | set-up | tests ran |',
    '|---|---|---:|---:|---:|---:|---:|',
    summaryRow('real', real, realNotRunReason),
    summaryRow('emulator', emulator, null),
    '',
  ];
  const reruns = rerunLines(results);
  if (reruns.length > 0) lines.push(...reruns, '');
  const gaps = regressions(results);
  if (real !== null && emulator !== null) {
    const realPassed = counts(real.files).passed;
    const both = realPassed - gaps.count;
    const percent = realPassed === 0 ? 0 : Math.floor((both / realPassed) * 1000) / 10;
    lines.push(
      `**Of the ${realPassed} tests the real backend passes, the emulator passes ${both} (${percent} %).**`,
      `"Set-up" is starting the target (and exporting and installing the suite when it was not yet); "tests ran" is the`,
      `suite itself. A test that timed out (limit ${(real.testTimeoutMillis ?? 50_000) / 1000} s on the real backend unless said otherwise) or that the`,
      'real backend answered with a 500 says little of its answers: on a busy two-core machine, the backend in development',
      "mode takes seconds a request, its database transactions time out, and its development mode's injected retryable",
      'errors can outlast their retries.',
      '',
    );
  }
  lines.push('## Per file', '', ...perFileTable(results), '');
  if (emulator !== null) {
    const failures = emulator.files.flatMap((f) => f.tests.filter((t) => t.state === 'failed').map((t) => t.failure));
    lines.push(
      "## The emulator's most frequent first differences",
      '',
      'Its failed tests grouped by the first difference of their first failing assertion (expected → received; ids and numbers as N):',
      '',
      ...topSignatures(failures, 12).map(([text, n]) => `- ${n} × ${code(text)}`),
      '',
    );
  }
  lines.push(`## Tests the real backend passes and the emulator fails (${gaps.count})`, '');
  if (real === null || emulator === null) lines.push('Needs a run of both targets.');
  else
    lines.push(
      "Each with the emulator's first failing assertion: its message, then the first differing lines (`-` expected, `+`",
      'received, joined by ⏎), and where it failed.',
      ...gaps.lines,
    );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Every test the emulator fails, with its first failing assertion, for whoever closes the gaps. */
export function writeEmulatorFailures(file: URL, all: Results): void {
  const emulator = lanesFiles(all.emulator);
  const real = lanesFiles(all.real);
  if (emulator === null) return;
  const onReal = outcomesByKey(real);
  const c = counts(emulator.files);
  const partial = emulator.files.length < SUITE_FILES.length;
  const lines = [
    `# Emulator failures in Stack Auth's suite (${c.failed} of ${c.total}${partial ? `, a partial run of ${emulator.files.length} files` : ''})`,
    '',
    `Run ${emulator.startedAt} (tests ${minutes(emulator.testSeconds)}). Regenerated after every emulator run of`,
    '`npm run test:service-suite`; the suite is in `.artifacts/service-suite/work/apps/e2e/tests/backend/endpoints/api/v1/`.',
    real === null
      ? 'No run of the real backend recorded: every failure is listed without its verdict there.'
      : '[real ✓] marks tests the real backend passes (the ones to fix first); [real ✗] those it fails too.',
    '',
    '## Most frequent first differences',
    '',
    ...topSignatures(
      emulator.files.flatMap((f) => f.tests.filter((t) => t.state === 'failed').map((t) => t.failure)),
      30,
    ).map(([text, n]) => `- ${n} × ${code(text)}`),
    '',
    '## Per file',
  ];
  for (const f of emulator.files) {
    const failed = f.tests.filter((t) => t.state === 'failed');
    if (failed.length === 0 && f.error === undefined) continue;
    lines.push('', `### ${f.file} (${failed.length} of ${f.tests.length})`, '');
    if (f.error !== undefined) lines.push(`- (the file itself) — ${code(failureLine(f.error))}`);
    for (const t of failed) {
      const verdict =
        real === null ? '' : onReal.get(key(f.file, t.name))?.state === 'passed' ? '[real ✓] ' : '[real ✗] ';
      const failure = t.failure;
      lines.push(
        `- ${verdict}${t.name}`,
        failure === undefined
          ? '  - (no error recorded)'
          : `  - ${code(failure.message)}${failure.at ? ` at ${failure.at}` : ''}${failure.diff.map((d) => `\n    ${code(d)}`).join('')}`,
      );
    }
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}
