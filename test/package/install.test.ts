import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { guideFiles } from './support/readme.js';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

const rootDependencies = Object.keys(declaredDependencies(repoRoot));
const emulatorDependencies = Object.keys(declaredDependencies(join(repoRoot, 'emulator')));
/** What only the emulator needs (jose is shared: authbroker/server verifies tokens with it). */
const emulatorOnly = emulatorDependencies.filter((name) => !rootDependencies.includes(name));

/** Every package `npm install` would put in the tree for `names`, following dependencies as installed here. */
function installClosure(names: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string, from: string) => {
    // Node's lookup: the nearest node_modules up from the dependent package.
    let dir = from;
    let manifest = '';
    for (;;) {
      const candidate = join(dir, 'node_modules', name, 'package.json');
      if (existsSync(candidate)) {
        manifest = candidate;
        break;
      }
      const parent = join(dir, '..');
      if (parent === dir) throw new Error(`${name} is not installed (needed from ${from})`);
      dir = parent;
    }
    const key = manifest;
    if (seen.has(key)) return;
    seen.add(key);
    const { dependencies = {}, optionalDependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies }))
      visit(dependency, join(manifest, '..'));
  };
  for (const name of names) visit(name, repoRoot);
  return new Set([...seen].map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(path)![1]!));
}

describe('a browser app that installs authbroker', () => {
  let app = '';
  beforeAll(async () => {
    app = await scratchApp('browser-app', {
      tarballs: ['authbroker'],
      dependencies: rootDependencies,
      devDependencies: ['typescript', '@types/node'],
    });
  });

  it("gets none of the emulator's server-side dependencies", () => {
    expect(emulatorOnly).toEqual(expect.arrayContaining(['@simplewebauthn/server', 'otpauth', 'yup']));
    const installed = declaredDependencies(join(app, 'node_modules/authbroker'));
    const tree = installClosure(Object.keys(installed));
    expect(tree.size).toBeGreaterThan(5);
    expect(emulatorOnly.filter((name) => tree.has(name))).toEqual([]);
    expect(emulatorOnly.filter((name) => existsSync(join(app, 'node_modules', name)))).toEqual([]);
    expect(existsSync(join(app, 'node_modules/authbroker-emulator'))).toBe(false);
  });

  it('authbroker/emulator without authbroker-emulator installed throws a typed error naming the install command', async () => {
    writeFiles(app, {
      'emulator-missing.mjs': `import { startEmulator } from 'authbroker/emulator';
import { ClientError } from 'authbroker';
try {
  await startEmulator({ port: 0 });
  console.log('started?');
} catch (error) {
  console.log(JSON.stringify({ isClientError: error instanceof ClientError, code: error.code, message: error.message }));
}
`,
    });
    const result = await run(process.execPath, ['emulator-missing.mjs'], app);
    expect(result.code).toBe(0);
    const error = JSON.parse(result.stdout) as { isClientError: boolean; code: string; message: string };
    expect(error.isClientError).toBe(true);
    expect(error.code).toBe('PACKAGE_NOT_INSTALLED');
    expect(error.message).toContain('npm install --save-dev authbroker-emulator');
  });

  it("require('authbroker/server') works from CommonJS (Node ≥ 20.19 loads ES modules)", async () => {
    writeFiles(app, {
      'require.cjs': `const server = require('authbroker/server');
const root = require('authbroker');
const app = server.createServerApp({ baseUrl: 'http://127.0.0.1:9', projectId: '00000000-0000-4000-8000-000000000001', secretServerKey: 'ssk_x' });
console.log(JSON.stringify({
  createServerApp: typeof server.createServerApp,
  isKnownError: typeof server.isKnownError,
  sameClass: server.KnownError === root.KnownError,
  verify: typeof app.verifyAccessToken,
}));
`,
    });
    const result = await run(process.execPath, ['require.cjs'], app);
    expect(result.stderr).not.toMatch(/Error/);
    expect(JSON.parse(result.stdout)).toEqual({
      createServerApp: 'function',
      isKnownError: 'function',
      sameClass: true,
      verify: 'function',
    });
  });

  it("a Node-only TypeScript project (no DOM library, skipLibCheck off) type-checks the error helpers and the docs' server code", async () => {
    const server = guideFiles()['server.ts'];
    expect(server, 'docs/guide/server.md has a `// server.ts` block').toBeDefined();
    writeFiles(app, {
      'node-only/tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          types: ['node'],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        include: ['*.ts'],
      }),
      'node-only/errors.ts': `import { InvalidArgumentError, isKnownError, KnownError, type AnyKnownError } from 'authbroker';
import { ClientError, createServerApp, HttpStatusError, NetworkError, ProtocolError, type ServerUserModel } from 'authbroker/server';

export function explain(error: unknown): string {
  if (isKnownError(error, 'USER_EMAIL_ALREADY_EXISTS')) return 'taken';
  if (error instanceof KnownError) return (error as AnyKnownError).code;
  if (error instanceof NetworkError || error instanceof HttpStatusError || error instanceof ProtocolError) return error.code;
  if (error instanceof InvalidArgumentError) return error.argument;
  return error instanceof ClientError ? error.code : 'unknown';
}

export const app = createServerApp({ baseUrl: 'https://api.example.test', projectId: '00000000-0000-4000-8000-000000000001', secretServerKey: 'ssk_x' });
export const firstEmail = async (): Promise<string | null> => ((await app.listUsers({ limit: 1 })).items[0] as ServerUserModel | undefined)?.primaryEmail ?? null;
`,
      'node-only/server.ts': server!,
    });
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['-p', 'node-only'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);

    // The same project does see errors: a wrong field name of the camelCase models fails it.
    writeFiles(app, {
      'node-only/wrong.ts': `import { app } from './errors.js';\nexport const email = async () => (await app.getUser('u')).primary_email;\n`,
    });
    const wrong = await run(join(app, 'node_modules/.bin/tsc'), ['-p', 'node-only'], app);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toContain("Property 'primary_email' does not exist");
  });
});

describe('an app that also installs authbroker-emulator', () => {
  let app = '';
  beforeAll(async () => {
    app = await scratchApp('emulator-app', {
      tarballs: ['authbroker', 'emulator'],
      dependencies: [...new Set([...rootDependencies, ...emulatorDependencies])],
    });
  });

  it('runs the authbroker-emulator bin', async () => {
    const help = await run(join(app, 'node_modules/.bin/authbroker-emulator'), ['--help'], app);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: authbroker-emulator');
    const bad = await run(join(app, 'node_modules/.bin/authbroker-emulator'), ['--port', 'nope'], app);
    expect(bad.code).toBe(2);
  });

  it('starts the emulator from authbroker-emulator and from authbroker/emulator, and it answers', async () => {
    writeFiles(app, {
      'emulator.mjs': `import { startEmulator as direct } from 'authbroker-emulator';
import { startEmulator } from 'authbroker/emulator';
for (const start of [direct, startEmulator]) {
  const em = await start({ port: 0 });
  const { demo } = em.projects;
  const response = await fetch(em.apiUrl + '/projects/current', { headers: { 'x-stack-project-id': demo.id, 'x-stack-access-type': 'client', 'x-stack-publishable-client-key': demo.publishableClientKey } });
  console.log(response.status, (await response.json()).id === demo.id);
  await em.stop();
}
`,
    });
    const result = await run(process.execPath, ['emulator.mjs'], app);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(['200 true', '200 true']);
  });
});
