import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, run } from './support/scratch.js';

/**
 * Issue 34: the public API of every entry of both packages is committed as an API report
 * (api-reports/, API Extractor). The package tests' global setup has just built both packages; a
 * change to what users import that is not in its report fails here (`npm run api:report` rewrites them).
 */
describe('the API reports', () => {
  it('there is one per entry with types, of both packages', () => {
    const manifests = [
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')),
      JSON.parse(readFileSync(join(repoRoot, 'emulator/package.json'), 'utf8')),
    ] as Array<{ name: string; exports: Record<string, unknown> }>;
    const expected = manifests.flatMap(({ name, exports }) =>
      Object.entries(exports)
        .filter(([, target]) => typeof target === 'object')
        .map(([subpath]) => `${`${name}${subpath === '.' ? '' : subpath.slice(1)}`.replaceAll('/', '.')}.api.md`),
    );
    expect(readdirSync(join(repoRoot, 'api-reports')).sort()).toEqual(expected.sort());
  });

  it('match the built declarations', async () => {
    const checked = await run(process.execPath, [join(repoRoot, 'scripts/apiReport.mjs'), '--check'], repoRoot);
    expect(checked.stderr, checked.stdout).toBe('');
    expect(checked.code).toBe(0);
  });

  it('names what each entry exports, e.g. createBrokerClient and useUser', () => {
    expect(readFileSync(join(repoRoot, 'api-reports/authbroker.client.api.md'), 'utf8')).toContain(
      'export function createBrokerClient(options: ConnectOptions): BrokerClient;',
    );
    expect(readFileSync(join(repoRoot, 'api-reports/authbroker.react.api.md'), 'utf8')).toMatch(
      /export function useUser\(/,
    );
  });
});
