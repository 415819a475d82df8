import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };

const root = resolve(import.meta.dirname, '../..');
const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/**
 * Every package `npm ci` installs whose engines range leaves out `nodeVersion` (what npm warns about as EBADENGINE).
 */
function packagesRefusing(nodeVersion: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !Array.isArray(entry.engines) && typeof entry.engines?.node === 'string')
    .filter(([, entry]) => !semver.satisfies(nodeVersion, (entry.engines as { node: string }).node))
    .map(
      ([path, entry]) =>
        `${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} needs node ${(entry.engines as { node: string }).node}`,
    );
}

describe('the Node floor in package.json', () => {
  const floor = semver.minVersion(packageJson.engines.node)!.version;

  it(`every package npm ci installs, benchmark-only ones included, supports Node ${floor}`, () => {
    expect(floor).toBe('20.19.0');
    expect(packagesRefusing(floor)).toEqual([]);
  });

  it('the check does see packages that need a newer Node', () => {
    expect(packagesRefusing('18.0.0').length).toBeGreaterThan(0);
  });
});
