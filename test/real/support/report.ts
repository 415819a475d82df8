import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { FlowResult } from '../differential/run.js';
import type { RealTargetFile } from '../../support/serviceTarget.js';
import { E2E_SUITES, OTHER_SUITES } from '../suites.js';

export interface LaneTimings {
  startedAt: string;
  /** Starting the backend, or finding it running (`backendWasRunning`); installing included. */
  startSeconds: number;
  /** Of `startSeconds`, installing (packages, workspace builds, code generation), when the lane started the backend. */
  installSeconds?: number;
  /** Whether the backend's packages were installed in its work folder already (pnpm then only checks them). */
  installedBefore?: boolean;
  backendWasRunning: boolean;
  projectSeconds: number;
  testSeconds: number;
  /** Resident memory of the backend's processes, and the disk its work folder takes, when measured. */
  backendRssMb?: number;
  workFolderGb?: number;
}

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: Array<{
    name: string;
    assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }>;
  }>;
}

const REPORT = new URL('../REPORT.md', import.meta.url);
const ROOT = new URL('../../../', import.meta.url).pathname;
const PINNED = '2f719903b181c20940159e9f3aaaa99bc3ec3b0f';

/**
 * What the lane cost when it was built (2026-11-27, on 2 cores shared with four other sessions): the
 * steps a run that finds the backend running skips. For bench/RESULTS.md.
 */
const FIRST_RUN_COSTS = [
  '## Time and cost of a first run (measured when the lane was built)',
  '',
  '| Step | Time or size |',
  '|---|---|',
  "| Install: the backend's packages (`pnpm install`, warm pnpm store) | 46 s |",
  '| Install: building the workspace packages the backend needs | 52 s |',
  "| Install: the render sandbox's packages (npm, once) | 8 s |",
  '| Start: installed sources to "backend ready" (Postgres, 179 migrations and the seed, `next dev`, three routes warmed) | 97 s |',
  '| Run, first time: every route compiles on its first request (10–60 s each), differential check alone | 366 s |',
  '| Run, routes compiled: the lane as it was then (differential, one target suite, five Chromium flows) | 369 s |',
  "| Disk: the backend's work folder (sources, node_modules, Postgres, caches) | 3.6 GB |",
  '| Memory: the backend once every route is compiled (resident, all processes) | 4.9 GB |',
  '',
  "The renewal flow waits out a real access token (60 s): the backend's clock cannot be moved.",
  '',
];

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

type Diff = FlowResult['differences'][number];

/** Differences of one kind and reason on one request, folded into a row: their subjects and where they were met. */
function groupExplained(results: FlowResult[]): Array<{
  reason: string;
  request: string;
  kind: string;
  subjects: string[];
  emulator: string;
  real: string;
  steps: string[];
}> {
  const groups = new Map<
    string,
    {
      reason: string;
      request: string;
      kind: string;
      subjects: Set<string>;
      emulator: Set<string>;
      real: Set<string>;
      steps: Set<string>;
    }
  >();
  for (const r of results) {
    for (const d of r.differences) {
      if (d.explanation === null) continue;
      // The CORS header-family difference is the same on every answer: one row for all of them.
      const request =
        d.kind === 'header' && d.subject.startsWith('access-control-') ? '(every answer)' : `${d.method} ${d.route}`;
      const key = [d.explanation, request, d.kind].join('\u0000');
      const g = groups.get(key) ?? {
        reason: d.explanation,
        request,
        kind: d.kind,
        subjects: new Set(),
        emulator: new Set(),
        real: new Set(),
        steps: new Set(),
      };
      if (d.subject !== '') g.subjects.add(d.subject);
      g.emulator.add(d.emulator);
      g.real.add(d.real);
      g.steps.add(`${r.flow}: ${d.label}`);
      groups.set(key, g);
    }
  }
  const one = (values: Set<string>) => (values.size === 1 ? [...values][0]! : `(${values.size} values)`);
  return [...groups.values()].map((g) => ({
    reason: g.reason,
    request: g.request,
    kind: g.kind,
    subjects: [...g.subjects],
    emulator: one(g.emulator),
    real: one(g.real),
    steps: [...g.steps],
  }));
}

