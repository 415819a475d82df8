import { writeFileSync } from 'node:fs';
import { summarizeError, type FileOutcome, type TestOutcome, type TestState } from './results.js';

/**
 * The lane's vitest reporter, loaded by the exported suite's own vitest (1.x) with `--reporter`: at
 * the end it writes every test's outcome and first failing assertion to the file named by
 * `SERVICE_SUITE_RESULTS_FILE`. Typed structurally: the suite's vitest is not this repository's.
 */

interface TaskError {
  message?: unknown;
  diff?: unknown;
  stack?: unknown;
}

interface Task {
  type: string;
  name: string;
  mode: string;
  filepath?: string;
  tasks?: Task[];
  result?: { state?: string; duration?: number; errors?: TaskError[] };
}

const SUITE_PATH = /\/apps\/e2e\/tests\/backend\/endpoints\/api\/v1\/(.+)$/;

function stateOf(task: Task): TestState {
  if (task.mode === 'todo' || task.result?.state === 'todo') return 'todo';
  if (task.result?.state === 'pass') return 'passed';
  if (task.result?.state === 'fail') return 'failed';
  return 'skipped';
}

function collect(tasks: readonly Task[], path: string[], into: TestOutcome[]): void {
  for (const task of tasks) {
    if (task.type === 'suite') {
      collect(task.tasks ?? [], [...path, task.name], into);
      continue;
    }
    const state = stateOf(task);
    const firstError = task.result?.errors?.[0];
    into.push({
      name: [...path, task.name].join(' > '),
      state,
      durationMs: Math.round(task.result?.duration ?? 0),
      ...(state === 'failed' && firstError !== undefined ? { failure: summarizeError(firstError) } : {}),
    });
  }
}

export default class ServiceSuiteReporter {
  onFinished(files: Task[] = []): void {
    const target = process.env.SERVICE_SUITE_RESULTS_FILE;
    if (target === undefined) return;
    const outcomes: FileOutcome[] = files.map((file) => {
      const tests: TestOutcome[] = [];
      collect(file.tasks ?? [], [], tests);
      const fileError = file.result?.state === 'fail' ? file.result.errors?.[0] : undefined;
      return {
        file: SUITE_PATH.exec(file.filepath ?? file.name)?.[1] ?? file.name,
        tests,
        ...(fileError === undefined ? {} : { error: summarizeError(fileError) }),
      };
    });
    writeFileSync(target, `${JSON.stringify(outcomes, null, 2)}\n`);
  }
}
