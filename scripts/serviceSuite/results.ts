/**
 * What a run of the suite leaves: per file, each test's outcome and, for a failure, its first failing
 * assertion (the error's first line, the first lines of its diff, where it failed). Written by the
 * lane's reporter inside the suite's vitest, kept as `.artifacts/service-suite/<target>.json`.
 *
 * No imports: the reporter that uses this module runs in the exported suite's own vitest.
 */

export type TestState = 'passed' | 'failed' | 'skipped' | 'todo';

export interface TestOutcome {
  /** The test's name, with its `describe` blocks: `block > test`. */
  name: string;
  state: TestState;
  durationMs: number;
  /** The first failing assertion, short. */
  failure?: FailureSummary;
}

export interface FailureSummary {
  /** The error's first line, e.g. `Snapshot \`x 1\` mismatched` or `expected 400 to be 200`. */
  message: string;
  /** The first differing lines of its diff (`- expected` / `+ received`), when it has one. */
  diff: string[];
  /** `file:line` of the innermost frame in the suite's own code, and of the test when that is a helper. */
  at: string | null;
}

export interface FileOutcome {
  /** Relative to `apps/e2e/tests/backend/endpoints/api/v1`. */
  file: string;
  tests: TestOutcome[];
  /** An error of the file itself (it did not load, a hook failed), when there is one. */
  error?: FailureSummary;
}

export interface RunResults {
  target: 'emulator' | 'real';
  startedAt: string;
  /** The upstream commit the suite was exported at. */
  commit: string;
  /** This repository's commit the run was made from (`+` when the working tree had changes). */
  authbrokerCommit: string;
  workers: number;
  /** The per-test time limit in milliseconds (the suite's own unless SERVICE_SUITE_TEST_TIMEOUT). */
  testTimeoutMillis?: number;
  /** Starting the target (and installing the suite when needed). */
  setupSeconds: number;
  /** The suite's own run. */
  testSeconds: number;
  files: FileOutcome[];
  /** Files run again since (`--merge`): their outcomes above are those of the later run. */
  reruns?: {
    startedAt: string;
    files: string[];
    testSeconds: number;
    authbrokerCommit: string;
    testTimeoutMillis?: number;
  }[];
}

const ANSI = /\u001b\[[0-9;]*m/g;
/** Of the first block of differing lines, this many expected and this many received. */
const DIFF_LINES_EACH = 3;
const MAX_LINE = 200;

const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line);
const isChange = (line: string) => /^[-+]( |$)/.test(line) && !/^- Expected|^\+ Received/.test(line);

/** The first block of differing lines of a diff: its first expected (`-`) and first received (`+`) lines. */
function firstDifference(diff: string): string[] {
  const lines = diff.replace(ANSI, '').split('\n');
  const start = lines.findIndex(isChange);
  if (start === -1) return [];
  const block: string[] = [];
  for (let i = start; i < lines.length && isChange(lines[i]!); i++) block.push(lines[i]!.trimEnd());
  const expected = block.filter((line) => line.startsWith('-')).slice(0, DIFF_LINES_EACH);
  const received = block.filter((line) => line.startsWith('+')).slice(0, DIFF_LINES_EACH);
  return [...expected, ...received].map(clip);
}

/** Shortens an error of vitest (message, diff, stack) to what a reader needs to see what differed. */
export function summarizeError(error: { message?: unknown; diff?: unknown; stack?: unknown }): FailureSummary {
  const message = String(error.message ?? 'unknown error').replace(ANSI, '');
  // The suite's own frames, innermost first: the helper that asserted, then the test that called it.
  const frames = [
    ...(typeof error.stack === 'string' ? error.stack.replace(ANSI, '') : '').matchAll(
      /\/apps\/e2e\/tests\/([^\s:()]+\.ts):(\d+)/g,
    ),
  ].map((m) => `${m[1]!.replace(/^backend\/(endpoints\/api\/v1\/)?/, '')}:${m[2]}`);
  const inTest = frames.find((frame) => frame.includes('.test.ts:'));
  const at = frames[0] === undefined ? null : inTest && inTest !== frames[0] ? `${frames[0]} ← ${inTest}` : frames[0];
  return {
    message: clip(message.split('\n').find((line) => line.trim() !== '') ?? message),
    diff: typeof error.diff === 'string' ? firstDifference(error.diff) : [],
    at,
  };
}

/** One line for a report: the message, then the diff's lines joined by ` ⏎ `. */
export function failureLine(failure: FailureSummary): string {
  const parts = [failure.message, ...failure.diff.map((line) => line.replace(/\s+/g, ' '))];
  return parts.join(' ⏎ ');
}

export function counts(files: readonly FileOutcome[]): Record<TestState, number> & { total: number } {
  const result = { passed: 0, failed: 0, skipped: 0, todo: 0, total: 0 };
  for (const file of files)
    for (const test of file.tests) {
      result[test.state] += 1;
      if (test.state !== 'todo') result.total += 1;
    }
  return result;
}
