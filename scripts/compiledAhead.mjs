// Compiled ahead: the functions a page runs before its first frame, marked by the build.
//
// V8 compiles a function the first time it is called, on the main thread, unless it is a
// parenthesized function expression, `(function name() {…})`, which it compiles with the script
// (docs/decisions/0030-compiled-ahead.md). The source keeps plain declarations and methods, so that
// readers and tools follow it; every build that ships or measures the tab side rewrites the ones
// listed here into that form: tsc's emit of dist/ (`emitWithCompiledAhead`), and esbuild's bundles
// (`compiledAheadPlugin`). test/client/compiledAhead.test.ts checks from V8's own log that they are
// compiled with the script.
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Per source file, the names of the functions to compile ahead: function declarations (at any
 * depth) and methods of object literals.
 */
export const COMPILED_AHEAD = {
  'protocol/credentials.ts': [
    'isSecretKey',
    'refuseSecretsInBrowserOptions',
    'checkProjectId',
    'checkPublishableClientKey',
  ],
  'contract/brokerKey.ts': ['brokerKeyOf'],
  'contract/queryKey.ts': ['hashQueryKey'],
  'contract/webExtension.ts': ['extensionApi', 'inContentScript'],
  'contract/keptShapes.ts': ['fitsShape'],
  'client/kept/keptCopyReader.ts': [
    'storage',
    'isRecord',
    'dropMalformedEntries',
    'fitsKind',
    'persistedSnapshots',
    'dropped',
    'keeps',
    'hasCopy',
    'read',
    'load',
  ],
  'client/connectOptions.ts': ['isHttpUrl', 'checkConnectOptions', 'workerName'],
  'client/queryStore.ts': ['createQueryStore', 'seed', 'close', 'subscribe', 'getSnapshot', 'open'],
  'client/createClientOn.ts': ['createClientOn'],
  'client/connect/brokerLink.ts': ['linkToBroker'],
  'client/pageClient.ts': ['pageParts'],
};

/** The names to mark in a file (a path under the repository or an absolute one), or undefined. */
export function compiledAheadNames(fileName) {
  const path = relative(root, fileName).split('\\').join('/');
  const names = COMPILED_AHEAD[path.replace(/\.js$/, '.ts')];
  return names === undefined ? undefined : new Set(names);
}

/** A TypeScript transformer that turns the named declarations and methods into parenthesized function expressions. */
export function compiledAheadTransformer(names) {
  return (context) => {
    const { factory } = context;
    const modifiersOf = (node, keep) => (ts.getModifiers(node) ?? []).filter((m) => keep.includes(m.kind));
    const asExpression = (node) =>
      factory.createParenthesizedExpression(
        ts.setTextRange(
          factory.createFunctionExpression(
            modifiersOf(node, [ts.SyntaxKind.AsyncKeyword]),
            node.asteriskToken,
            factory.createIdentifier(node.name.text),
            node.typeParameters,
            node.parameters,
            node.type,
            node.body,
          ),
          node,
        ),
      );
    const visit = (node) => {
      const visited = ts.visitEachChild(node, visit, context);
      if (ts.isFunctionDeclaration(visited) && visited.name && visited.body && names.has(visited.name.text)) {
        const declaration = factory.createVariableDeclaration(
          visited.name.text,
          undefined,
          undefined,
          asExpression(visited),
        );
        const statement = factory.createVariableStatement(
          modifiersOf(visited, [ts.SyntaxKind.ExportKeyword]),
          factory.createVariableDeclarationList([declaration], ts.NodeFlags.Const),
        );
        return ts.setOriginalNode(ts.setTextRange(statement, node), node);
      }
      if (
        ts.isMethodDeclaration(visited) &&
        ts.isObjectLiteralExpression(node.parent) &&
        ts.isIdentifier(visited.name) &&
        visited.body &&
        names.has(visited.name.text)
      ) {
        const property = factory.createPropertyAssignment(visited.name.text, asExpression(visited));
        return ts.setOriginalNode(ts.setTextRange(property, node), node);
      }
      return visited;
    };
    return (sourceFile) => ts.visitNode(sourceFile, visit);
  };
}

/**
 * An esbuild plugin that marks the listed functions in the sources it bundles: the worker scripts,
 * the in-page bundle, the benchmarks' pages and the tests that measure them.
 */
export const compiledAheadPlugin = {
  name: 'authbroker-compiled-ahead',
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      const names = compiledAheadNames(args.path);
      if (names === undefined) return undefined;
      const source = await readFile(args.path, 'utf8');
      const output = ts.transpileModule(source, {
        fileName: args.path,
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          verbatimModuleSyntax: true,
          inlineSourceMap: true,
          inlineSources: true,
          jsx: ts.JsxEmit.ReactJSX,
        },
        transformers: { before: [compiledAheadTransformer(names)] },
      });
      return { contents: output.outputText, loader: 'js' };
    });
  },
};

/**
 * Emits a TypeScript project (tsconfig path) as tsc would, with the listed functions marked.
 * Throws with tsc's own diagnostics when the project does not compile.
 */
export function emitWithCompiledAhead(configPath) {
  const config = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
  });
  const before = (context) => {
    return (sourceFile) => {
      const names = compiledAheadNames(sourceFile.fileName);
      return names === undefined ? sourceFile : compiledAheadTransformer(names)(context)(sourceFile);
    };
  };
  const result = program.emit(undefined, undefined, undefined, false, { before: [before] });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
    throw new Error(ts.formatDiagnostics(diagnostics, host));
  }
}
