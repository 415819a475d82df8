/**
 * The demo extension built the way an app builds one: the background and the pages in one build
 * with code-splitting on (Vite's library build with several entries, esbuild with `splitting:
 * true`). An MV3 service worker may not call import(), so the background and every chunk it loads
 * must have none: `authbroker/extension` takes OAuth's steps from its own script and runs no
 * passkey ceremony. Session.test.ts runs the Vite build in Chromium and Firefox.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildExtension } from '../../scripts/buildExtension.mjs';

interface Module {
  file: string;
  staticImports: string[];
  dynamicImports: number;
  text: string;
}

/**
 * A built file's static imports (resolved to files) and how many import() expressions its code holds (comments and
 * strings do not count).
 */
function readModule(file: string): Module {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const staticImports: string[] = [];
  let dynamicImports = 0;
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      staticImports.push(resolve(dirname(file), node.moduleSpecifier.text));
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) dynamicImports += 1;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, staticImports, dynamicImports, text };
}

/** An entry and every file it imports statically: all the code the browser loads with it. */
function withStaticImports(entry: string): Module[] {
  const seen = new Map<string, Module>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const module = readModule(file);
    seen.set(file, module);
    module.staticImports.forEach(visit);
  };
  visit(entry);
  return [...seen.values()];
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

for (const bundler of ['vite', 'esbuild'] as const) {
  describe(`the demo extension built by ${bundler} with code-splitting`, () => {
    it('the background and every chunk it loads hold no import(); the background shares chunks with the pages', async () => {
      const outdir = mkdtempSync(join(tmpdir(), `authbroker-split-${bundler}-`));
      dirs.push(outdir);
      await buildExtension({ outdir, bundler, driver: 'http://127.0.0.1:9' });
      const background = withStaticImports(join(outdir, 'background.js'));
      const popup = withStaticImports(join(outdir, 'popup.js'));
      // Split for real: the background loads a chunk the popup loads too (else this proves nothing).
      expect(background.length).toBeGreaterThan(1);
      expect(
        background.some(
          (module) => module.file !== join(outdir, 'background.js') && popup.some((page) => page.file === module.file),
        ),
      ).toBe(true);
      expect(background.filter((module) => module.dynamicImports > 0).map((module) => module.file)).toEqual([]);
      // The broker, the web-auth flow and OAuth's steps are in there, all loaded statically.
      const code = background.map((module) => module.text).join('\n');
      for (const name of ['hostExtensionBroker', 'launchWebAuthFlow', 'oauthMethods']) expect(code).toContain(name);
    });
  });
}

describe('the pages of the Vite build', () => {
  it('ship no broker: the popup and the options page load only the client', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'authbroker-split-pages-'));
    dirs.push(outdir);
    await buildExtension({ outdir });
    for (const page of ['popup.js', 'options.js']) {
      const code = withStaticImports(join(outdir, page))
        .map((module) => module.text)
        .join('\n');
      expect(code).toContain('createExtensionClient');
      expect(code, page).not.toContain('hostExtensionBroker');
      expect(code, page).not.toContain('createBroker(');
    }
  });
});
