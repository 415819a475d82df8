import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { troubleshootingPage } from '../../scripts/docs/troubleshooting.js';
import { codeBlocks, codeBlocksIn, type CodeBlock } from './support/readme.js';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

/**
 * Issue 34: nothing in the docs can rot. Every ts/tsx block of every page (the README, the
 * hand-written pages and the generated troubleshooting page) is type-checked, strict, against the
 * packed tarballs as an app installs them. A block that starts with a file name (`// src/main.tsx`)
 * is that file of its folder's example app (the sign-in pages share one, so that one page's
 * component may import another's); any other block is a module of its own, which may use the
 * `client` (a BrokerClient), `app` (a ServerApp) and `emulator` the pages speak of.
 */
function markdownPages(dir = join(repoRoot, 'docs')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name.startsWith('.') || name === 'reference' || name === 'public') return [];
    if (statSync(path).isDirectory()) return markdownPages(path);
    return name.endsWith('.md') && name !== 'troubleshooting.md' ? [relative(repoRoot, path)] : [];
  });
}

const GLOBALS = `import type { BrokerClient } from 'authbroker/client';
import type { ServerApp } from 'authbroker/server';
import type { RunningEmulator } from 'authbroker-emulator';

declare global {
  /** The client of the getting-started guide. */
  const client: BrokerClient;
  /** The server app of the server-code guide. */
  const app: ServerApp;
  /** An emulator started in a test (startEmulator). */
  const emulator: RunningEmulator;
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'ESNext',
    moduleResolution: 'bundler',
    moduleDetection: 'force',
    jsx: 'react-jsx',
    strict: true,
    noEmit: true,
    // The package's own declarations are checked with skipLibCheck off by the newcomer and install tests.
    skipLibCheck: true,
    allowImportingTsExtensions: false,
    types: ['node', 'vite/client', 'chrome'],
  },
  include: ['**/*.ts', '**/*.tsx'],
  exclude: ['node_modules'],
};

describe('every code block of the docs', () => {
  let app = '';
  const written: string[] = [];

  beforeAll(async () => {
    app = await scratchApp('docs-code', {
      tarballs: ['authbroker', 'emulator'],
      dependencies: [
        ...new Set([
          ...Object.keys(declaredDependencies(repoRoot)),
          ...Object.keys(declaredDependencies(join(repoRoot, 'emulator'))),
          'react',
          'react-dom',
          'otpauth',
        ]),
      ],
      devDependencies: [
        'vite',
        '@vitejs/plugin-react',
        'typescript',
        '@types/react',
        '@types/react-dom',
        '@types/node',
        'vitest',
        '@playwright/test',
        '@types/chrome',
      ],
    });
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify(TSCONFIG, null, 2),
      'globals.d.ts': GLOBALS,
    };
    const sources: Array<[string, CodeBlock[]]> = [
      ['README.md', codeBlocks('README.md')],
      ...markdownPages().map((page) => [page, codeBlocks(page)] as [string, CodeBlock[]]),
    ];
    sources.push(['docs/guide/troubleshooting.md', codeBlocksIn(troubleshootingPage())]);
    for (const [page, blocks] of sources) {
      // The pages of a section build one app together (the MFA page imports the password page's
      // component); each guide is an app of its own (a web app's and an extension's both have a vite.config.ts).
      const section = dirname(page).replace(/^docs\/?/, '');
      const folder =
        page === 'README.md'
          ? 'readme'
          : section === 'guide'
            ? page.replace(/^docs\//, '').replace(/\.md$/, '')
            : section || 'home';
      blocks.forEach((block, index) => {
        const path =
          block.path === null
            ? `snippets/${page.replace(/[/.]/g, '_')}-${index}.${block.lang}`
            : `apps/${folder}/${block.path}`;
        if (path in files) throw new Error(`Two docs blocks write ${path} (${page}).`);
        files[path] = block.code;
        written.push(`${path} ← ${page}`);
      });
    }
    writeFiles(app, files);
  });

  it('there are blocks from every page that has code, the README and the troubleshooting page included', () => {
    expect(written.length).toBeGreaterThan(40);
    expect(written.some((line) => line.endsWith('← README.md'))).toBe(true);
    expect(written.some((line) => line.endsWith('← docs/guide/troubleshooting.md'))).toBe(true);
    for (const page of [
      'docs/sign-in/password.md',
      'docs/sign-in/one-time-code.md',
      'docs/sign-in/magic-link.md',
      'docs/sign-in/passkeys.md',
      'docs/sign-in/oauth.md',
      'docs/sign-in/mfa.md',
      'docs/guide/testing.md',
    ]) {
      expect(
        written.some((line) => line.endsWith(`← ${page}`)),
        page,
      ).toBe(true);
    }
  });

  it('type-checks, strict, against the packed packages', async () => {
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });

  it('the check does fail on a block that calls what the package does not have', async () => {
    writeFiles(app, {
      'snippets/wrong.ts': "await client.signInWithCredential({ email: 'a@example.com', password: 'p' });\n",
    });
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app);
    writeFiles(app, { 'snippets/wrong.ts': 'export {};\n' });
    expect(checked.code).not.toBe(0);
    expect(checked.stdout).toContain("Property 'signInWithCredential' does not exist on type 'BrokerClient'");
  });
});
