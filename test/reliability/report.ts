import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Where the reliability suites leave their figures. An ordinary test run writes to `.artifacts/`
 * (so `npm test` never dirties the tree); `npm run reliability` writes the committed
 * `test/reliability/report/*.json`.
 */
export const REPORT_DIR =
  process.env.AUTHBROKER_RELIABILITY_REPORT === 'commit'
    ? join(HERE, 'report')
    : join(HERE, '..', '..', '.artifacts', 'reliability');

/** Writes one suite's figures as pretty JSON and returns the file path. */
export function writeReport(name: string, figures: Record<string, unknown>): string {
  mkdirSync(REPORT_DIR, { recursive: true });
  const file = join(REPORT_DIR, `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ suite: name, generatedAt: new Date().toISOString(), ...figures }, null, 2)}\n`,
  );
  return file;
}

/** `{ a: 1 }` + `a` → `{ a: 2 }`: a small tally for "failures by kind" tables. */
export function tally(table: Record<string, number>, key: string, by = 1): void {
  table[key] = (table[key] ?? 0) + by;
}
