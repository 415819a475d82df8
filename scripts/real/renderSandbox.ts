/**
 * A stand-in for the code sandbox the backend renders its e-mails in (Freestyle's "run a script"
 * API; with the development key `mock_stack_freestyle_key` the backend calls http://localhost:8222).
 * Without it no e-mail of the backend is ever rendered, so none is sent. It takes
 * `POST /execute/v{1,2,3}/script` with `{ script, config: { nodeModules, envVars } }`, installs the
 * named packages once per set (npm, into `<dir>/<hash>/`), runs the script as an ES module there and
 * answers `{ result }`, the value of its default export (called when it is a function).
 *
 * Loopback only, for the lane's own backend: it runs whatever code that backend sends it.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the backend's e-mail rendering asks for (its js-execution call), installed before the first e-mail. */
export const EMAIL_RENDERING_MODULES: Readonly<Record<string, string>> = {
  arktype: '2.1.20',
  react: '19.1.1',
  'react-dom': '19.1.1',
  '@react-email/components': '1.0.6',
};

export interface RenderSandbox {
  url: string;
  /** Installs a set of packages ahead of the first script that names it. */
  prepare(modules: Readonly<Record<string, string>>): Promise<void>;
  stop(): Promise<void>;
}

export async function startRenderSandbox(options: {
  dir: string;
  port?: number;
  host?: string;
  log?: (line: string) => void;
}): Promise<RenderSandbox> {
  const log = options.log ?? (() => undefined);
  const installs = new Map<string, Promise<string>>();

  function modulesDir(modules: Readonly<Record<string, string>>): Promise<string> {
    const sorted = Object.fromEntries(Object.entries(modules).sort(([a], [b]) => a.localeCompare(b)));
    const hash = createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
    let install = installs.get(hash);
    if (!install) {
      const dir = join(options.dir, hash);
      install = (async () => {
        if (existsSync(join(dir, 'node_modules', '.installed'))) return dir;
        await mkdir(dir, { recursive: true });
        await writeFile(
          join(dir, 'package.json'),
          JSON.stringify({ private: true, type: 'module', dependencies: sorted }, null, 2),
        );
        log(
          `render sandbox: installing ${Object.entries(sorted)
            .map(([n, v]) => `${n}@${v}`)
            .join(' ')}`,
        );
        await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev'], {
          cwd: dir,
          maxBuffer: 16 * 1024 * 1024,
        });
        await writeFile(join(dir, 'node_modules', '.installed'), '');
        return dir;
      })();
      install.catch(() => installs.delete(hash));
      installs.set(hash, install);
    }
    return install;
  }

  async function execute(
    script: string,
    config: { nodeModules?: Record<string, string>; envVars?: Record<string, string> },
  ): Promise<unknown> {
    const dir = await modulesDir(config.nodeModules ?? {});
    // Inside the folder whose node_modules holds the packages, so that the script's imports resolve there.
    const file = join(dir, `script-${randomUUID()}.mjs`);
    await writeFile(file, script);
    const saved = Object.entries(config.envVars ?? {}).map(([key, value]) => [key, process.env[key], value] as const);
    for (const [key, , value] of saved) process.env[key] = value;
    try {
      const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
      const exported = module.default ?? module;
      return typeof exported === 'function' ? await (exported as () => unknown)() : exported;
    } finally {
      for (const [key, before] of saved) {
        if (before === undefined) delete process.env[key];
        else process.env[key] = before;
      }
      await rm(file, { force: true });
    }
  }

  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (
      req.method !== 'POST' ||
      !/^\/execute\/v[123]\/script$/.test(new URL(req.url ?? '/', 'http://sandbox').pathname)
    )
      return send(404, { error: 'not found' });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: {
        script?: unknown;
        config?: { nodeModules?: Record<string, string>; envVars?: Record<string, string> };
      };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return send(400, { error: 'the body is not JSON' });
      }
      if (typeof body.script !== 'string') return send(400, { error: 'script must be a string' });
      execute(body.script, body.config ?? {}).then(
        (result) => send(200, { result, logs: [] }),
        (error: unknown) => send(500, { error: error instanceof Error ? error.message : String(error), logs: [] }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8222, options.host ?? '127.0.0.1', () => resolve());
  });
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${options.port ?? 8222}`,
    prepare: async (modules) => {
      await modulesDir(modules);
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
