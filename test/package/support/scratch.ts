import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const repoModules = join(repoRoot, 'node_modules');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws for a non-zero exit (tests look at the code). */
export async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message?: string };
    // A command that could not start at all (ENOENT) has a string code and no output of its own.
    if (typeof failed.code !== 'number')
      return { code: 1, stdout: failed.stdout ?? '', stderr: failed.stderr || (failed.message ?? String(error)) };
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A dependency linked from this repository's node_modules (what `npm ci` installed there). */
function linkTo(name: string): string {
  return `file:${join(repoModules, name)}`;
}

/**
 * A fresh app folder with `packages` installed the way a user installs them, but without a
 * registry: the packed tarballs themselves, and every other package linked from this repository's
 * node_modules (what `npm ci` installed). The packages' own dependencies resolve to those links.
 */
export async function scratchApp(
  name: string,
  options: { tarballs: Array<'authbroker' | 'emulator'>; dependencies: string[]; devDependencies?: string[] },
): Promise<string> {
  const { scratch, ...tarballs } = inject('packages');
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const dependencies: Record<string, string> = {};
  for (const tarball of options.tarballs)
    dependencies[tarball === 'authbroker' ? 'authbroker' : 'authbroker-emulator'] = `file:${tarballs[tarball]}`;
  for (const dependency of options.dependencies) dependencies[dependency] = linkTo(dependency);
  const devDependencies = Object.fromEntries(
    (options.devDependencies ?? []).map((dependency) => [dependency, linkTo(dependency)]),
  );
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, private: true, type: 'module', dependencies, devDependencies }, null, 2)}\n`,
  );
  const installed = await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    dir,
  );
  if (installed.code !== 0) throw new Error(`npm install in ${dir} failed:\n${installed.stderr}`);
  return dir;
}

/** The dependencies a package.json declares. */
export function declaredDependencies(packageDir: string): Record<string, string> {
  return (
    (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> })
      .dependencies ?? {}
  );
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
