import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Playwright's `waitForFunction` does not await the predicate's promise: an async predicate returns
 * a promise, which is truthy, so the wait ends at once having waited for nothing, and the test goes
 * on as if the state had come (end-to-end scenario 9 failed on a loaded CI machine this way). Waits
 * on the broker's answers poll with `until` (test/e2e/support/ui.ts) instead.
 */
const ROOTS = ['test', 'bench', 'scripts'];

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory())
        return entry.name === 'node_modules' || entry.name === '.tmp' ? Promise.resolve([]) : sourceFiles(path);
      return Promise.resolve(/\.tsx?$/.test(entry.name) ? [path] : []);
    }),
  );
  return nested.flat();
}

describe('waits in browser tests', () => {
  it('no Playwright waitForFunction is given an async predicate', async () => {
    const files = (await Promise.all(ROOTS.map(sourceFiles))).flat();
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (!text.includes('playwright-core') && !text.includes('__authbroker')) continue;
      for (const match of text.matchAll(/waitForFunction\(\s*async\b/g))
        offenders.push(`${file}:${text.slice(0, match.index).split('\n').length}`);
    }
    expect(offenders).toEqual([]);
  });
});
