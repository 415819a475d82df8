import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { E2E_SUITES, whyNotOnRealBackend } from './suites.js';

/**
 * The plan of which end-to-end suites run against the real backend names what is there, so that none is left out
 * unsaid.
 */
const E2E = new URL('../e2e/', import.meta.url);
const files = readdirSync(E2E)
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const source = (file: string) => readFileSync(new URL(file, E2E), 'utf8');

describe('the plan of the end-to-end suites against the real backend', () => {
  it('names every file of test/e2e, once', () => {
    expect(E2E_SUITES.map((s) => s.file).sort()).toEqual(files);
  });

  it("names each scenario it leaves out by a part of its name that is in that file's source once and in no other file", () => {
    for (const suite of E2E_SUITES) {
      for (const part of Object.keys(suite.skipped ?? {})) {
        expect(
          files.filter((f) => source(f).includes(part)),
          part,
        ).toEqual([suite.file]);
        expect(source(suite.file).split(part).length - 1, part).toBe(1);
        expect(whyNotOnRealBackend(`a name with ${part} in it`)).toBe(suite.skipped![part]);
      }
    }
    expect(whyNotOnRealBackend('1. three tabs share one broker (exactly one shared_worker target)')).toBeNull();
  });

  it('gives a reason for every file or scenario that does not run', () => {
    for (const suite of E2E_SUITES) {
      for (const why of [suite.notRunning, ...Object.values(suite.skipped ?? {})])
        if (why !== undefined) expect(why.length, suite.file).toBeGreaterThan(20);
    }
  });
});
