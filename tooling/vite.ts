/**
 * `authbroker/vite`: serves the service-worker broker (`authbroker-service-worker.js`) in `vite dev`
 * and emits it in `vite build`, at `<base>authbroker-service-worker.js` (its source map as the
 * app's `build.sourcemap` says), so that the client's `serviceWorker` option points at a real
 * script. Without it a Vite app answers that URL with its own page (200 text/html) and the
 * fallback cannot start. In `vite dev` the broker's worker scripts
 * are served with `WORKER_CONTENT_SECURITY_POLICY` (no eval); serve them with it in production too.
 *
 * @module authbroker/vite
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { WORKER_CONTENT_SECURITY_POLICY } from '../protocol/workerPolicy.js';

/** The default file name of the service-worker broker. */
export const SERVICE_WORKER_FILE = 'authbroker-service-worker.js';

/** The options of the {@link authbroker} Vite plugin. */
export interface AuthbrokerViteOptions {
  /** The file name under the app's base URL. Default `authbroker-service-worker.js`. */
  serviceWorkerFile?: string;
  /**
   * Serve the service worker with the app's own requests (`authbroker/worker/service-app-bundle`): writes kept while
   * offline in the worker, and `appRequests.attachInServiceWorker`. Default false: the smaller script without them.
   */
  appRequests?: boolean;
}

/** The prebuilt service worker with the app's own requests (`appRequests: true`), served under the same name. */
const APP_REQUESTS_BUNDLE = 'authbroker-service-worker-app.js';

/** The prebuilt bundles beside this file's folder in `dist/` (assets read from disk, not modules imported). */
const bundleUrls = {
  default: new URL(`../${SERVICE_WORKER_FILE}`, import.meta.url),
  appRequests: new URL(`../${APP_REQUESTS_BUNDLE}`, import.meta.url),
};

/** The prebuilt script without its own source-map comment, and its map. */
async function readBundle(bundleUrl: URL): Promise<{ script: string; map: string }> {
  const [script, map] = await Promise.all([
    readFile(fileURLToPath(bundleUrl), 'utf8'),
    readFile(fileURLToPath(new URL(`${bundleUrl.href}.map`)), 'utf8'),
  ]);
  return { script: script.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'), map };
}

/**
 * Vite's `build.sourcemap`: a `.map` file named by the script (true), a file nothing names ('hidden'), inside the
 * script ('inline'), or none.
 */
export type SourcemapSetting = boolean | 'inline' | 'hidden';

/**
 * The files to emit for the service worker under `fileName`, as the app's `build.sourcemap` asks
 * for its own scripts: without it the script names no map and no map is emitted.
 */
export function serviceWorkerFiles(
  bundle: { script: string; map: string },
  fileName: string,
  sourcemap: SourcemapSetting,
): Array<{ fileName: string; source: string }> {
  const mapFile = `${fileName}.map`;
  const named = (url: string) => `${bundle.script}//# sourceMappingURL=${url}\n`;
  if (sourcemap === 'inline')
    return [
      {
        fileName,
        source: named(`data:application/json;charset=utf-8;base64,${Buffer.from(bundle.map).toString('base64')}`),
      },
    ];
  if (sourcemap === 'hidden')
    return [
      { fileName, source: bundle.script },
      { fileName: mapFile, source: bundle.map },
    ];
  if (sourcemap)
    return [
      { fileName, source: named(mapFile.split('/').pop()!) },
      { fileName: mapFile, source: bundle.map },
    ];
  return [{ fileName, source: bundle.script }];
}

/**
 * The Vite plugin: serves the service-worker broker in `vite dev` (with its Content-Security-Policy) and emits
 * it in `vite build`.
 */
export function authbroker(options: AuthbrokerViteOptions = {}): Plugin {
  const fileName = options.serviceWorkerFile ?? SERVICE_WORKER_FILE;
  if (options.appRequests !== undefined && typeof options.appRequests !== 'boolean')
    throw new InvalidArgumentError(
      'appRequests',
      `appRequests must be true or false; got ${JSON.stringify(options.appRequests)}.`,
    );
  const bundleUrl = options.appRequests === true ? bundleUrls.appRequests : bundleUrls.default;
  if (typeof fileName !== 'string' || !/^[\w.-]+(\/[\w.-]+)*\.js$/.test(fileName)) {
    throw new InvalidArgumentError(
      'serviceWorkerFile',
      `serviceWorkerFile must be a relative path ending in .js, such as "${SERVICE_WORKER_FILE}"; got ${JSON.stringify(fileName)}.`,
    );
  }
  let base = '/';
  let serverBuild = false;
  let sourcemap: SourcemapSetting = false;
  return {
    name: 'authbroker',
    configResolved(config) {
      base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      serverBuild = Boolean(config.build.ssr);
      sourcemap = config.build.sourcemap;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const [path, query = ''] = (req.url ?? '').split('?');
        // The broker's workers (this script, and the SharedWorker Vite serves with ?worker_file) run
        // without eval in development as they should in production.
        if (path === `${base}${fileName}` || /(^|&)worker_file(&|=|$)/.test(query))
          res.setHeader('content-security-policy', WORKER_CONTENT_SECURITY_POLICY);
        const wanted = path === `${base}${fileName}` ? 'script' : path === `${base}${fileName}.map` ? 'map' : null;
        if (wanted === null) return next();
        readBundle(bundleUrl).then(
          (bundle) => {
            // Development always names its map, as Vite's own dev server does.
            const [script, map] = serviceWorkerFiles(bundle, fileName, true);
            res.statusCode = 200;
            res.setHeader(
              'content-type',
              wanted === 'script' ? 'text/javascript; charset=utf-8' : 'application/json; charset=utf-8',
            );
            // A new version of the package must reach a running dev browser at once.
            res.setHeader('cache-control', 'no-cache');
            res.end((wanted === 'script' ? script : map)!.source);
          },
          (error: unknown) => next(error),
        );
      });
    },
    async generateBundle() {
      if (serverBuild) return;
      for (const file of serviceWorkerFiles(await readBundle(bundleUrl), fileName, sourcemap))
        this.emitFile({ type: 'asset', ...file });
    },
  };
}

export default authbroker;
