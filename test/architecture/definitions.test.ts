import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * One idea per room (ARCHITECTURE.md): a definition that runs past 150 lines holds two ideas, and two files of one
 * name in a layer make a reader ask which one is meant. Checked over the library and the emulator.
 */
const root = resolve(import.meta.dirname, '../..');
const LAYERS = ['protocol', 'contract', 'worker', 'client', 'emulator', 'tooling'];
export const MAX_DEFINITION_LINES = 150;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory())
      return ['node_modules', 'dist'].includes(name) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every function, method and class of a source text longer than `max` lines, as `path:line name (n lines)`. */
export function longDefinitions(path: string, text: string, max = MAX_DEFINITION_LINES): string[] {
  const file = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.ES2022,
    true,
    path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found: string[] = [];
  const nameOf = (node: ts.Node): string => {
    const named = node as { name?: ts.Node };
    if (named.name !== undefined) return named.name.getText(file);
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(file);
    return '(anonymous)';
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push(`${path}:${start + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** File names that occur more than once within one layer (index.ts, the entry of each folder, excepted). */
export function repeatedNames(paths: string[]): string[] {
  const byLayer = new Map<string, Map<string, string[]>>();
  for (const path of paths) {
    const layer = path.split('/')[0]!;
    const name = basename(path).replace(/\.tsx?$/, '');
    if (name === 'index') continue;
    const names = byLayer.get(layer) ?? new Map<string, string[]>();
    names.set(name, [...(names.get(name) ?? []), path]);
    byLayer.set(layer, names);
  }
  return [...byLayer.values()].flatMap((names) =>
    [...names.values()].filter((group) => group.length > 1).map((group) => group.join(' and ')),
  );
}

describe('one idea per room', () => {
  const files = LAYERS.flatMap(sourceFiles);

  it(`no function, method or class of the library or the emulator runs past ${MAX_DEFINITION_LINES} lines`, () => {
    expect(files.flatMap((path) => longDefinitions(path, readFileSync(join(root, path), 'utf8')))).toEqual([]);
  });

  // The broker and the tab side, where a reader looks for a part by its file's name. (protocol/'s resources/ and
  // endpoints/, and the emulator's routes/ and state/, mirror each other on purpose: one file per resource in each.)
  it('no two files of worker/ or of client/ share a name', () => {
    expect(repeatedNames(files.filter((path) => /^(worker|client)\//.test(path)))).toEqual([]);
  });

  it('at most 12 files at the top of worker/ and of client/', () => {
    for (const layer of ['worker', 'client']) {
      const top = readdirSync(join(root, layer)).filter((name) => /\.tsx?$/.test(name));
      expect(top.length, `${layer}/: ${top.join(', ')}`).toBeLessThanOrEqual(12);
    }
  });

  it('the checks find what they look for', () => {
    const long = `function long() {\n${'  call();\n'.repeat(151)}}\nclass Short {\n  m() {}\n}\n`;
    expect(longDefinitions('x.ts', long)).toEqual(['x.ts:1 long (153 lines)']);
    expect(longDefinitions('x.ts', long, 200)).toEqual([]);
    expect(
      repeatedNames([
        'worker/a/entry.ts',
        'worker/b/entry.ts',
        'client/entry.ts',
        'worker/index.ts',
        'worker/c/index.ts',
      ]),
    ).toEqual(['worker/a/entry.ts and worker/b/entry.ts']);
  });
});
