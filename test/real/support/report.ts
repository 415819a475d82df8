import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { FlowResult } from '../differential/run.js';
import type { RealTargetFile } from '../../support/serviceTarget.js';

export interface LaneTimings {
  startedAt: string;
  /** Starting the backend, or finding it running (`backendWasRunning`). */
  startSeconds: number;
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
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }> }>;
}

const REPORT = new URL('../REPORT.md', import.meta.url);
const ROOT = new URL('../../../', import.meta.url).pathname;
const PINNED = '2f719903b181c20940159e9f3aaaa99bc3ec3b0f';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function differentialSection(results: FlowResult[]): string[] {
  const lines: string[] = ['## Differential check', ''];
  if (results.length === 0) return [...lines, 'Not run.', ''];
  const all = results.flatMap((r) => r.differences);
  const unexplained = all.filter((d) => d.explanation === null);
  lines.push(
    `The same requests, flow by flow, against a fresh emulator and the real backend; compared: the status, the known-error code, the protocol's headers and the set of keys of each body (values, such as ids and times, are not compared). ${all.length} differences, ${unexplained.length} unexplained.`,
    '',
    '| Flow | Requests (emulator / real) | Differences | Unexplained |',
    '|---|---|---|---|',
  );
  for (const r of results) {
    lines.push(`| ${r.flow} | ${r.emulator.length} / ${r.real.length} | ${r.differences.length} | ${r.differences.filter((d) => d.explanation === null).length} |`);
  }
  lines.push('');
  for (const r of results) {
    if (r.differences.length === 0) continue;
    lines.push(`### ${r.flow}`, '', `${r.covers}.`, '', '| Step | Request | What | Emulator | Real backend | Why it stays |', '|---|---|---|---|---|---|');
    for (const d of r.differences) {
      const what = d.subject === '' ? d.kind : `${d.kind} \`${d.subject}\``;
      lines.push(`| ${cell(d.label)} | \`${d.method} ${d.route}\` | ${cell(what)} | ${cell(d.emulator)} | ${cell(d.real)} | ${d.explanation === null ? '**unexplained**' : cell(d.explanation)} |`);
    }
    lines.push('');
  }
  return lines;
}

/** Writes test/real/REPORT.md from the run's results; returns the counts of the last line. */
export function writeLaneReport(input: { resultsFile: string; differentialFile: string; timings: LaneTimings; target: RealTargetFile }): { passed: number; failed: number } {
  const vitest: VitestJson | null = existsSync(input.resultsFile) ? (JSON.parse(readFileSync(input.resultsFile, 'utf8')) as VitestJson) : null;
  const flows: FlowResult[] = existsSync(input.differentialFile) ? (JSON.parse(readFileSync(input.differentialFile, 'utf8')) as FlowResult[]) : [];
  const passed = vitest?.numPassedTests ?? 0;
  const failed = vitest === null ? 1 : vitest.numFailedTests;
  const t = input.timings;
  const lines = [
    '# The real-service lane: report',
    '',
    `Written by \`npm run test:real\` (scripts/real/run.ts) on ${t.startedAt}: the real Stack Auth backend at upstream commit \`${PINNED.slice(0, 12)}\` (2026-04-24), development mode, access tokens of ${input.target.accessTokenSeconds} s, a project made by \`create-project.sh\` and configured through \`PATCH /internal/projects/current\`; e-mail through the lane's mail sink (SMTP on 127.0.0.1:8129).`,
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
    for (const a of bad) failures.push(`- ${a.fullName}: ${cell((a.failureMessages?.[0] ?? '').split('\n')[0]!.slice(0, 300))}`);
  }
  lines.push('');
  if (failures.length > 0) lines.push('Failed:', '', ...failures, '');
  lines.push(...differentialSection(flows));
  lines.push(
    '## Time and cost of this run',
    '',
    '| Step | Time |',
    '|---|---|',
    `| Backend start (${t.backendWasRunning ? 'already running: checked and reused' : 'started by the lane'}) | ${t.startSeconds} s |`,
    `| Project created and configured | ${t.projectSeconds} s |`,
    `| Tests (differential, target suites, Chromium flows) | ${t.testSeconds} s |`,
    '',
  );
  if (t.backendRssMb !== undefined || t.workFolderGb !== undefined) {
    lines.push(`Backend memory (resident, all its processes): ${t.backendRssMb ?? '?'} MB; its work folder: ${t.workFolderGb ?? '?'} GB.`, '');
  }
  writeFileSync(REPORT, `${lines.join('\n')}\n`);
  return { passed, failed };
}