const some = (items: string[], n: number) =>
  items.length <= n ? items.join(', ') : `${items.slice(0, n).join(', ')} … (${items.length} in all)`;

function differentialSection(results: FlowResult[]): string[] {
  const lines: string[] = ['## Differential check', ''];
  if (results.length === 0) return [...lines, 'Not run.', ''];
  const all = results.flatMap((r) => r.differences);
  const unexplained: Array<Diff & { flow: string }> = results.flatMap((r) =>
    r.differences.filter((d) => d.explanation === null).map((d) => ({ ...d, flow: r.flow })),
  );
  lines.push(
    `The same requests, flow by flow, against a fresh emulator and the real backend; compared: the status, the known-error code, the protocol's headers (content-type, x-stack-known-error, x-stack-actual-status, the CORS headers; retry-after and location by presence) and the set of key paths of each body (values, such as ids and times, are not compared). ${all.length} differences, ${unexplained.length} unexplained.`,
    '',
    '| Flow | Requests (emulator / real) | Differences | Unexplained |',
    '|---|---|---|---|',
  );
  for (const r of results) {
    lines.push(
      `| ${r.flow} | ${r.emulator.length} / ${r.real.length} | ${r.differences.length} | ${r.differences.filter((d) => d.explanation === null).length} |`,
    );
  }
  lines.push('', '### Unexplained differences', '');
  if (unexplained.length === 0) lines.push('None.', '');
  else {
    lines.push('| Flow | Step | Request | What | Emulator | Real backend |', '|---|---|---|---|---|---|');
    for (const d of unexplained) {
      const what = d.subject === '' ? d.kind : `${d.kind} \`${d.subject}\``;
      lines.push(
        `| ${d.flow} | ${cell(d.label)} | \`${d.method} ${d.route}\` | ${cell(what)} | ${cell(d.emulator)} | ${cell(d.real)} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '### Explained differences (each reason is in emulator/README.md)',
    '',
    '| Request | What | Emulator | Real backend | Where | Why it stays |',
    '|---|---|---|---|---|---|',
  );
  for (const g of groupExplained(results)) {
    const what =
      g.subjects.length === 0
        ? g.kind
        : `${g.kind}: ${some(
            g.subjects.map((s) => `\`${s}\``),
            4,
          )}`;
    lines.push(
      `| \`${g.request}\` | ${cell(what)} | ${cell(g.emulator.slice(0, 120))} | ${cell(g.real.slice(0, 120))} | ${cell(some(g.steps, 3))} | ${cell(g.reason)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** Which suites ran against the real backend, with this run's counts, and why the others did not. */
function suitesSection(vitest: VitestJson | null): string[] {
  const lines = [
    '## Which of our suites run against the real backend',
    '',
    "The end-to-end scenarios of test/e2e run each on a fresh project of the real backend (test/real/suites.ts lists those left out). Two things many of those lean on are checked here another way: the service's e-mail through the mail sink (the target suites, the lane's OTP flow), and token expiry by waiting out the real 60-second token (the lane's renewal flow).",
    '',
    '| Suite | Runs here | Passed / failed / skipped | Why not (what of the emulator it uses) |',
    '|---|---|---|---|',
  ];
  /** Counts of the files at `path`, or starting with it up to a `*`. */
  const counts = (path: string) => {
    const start = path.split('*')[0]!;
    const results = (vitest?.testResults ?? [])
      .filter((f) =>
        path.includes('*') ? f.name.replace(ROOT, '').startsWith(start) : f.name.replace(ROOT, '') === path,
      )
      .flatMap((f) => f.assertionResults);
    const of = (status: string[]) => results.filter((a) => status.includes(a.status)).length;
    return results.length === 0 ? '—' : `${of(['passed'])} / ${of(['failed'])} / ${of(['skipped', 'pending', 'todo'])}`;
  };
  for (const s of OTHER_SUITES.filter((o) => o.runs === 'all'))
    lines.push(`| ${s.suite} | all | ${counts(s.suite.split(' ')[0]!)} | ${cell(s.why)} |`);
  for (const suite of E2E_SUITES) {
    const path = `test/e2e/${suite.file}`;
    const skipped = Object.entries(suite.skipped ?? {});
    const runs = suite.notRunning !== undefined ? 'none' : skipped.length === 0 ? 'all' : `all but ${skipped.length}`;
    const why = suite.notRunning ?? skipped.map(([name, reason]) => `"${name}…": ${reason}`).join('; ');
    lines.push(`| ${path} | ${runs} | ${suite.notRunning === undefined ? counts(path) : ''} | ${cell(why)} |`);
  }
  for (const s of OTHER_SUITES.filter((o) => o.runs !== 'all'))
    lines.push(`| ${s.suite} | ${s.runs} | | ${cell(s.why)} |`);
  lines.push('');
  return lines;
}

/** Writes test/real/REPORT.md from the run's results; returns the counts of the last line. */
export function writeLaneReport(input: {
  resultsFile: string;
  differentialFile: string;
  timings: LaneTimings;
  target: RealTargetFile;
}): { passed: number; failed: number } {
  const vitest: VitestJson | null = existsSync(input.resultsFile)
    ? (JSON.parse(readFileSync(input.resultsFile, 'utf8')) as VitestJson)
    : null;
  const flows: FlowResult[] = existsSync(input.differentialFile)
    ? (JSON.parse(readFileSync(input.differentialFile, 'utf8')) as FlowResult[])
    : [];
  const passed = vitest?.numPassedTests ?? 0;
  const failed = vitest === null ? 1 : vitest.numFailedTests;
  const t = input.timings;
  const lines = [
    '# The real-service lane: report',
    '',
    `Written by \`npm run test:real\` (scripts/real/run.ts) on ${t.startedAt}: the real Stack Auth backend at upstream commit \`${PINNED.slice(0, 12)}\` (2026-04-24), development mode, access tokens of ${input.target.accessTokenSeconds} s, a project made as the dashboard makes one and set up like the emulator's demo project (test/real/support/realProject.ts; one more for each end-to-end scenario of test/e2e); e-mail through the lane's mail sink (SMTP on 127.0.0.1:8129).`,
    '',
    `**${passed} passed, ${failed} failed**${vitest && vitest.numPendingTests > 0 ? ` (${vitest.numPendingTests} skipped)` : ''}.`,
    '',
    '## Tests',
    '',
    '| File | Passed | Failed |',
    '|---|---|---|',
  ];
  const failures: string[] = [];
  for (const file of vitest?.testResults ?? []) {
    const ok = file.assertionResults.filter((a) => a.status === 'passed').length;
    const bad = file.assertionResults.filter((a) => a.status === 'failed');
    lines.push(`| ${file.name.replace(ROOT, '')} | ${ok} | ${bad.length} |`);
    for (const a of bad)
      failures.push(`- ${a.fullName}: ${cell((a.failureMessages?.[0] ?? '').split('\n')[0]!.slice(0, 300))}`);
  }
  lines.push('');
  if (failures.length > 0) lines.push('Failed:', '', ...failures, '');
  lines.push(...suitesSection(vitest));
  lines.push(...differentialSection(flows));
  lines.push(
    '## Time and cost of this run',
    '',
    '| Step | Time |',
    '|---|---|',
    ...(t.backendWasRunning
      ? [`| Backend start (already running: checked and reused) | ${t.startSeconds} s |`]
      : t.installSeconds === undefined
        ? [`| Backend install and start (started by the lane) | ${t.startSeconds} s |`]
        : [
            `| Backend install (its packages, the workspace packages it needs, code generation${t.installedBefore ? '; over the install already in its work folder' : ''}) | ${t.installSeconds} s |`,
            `| Backend start (Postgres, migrations and seed, \`next dev\`, first routes warmed) | ${Math.round((t.startSeconds - t.installSeconds) * 10) / 10} s |`,
          ]),
    `| The lane's project created and set up | ${t.projectSeconds} s |`,
    `| Tests (differential, target suites, end-to-end suites and flows in Chromium) | ${t.testSeconds} s |`,
    '',
  );
  if (t.backendRssMb !== undefined || t.workFolderGb !== undefined) {
    lines.push(
      `Backend memory (resident, all its processes): ${t.backendRssMb ?? '?'} MB; its work folder: ${t.workFolderGb ?? '?'} GB.`,
      '',
    );
  }
  lines.push(...FIRST_RUN_COSTS);
  writeFileSync(REPORT, `${lines.join('\n')}\n`);
  return { passed, failed };
}
