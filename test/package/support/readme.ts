import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './scratch.js';

/**
 * A fenced ts/tsx block: `path` is the file-name comment of a block that starts with one (`// src/main.tsx`), which
 * `code` leaves out.
 */
export interface CodeBlock {
  lang: 'ts' | 'tsx';
  path: string | null;
  code: string;
}

/** The fenced ts/tsx blocks of Markdown text, in order. */
export function codeBlocksIn(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```(ts|tsx)\n([\s\S]*?)^```$/gm)].map((match) => {
    const code = match[2]!;
    const path = /^\/\/ ([\w./-]+\.tsx?)\n/.exec(code)?.[1] ?? null;
    return { lang: match[1] as 'ts' | 'tsx', path, code: path === null ? code : code.slice(code.indexOf('\n') + 1) };
  });
}

/** The fenced ts/tsx blocks of a Markdown file of this repository. */
export const codeBlocks = (markdownPath: string): CodeBlock[] =>
  codeBlocksIn(readFileSync(join(repoRoot, markdownPath), 'utf8'));

/**
 * The code blocks of a Markdown file that begin with a file-name comment (`// src/main.tsx`), by
 * file name: the package tests write exactly these files, so the page shows what they run.
 */
export function markdownFiles(markdownPath: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const { path, code } of codeBlocks(markdownPath)) {
    if (path === null) continue;
    if (path in files) throw new Error(`${markdownPath} has two blocks for ${path}.`);
    files[path] = code;
  }
  return files;
}

/** The README's quick start (vite.config.ts, src/main.tsx). */
export const readmeFiles = (): Record<string, string> => markdownFiles('README.md');

/** The getting-started app (vite.config.ts, src/main.tsx) and the server code of the docs (server.ts). */
export const guideFiles = (): Record<string, string> => ({
  ...markdownFiles('docs/guide/getting-started.md'),
  ...markdownFiles('docs/guide/server.md'),
});

/**
 * The examples run against the emulator as they are: their base URL (`http://127.0.0.1:8102`)
 * becomes the test emulator's, and its demo project's fixed id and key must be the ones given.
 */
export function fillPlaceholders(
  code: string,
  values: { baseUrl: string; projectId: string; publishableClientKey?: string },
): string {
  const mustHold = [
    `projectId: '${values.projectId}'`,
    ...(values.publishableClientKey === undefined ? [] : [`publishableClientKey: '${values.publishableClientKey}'`]),
  ];
  for (const text of mustHold)
    if (!code.includes(text)) throw new Error(`The example should contain ${text}, the emulator's demo project.`);
  const baseUrl = /baseUrl: 'http:\/\/127\.0\.0\.1:8102',/;
  if (code.split(baseUrl).length !== 2)
    throw new Error(`The example should contain baseUrl: 'http://127.0.0.1:8102' exactly once.`);
  return code.replace(baseUrl, `baseUrl: ${JSON.stringify(values.baseUrl)},`);
}
