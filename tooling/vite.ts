/**
 * `authbroker/vite`: serves the service-worker broker (`authbroker-service-worker.js`) in `vite dev`
 * and emits it in `vite build`, at `<base>authbroker-service-worker.js`, so that the client's
 * `serviceWorker` option points at a real script. Without it a Vite app answers that URL with its
 * own page (200 text/html) and the fallback cannot start. In `vite dev` the broker's worker scripts
 * are served with `WORKER_CONTENT_SECURITY_POLICY` (no eval); serve them with it in production too.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { WORKER_CONTENT_SECURITY_POLICY } from '../protocol/workerPolicy.js';

export const SERVICE_WORKER_FILE = 'authbroker-service-worker.js';

export interface AuthbrokerViteOptions {
  /** The file name under the app's base URL. Default `authbroker-service-worker.js`. */
  serviceWorkerFile?: string;
}

/** The prebuilt bundle beside this file's folder in `dist/`. */
const bundleUrl = new URL(`../${SERVICE_WORKER_FILE}`, import.meta.url);

async function readBundle(fileName: string): Promise<{ script: string; map: string }> {
  const [script, map] = await Promise.all([readFile(fileURLToPath(bundleUrl), 'utf8'), readFile(fileURLToPath(new URL(`${bundleUrl.href}.map`)), 'utf8')]);
  // The bundle names its map by its own file name; under another name it must name the new one.
  const mapName = `${fileName.split('/').pop()!}.map`;
  return { script: script.replace(/\/\/# sourceMappingURL=\S+\s*$/, `//# sourceMappingURL=${mapName}\n`), map };
}

export function authbroker(options: AuthbrokerViteOptions = {}): Plugin {
  const fileName = options.serviceWorkerFile ?? SERVICE_WORKER_FILE;
  if (typeof fileName !== 'string' || !/^[\w.-]+(\/[\w.-]+)*\.js$/.test(fileName)) {
    throw new InvalidArgumentError('serviceWorkerFile', `serviceWorkerFile must be a relative path ending in .js, such as "${SERVICE_WORKER_FILE}"; got ${JSON.stringify(fileName)}.`);
  }
  let base = '/';
  let serverBuild = false;
  return {
    name: 'authbroker',
    configResolved(config) {
      base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      serverBuild = Boolean(config.build.ssr);
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const [path, query = ''] = (req.url ?? '').split('?');
        // The broker's workers (this script, and the SharedWorker Vite serves with ?worker_file) run
        // without eval in development as they should in production.
        if (path === `${base}${fileName}` || /(^|&)worker_file(&|=|$)/.test(query)) res.setHeader('content-security-policy', WORKER_CONTENT_SECURITY_POLICY);
        const wanted = path === `${base}${fileName}` ? 'script' : path === `${base}${fileName}.map` ? 'map' : null;
        if (wanted === null) return next();
        readBundle(fileName).then(
          (bundle) => {
            res.statusCode = 200;
            res.setHeader('content-type', wanted === 'script' ? 'text/javascript; charset=utf-8' : 'application/json; charset=utf-8');
            // A new version of the package must reach a running dev browser at once.
            res.setHeader('cache-control', 'no-cache');
            res.end(bundle[wanted]);
          },
          (error: unknown) => next(error),
        );
      });
    },
    async generateBundle() {
      if (serverBuild) return;
      const bundle = await readBundle(fileName);
      this.emitFile({ type: 'asset', fileName, source: bundle.script });
      this.emitFile({ type: 'asset', fileName: `${fileName}.map`, source: bundle.map });
    },
  };
}

export default authbroker;
