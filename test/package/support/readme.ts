import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './scratch.js';

/**
 * The README's code blocks that begin with a file-name comment (`// src/main.tsx`), by file name:
 * the package tests write exactly these files, so the README shows what they run.
 */
export function readmeFiles(): Record<string, string> {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const files: Record<string, string> = {};
  for (const match of readme.matchAll(/```(?:ts|tsx)\n\/\/ ([\w./-]+)\n([\s\S]*?)```/g)) {
    const [, path, code] = match;
    if (path! in files) throw new Error(`README.md has two blocks for ${path}.`);
    files[path!] = code!;
  }
  return files;
}

/** The README's placeholders, filled in for a project of the emulator; each must be there. */
export function fillPlaceholders(code: string, values: { baseUrl: string; projectId: string; publishableClientKey?: string }): string {
  const replacements: Array<[string, string]> = [
    ["'https://api.stack-auth.com'", JSON.stringify(values.baseUrl)],
    ["projectId: '…'", `projectId: ${JSON.stringify(values.projectId)}`],
  ];
  if (values.publishableClientKey !== undefined) replacements.push(["'pck_…'", JSON.stringify(values.publishableClientKey)]);
  let filled = code;
  for (const [placeholder, value] of replacements) {
    if (filled.split(placeholder).length !== 2) throw new Error(`The README snippet should contain ${placeholder} exactly once.`);
    filled = filled.replace(placeholder, value);
  }
  return filled;
}
