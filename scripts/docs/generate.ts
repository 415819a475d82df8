/**
 * `npm run docs:generate`: the generated pages of the docs site, the API reference (TypeDoc,
 * typedoc.config.mjs) and the troubleshooting page (./troubleshooting.ts), made again only when
 * what they are made from has changed. TypeDoc takes most of a minute, and `npm run docs` ran it
 * every time before serving (52 s in issue 40); now an unchanged tree serves at once. What they are
 * made from: the packages' sources, the docs' error advice, the generators and their settings,
 * and the versions of TypeDoc and its plugins. `--force` makes them again regardless.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The folders TypeDoc reads (tsconfig.typedoc.json's include) and the files that say how. */
const SOURCE_FOLDERS = ['protocol', 'contract', 'emulator', 'worker', 'client', 'tooling'];
const SETTINGS = [
  'typedoc.config.mjs',
  'tsconfig.typedoc.json',
  'tsconfig.base.json',
  'package.json',
  'emulator/package.json',
  'docs/errors/advice.ts',
  'scripts/docs/generate.ts',
  'scripts/docs/troubleshooting.ts',
  'scripts/docs/typedocAnchors.mjs',
];
const TOOLS = ['typedoc', 'typedoc-plugin-markdown', 'typedoc-vitepress-theme', 'typescript'];

/** What the generated pages are, and where this run's fingerprint is kept (inside the git-ignored reference). */
const OUTPUTS = ['docs/reference/typedoc-sidebar.json', 'docs/guide/troubleshooting.md'];
const STAMP = 'docs/reference/.generated-from';

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|json)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** A hash of every input, by path and content: any edit, added or removed file changes it. */
export function inputsFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of [...SOURCE_FOLDERS.flatMap((dir) => sourceFiles(dir)), ...SETTINGS].sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
  }
  for (const tool of TOOLS) {
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', tool, 'package.json'), 'utf8')) as {
      version: string;
    };
    hash.update(`${tool}@${manifest.version}\0`);
  }
  return hash.digest('hex');
}

/** Whether the generated pages are there and were made from exactly these inputs. */
export function upToDate(fingerprint: string): boolean {
  const stamp = join(root, STAMP);
  return (
    OUTPUTS.every((file) => existsSync(join(root, file))) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === fingerprint
  );
}

async function generate(force: boolean): Promise<void> {
  const started = Date.now();
  const fingerprint = inputsFingerprint();
  if (!force && upToDate(fingerprint)) {
    console.log(
      `The API reference and troubleshooting page are up to date (${Date.now() - started} ms); --force makes them again.`,
    );
    return;
  }
  const typedoc = spawnSync(join(root, 'node_modules', '.bin', 'typedoc'), [], { cwd: root, stdio: 'inherit' });
  if (typedoc.status !== 0) {
    // TypeDoc has said why, above.
    process.exitCode = typedoc.status ?? 1;
    return;
  }
  const { troubleshootingPage } = await import('./troubleshooting.js');
  writeFileSync(join(root, OUTPUTS[1]!), troubleshootingPage());
  // Written last: a run stopped halfway leaves no stamp, so the next one starts again.
  writeFileSync(join(root, STAMP), `${fingerprint}\n`);
  console.log(
    `Generated the API reference and ${relative(root, join(root, OUTPUTS[1]!))} in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await generate(process.argv.includes('--force'));
