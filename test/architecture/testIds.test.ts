import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { T, accountNav, accountSection, adminNav, adminSection, oauthButton } from '../e2e/support/ids.js';

/**
 * The end-to-end tests keep their own copy of the demo's test ids (nothing outside demo/ imports it).
 * This is what keeps the copy honest: read as text, the demo must still define every id the tests
 * drive, under the same name, and still put that name on screen somewhere.
 */
const DEMO_SOURCE = 'demo/src';

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(/\.tsx?$/.test(entry.name) ? [path] : []);
    }),
  );
  return nested.flat();
}

/** `name: 'value'` pairs of the demo's `T` object, read from its source. */
function definedIds(source: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const match of source.matchAll(/^\s*([A-Za-z][A-Za-z0-9]*)\s*:\s*['"]([a-z0-9-]+)['"]\s*,?\s*$/gm)) {
    ids.set(match[1]!, match[2]!);
  }
  return ids;
}

describe('the e2e copy of the demo’s test ids', () => {
  it('every id the tests use is defined by the demo under the same name, and used by a component', async () => {
    const testIds = await readFile(join(DEMO_SOURCE, 'testids.ts'), 'utf8');
    const defined = definedIds(testIds);
    expect(defined.size).toBeGreaterThan(50);
    const components = (await sourceFiles(DEMO_SOURCE)).filter((path) => !path.endsWith('testids.ts'));
    const componentText = (await Promise.all(components.map((path) => readFile(path, 'utf8')))).join('\n');
    const problems: string[] = [];
    for (const [name, value] of Object.entries(T)) {
      if (defined.get(name) !== value)
        problems.push(
          `T.${name} = '${value}' but the demo has ${defined.has(name) ? `'${defined.get(name)}'` : 'no such id'}`,
        );
      else if (!componentText.includes(`T.${name}`))
        problems.push(`T.${name} is defined but no demo component renders it`);
    }
    expect(problems).toEqual([]);
  });

  it('the id builders make the same ids as the demo’s', async () => {
    // Compared with runs of white space made one, so that the formatter may break a line anywhere.
    const testIds = (await readFile(join(DEMO_SOURCE, 'testids.ts'), 'utf8'))
      .replace(/\s+/g, ' ')
      .replace(/\[ /g, '[')
      .replace(/,? \]/g, ']');
    expect(testIds).toContain('export const oauthButton = (providerId: string) => `oauth-button-${providerId}`;');
    expect(testIds).toContain('export const accountNav = (section: AccountSectionId) => `account-nav-${section}`;');
    expect(testIds).toContain(
      'export const accountSection = (section: AccountSectionId) => `account-section-${section}`;',
    );
    expect(testIds).toContain('export const adminNav = (section: AdminSectionId) => `admin-nav-${section}`;');
    expect(testIds).toContain('export const adminSection = (section: AdminSectionId) => `admin-section-${section}`;');
    expect(testIds).toContain(
      "export const adminSections = ['settings', 'api-keys', 'email-templates', 'permissions', 'metrics', 'emails', 'webhooks'] as const;",
    );
    expect([
      oauthButton('github'),
      accountNav('mfa'),
      accountSection('sessions'),
      adminNav('api-keys'),
      adminSection('settings'),
    ]).toEqual([
      'oauth-button-github',
      'account-nav-mfa',
      'account-section-sessions',
      'admin-nav-api-keys',
      'admin-section-settings',
    ]);
  });
});
