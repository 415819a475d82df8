import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, runToEnd, secondsSince } from './processes.js';
import { PINNED_COMMIT, SUITE_DIR, SUITE_FILES } from './suite.js';

/**
 * The suite's work folder: `apps/e2e`, the workspace package it imports (`packages/stack-shared`, as
 * source), the mock OAuth server (`apps/mock-oauth-server`) and the root's test configuration, exported
 * from a fetched stack-auth/stack-auth at the pinned commit, and installed with the pnpm release and
 * lockfile the repository pins. Nothing of it is ever copied into this repository (AGPL-3.0).
 *
 * Only what the 37 files need is installed: the workspace lists these three packages, `apps/e2e` drops
 * the dependencies of its other suites (`@stackframe/js`, which upstream generates from a template,
 * Convex, Postgres), `stack-shared` its build tools. Instead of building `stack-shared` (a typed
 * bundle, minutes on two cores), the suite's own config is wrapped to read its sources, transformed
 * as its build transforms them.
 */

const EXPORTED_PATHS = [
  'apps/e2e',
  'apps/mock-oauth-server',
  'packages/stack-shared',
  'vitest.shared.ts',
  'package.json',
  'pnpm-lock.yaml',
];

/** The root's test tools, as the upstream root pins them. */
const ROOT_TOOLS = ['vitest', '@vitejs/plugin-react', 'vite-tsconfig-paths', 'typescript'];

const MARKER = '.authbroker-service-suite';

type PackageJson = Record<string, unknown> & {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  packageManager?: string;
};

function readJson(file: string): PackageJson {
  return JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function without(record: Record<string, string> | undefined, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).filter(([name]) => !names.includes(name)));
}

/** The upstream `package.json`s, trimmed to what the 37 files need. */
function trimPackages(dir: string): string {
  const root = readJson(join(dir, 'package.json'));
  const tools = Object.fromEntries(ROOT_TOOLS.map((name) => [name, root.devDependencies?.[name] ?? 'missing']));
  if (Object.values(tools).includes('missing'))
    throw new Error(`the upstream root package.json no longer pins ${ROOT_TOOLS.join(', ')}`);
  writeJson(join(dir, 'package.json'), {
    name: 'stack-auth-service-suite',
    private: true,
    packageManager: root.packageManager,
    devDependencies: tools,
    // The overrides only: the one patched package is the backend's, which is not installed here.
    pnpm: { overrides: (root.pnpm as { overrides?: unknown } | undefined)?.overrides ?? {} },
  });
  const e2e = readJson(join(dir, 'apps/e2e/package.json'));
  writeJson(join(dir, 'apps/e2e/package.json'), {
    ...e2e,
    dependencies: without(e2e.dependencies, ['@stackframe/js', 'convex']),
    devDependencies: without(e2e.devDependencies, ['pg', '@types/pg', '@types/js-beautify']),
  });
  const shared = readJson(join(dir, 'packages/stack-shared/package.json'));
  delete shared.devDependencies;
  writeJson(join(dir, 'packages/stack-shared/package.json'), shared);
  writeFileSync(
    join(dir, 'pnpm-workspace.yaml'),
    'packages:\n  - apps/e2e\n  - apps/mock-oauth-server\n  - packages/stack-shared\n',
  );
  const pnpm = /^pnpm@(\d+\.\d+\.\d+)$/.exec(root.packageManager ?? '')?.[1];
  if (pnpm === undefined) throw new Error(`the upstream root pins no pnpm release ("${root.packageManager}")`);
  return pnpm;
}

/**
 * The suite's config, wrapped: `@stackframe/stack-shared/dist/*` read from its sources (with the two
 * replacements its build makes), only the lane's files, the lane's reporter, `workers` workers.
 */
