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

/**
 * The README's examples run against the emulator as they are: its base URL (`http://127.0.0.1:8102`)
 * becomes the test emulator's, and its demo project's fixed id and key must be the ones given.
 */
export function fillPlaceholders(code: string, values: { baseUrl: string; projectId: string; publishableClientKey?: string }): string {
  const mustHold = [`projectId: '${values.projectId}'`, ...(values.publishableClientKey === undefined ? [] : [`publishableClientKey: '${values.publishableClientKey}'`])];
  for (const text of mustHold) if (!code.includes(text)) throw new Error(`The README snippet should contain ${text}, the emulator's demo project.`);
  const baseUrl = "baseUrl: 'http://127.0.0.1:8102'";
  if (code.split(baseUrl).length !== 2) throw new Error(`The README snippet should contain ${baseUrl} exactly once.`);
  return code.replace(baseUrl, `baseUrl: ${JSON.stringify(values.baseUrl)}`);
}
