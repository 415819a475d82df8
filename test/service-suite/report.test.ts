import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signature, writeEmulatorFailures, writeReport } from '../../scripts/serviceSuite/report.js';
import {
  summarizeError,
  type FileOutcome,
  type RunResults,
  type TestOutcome,
} from '../../scripts/serviceSuite/results.js';

/** The service-suite lane's report: what it says from the results of a run of each target. */

const dir = mkdtempSync(join(tmpdir(), 'service-suite-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SNAPSHOT_DIFF = [
  '\u001b[32m- Expected\u001b[39m',
  '\u001b[31m+ Received\u001b[39m',
  '',
  '  NiceResponse {',
  '\u001b[32m-   "status": 200,\u001b[39m',
  '\u001b[32m-   "body": { "success": true },\u001b[39m',
  '\u001b[31m+   "status": 400,\u001b[39m',
  '\u001b[31m+   "body": {\u001b[39m',
  '\u001b[31m+     "code": "SCHEMA_ERROR",\u001b[39m',
  '\u001b[31m+     "details": {},\u001b[39m',
  '    "headers": Headers { <some fields may have been hidden> },',
  '-   "later": 1,',
].join('\n');

const STACK = [
  'Error: Snapshot `x 1` mismatched',
  '    at Object.signIn (/w/apps/e2e/tests/backend/backend-helpers.ts:937:42)',
  '    at /w/apps/e2e/tests/backend/endpoints/api/v1/auth/oauth/token.test.ts:343:40',
].join('\n');

const passed = (name: string): TestOutcome => ({ name, state: 'passed', durationMs: 5 });
const failed = (name: string, message = 'expected 400 to be 200'): TestOutcome => ({
  name,
  state: 'failed',
  durationMs: 5,
  failure: { message, diff: ['- 200', '+ 400'], at: 'users.test.ts:12' },
});

function run(target: 'emulator' | 'real', files: FileOutcome[]): RunResults {
  return {
    target,
    startedAt: '2026-11-29T06:00:00.000Z',
    commit: '2f719903b181c20940159e9f3aaaa99bc3ec3b0f',
    authbrokerCommit: 'abcdef123456',
    workers: 2,
    setupSeconds: 6,
    testSeconds: target === 'real' ? 1700 : 80,
    files,
  };
}

describe('summarizeError', () => {
  it('keeps the first line, the first block of differing lines (3 expected, 3 received) and where it failed', () => {
    expect(summarizeError({ message: 'Snapshot `x 1` mismatched\nmore', diff: SNAPSHOT_DIFF, stack: STACK })).toEqual({
      message: 'Snapshot `x 1` mismatched',
      diff: [
        '-   "status": 200,',
        '-   "body": { "success": true },',
        '+   "status": 400,',
        '+   "body": {',
        '+     "code": "SCHEMA_ERROR",',
      ],
      at: 'backend-helpers.ts:937 ← auth/oauth/token.test.ts:343',
    });
  });

  it('reads an error without diff or stack', () => {
    expect(summarizeError({ message: 'fetch failed' })).toEqual({ message: 'fetch failed', diff: [], at: null });
  });
});

describe('signature', () => {
  it('groups by the first expected and received lines, without ids and numbers but with statuses', () => {
    const a = summarizeError({ message: 'm', diff: SNAPSHOT_DIFF });
    expect(signature(a)).toBe('"status": 200, → "status": 400,');
    expect(
      signature({
        message: 'm',
        diff: ['-   "id": "3f1c2d4e-0000-4000-8000-000000000001",', '+   "id": "team_12345678901234567890",'],
        at: null,
      }),
    ).toBe('"id": "<uuid>", → "id": "<id>",');
  });
});

describe('the report', () => {
  const real = run('real', [
    { file: 'users.test.ts', tests: [passed('a'), passed('b'), failed('webhook', 'fetch failed')] },
    { file: 'teams.test.ts', tests: [passed('c'), { name: 'later', state: 'todo', durationMs: 0 }] },
  ]);
  const emulator = run('emulator', [
    { file: 'users.test.ts', tests: [passed('a'), failed('b'), passed('webhook')] },
    { file: 'teams.test.ts', tests: [passed('c'), { name: 'later', state: 'todo', durationMs: 0 }] },
  ]);

  it('says how much of what the real backend passes the emulator passes, per file and per test', () => {
    const file = pathToFileURL(join(dir, 'REPORT.md'));
    const rerun = {
      startedAt: '2026-11-29T07:00:00.000Z',
      files: ['teams.test.ts'],
      testSeconds: 30,
      authbrokerCommit: 'fedcba',
    };
    // A file no longer in the lane's list counts nowhere.
    const dropped = { file: 'auth/gone.test.ts', tests: [passed('old')] };
    writeReport(file, { emulator, real: { ...real, files: [...real.files, dropped], reruns: [rerun] } }, null);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(
      'Run again since on the real backend (2026-11-29 07:00 UTC, 30 s, authbroker `fedcba`): teams.test.ts.',
    );
    expect(text).toContain(
      '| real backend | 2026-11-29 06:00 UTC, authbroker `abcdef123456` | 3 of 4 | 1 | 0 | 6 s | 28.3 min |',
    );
    expect(text).toContain(
      '| emulator | 2026-11-29 06:00 UTC, authbroker `abcdef123456` | 3 of 4 | 1 | 0 | 6 s | 80 s |',
    );
    expect(text).toContain('**Of the 3 tests the real backend passes, the emulator passes 2 (66.6 %).**');
    expect(text).toContain('| users.test.ts | 3 | 2 | 2 |');
    expect(text).toContain('| teams.test.ts | 1 | 1 | 1 |');
    expect(text).toContain('## Tests the real backend passes and the emulator fails (1)');
    expect(text).toContain(
      '### users.test.ts (1)\n\n- b — `expected 400 to be 200 ⏎ - 200 ⏎ + 400` (users.test.ts:12)',
    );
    // A test the real backend fails is no regression of the emulator's.
    expect(text).not.toContain('- webhook —');
  });

  it("says why the real backend did not run, and lists the emulator's failures with their verdict there", () => {
    const file = pathToFileURL(join(dir, 'REPORT-emulator-only.md'));
    writeReport(file, { emulator, real: null }, 'nothing answered http://127.0.0.1:8202/api/v1');
    expect(readFileSync(file, 'utf8')).toContain(
      '| real backend | not run: nothing answered http://127.0.0.1:8202/api/v1 | | | | | |',
    );
    const failures = pathToFileURL(join(dir, 'failures.md'));
    writeEmulatorFailures(failures, { emulator, real });
    const listed = readFileSync(failures, 'utf8');
    // Two files of the 37: a partial run, and it says so.
    expect(listed).toContain("# Emulator failures in Stack Auth's suite (1 of 4, a partial run of 2 files)");
    expect(listed).toContain('- 1 × `200 → 400`');
    expect(listed).toContain(
      '- [real ✓] b\n  - `expected 400 to be 200` at users.test.ts:12\n    `- 200`\n    `+ 400`',
    );
  });
});