function writeWrappedConfig(dir: string): void {
  const files = SUITE_FILES.map((file) => `${SUITE_DIR}/${file}`);
  writeFileSync(
    join(dir, 'apps/e2e/vitest.service-suite.config.ts'),
    `// Written by authbroker's scripts/serviceSuite/workspace.ts: the suite's own config, run over stack-shared's sources.
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'vitest/config';
import upstream from './vitest.config';

const sharedSources = fileURLToPath(new URL('../../packages/stack-shared/src/', import.meta.url));
const sharedVersion = ${JSON.stringify(`js @stackframe/stack-shared@${readJson(join(dir, 'packages/stack-shared/package.json')).version as string}`)};
const workers = Number(process.env.SERVICE_SUITE_WORKERS ?? '2');

const config = mergeConfig(upstream, {
  resolve: {
    alias: [
      { find: /^@stackframe\\/stack-shared\\/dist\\/(.*)$/, replacement: \`\${sharedSources}$1\` },
      { find: /^@stackframe\\/stack-shared$/, replacement: \`\${sharedSources}index.ts\` },
    ],
  },
  plugins: [
    {
      name: 'stack-shared-as-built',
      transform(code: string, id: string) {
        if (!id.startsWith(sharedSources)) return null;
        return code
          .replace(/import\\.meta\\.vitest/g, 'undefined')
          .replace(/STACK_COMPILE_TIME_CLIENT_PACKAGE_VERSION_SENTINEL/g, sharedVersion);
      },
    },
  ],
});
config.test.include = ${JSON.stringify(files, null, 2).replace(/\n/g, '\n  ')};
config.test.includeSource = [];
// The suite's own limit (50 s a test with CI set) unless SERVICE_SUITE_TEST_TIMEOUT (ms) raises it for a slow machine.
if (process.env.SERVICE_SUITE_TEST_TIMEOUT) config.test.testTimeout = Number(process.env.SERVICE_SUITE_TEST_TIMEOUT);
config.test.maxWorkers = workers;
config.test.minWorkers = 1;
export default config;
`,
  );
}

/** The work folder at the pinned commit, installed; reused when a previous run left it complete. */
export async function prepareWorkspace(dir: string, artifacts: string): Promise<{ seconds: number; reused: boolean }> {
  const started = performance.now();
  const marker = join(dir, MARKER);
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === PINNED_COMMIT) {
    writeWrappedConfig(dir);
    return { seconds: secondsSince(started), reused: true };
  }
  const gitDir = process.env.GIT_DIR_UPSTREAM ?? '/work/.mirror/stack-auth+stack-auth/repo';
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${PINNED_COMMIT}^{commit}`], { stdio: 'ignore' });
  } catch {
    throw new Error(
      `commit ${PINNED_COMMIT} is not in ${gitDir}: set GIT_DIR_UPSTREAM to the git directory of a fetched stack-auth/stack-auth (DEVELOPERS.md)`,
    );
  }
  log(`exporting stack-auth ${PINNED_COMMIT.slice(0, 12)} (apps/e2e and what it needs) into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('bash', [
    '-c',
    'git --git-dir="$0" archive "$1" -- "${@:3}" | tar -x -C "$2"',
    gitDir,
    PINNED_COMMIT,
    dir,
    ...EXPORTED_PATHS,
  ]);
  const pnpm = trimPackages(dir);
  writeWrappedConfig(dir);
  log(`installing with pnpm ${pnpm} (log: ${artifacts}install.log)`);
  const code = await runToEnd(
    'npx',
    ['-y', `pnpm@${pnpm}`, 'install', '--no-frozen-lockfile', '--ignore-scripts', '--reporter=append-only'],
    {
      cwd: dir,
      env: {
        ...process.env,
        npm_config_store_dir: join(artifacts, 'pnpm-store'),
        CI: 'true',
      },
      logFile: join(artifacts, 'install.log'),
    },
  );
  if (code !== 0) throw new Error(`pnpm install failed (exit ${code}); see ${artifacts}install.log`);
  writeFileSync(marker, `${PINNED_COMMIT}\n`);
  return { seconds: secondsSince(started), reused: false };
}
