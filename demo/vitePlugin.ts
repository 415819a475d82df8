import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { WORKER_CONTENT_SECURITY_POLICY } from '../protocol/workerPolicy.js';
import { notesApi } from './notesApi.js';

const serviceWorkerEntry = fileURLToPath(new URL('../worker/hosts/serviceWorkerEntry.ts', import.meta.url));
/** The service worker with the app's own requests (offline writes, tokens attached by the worker). */
const serviceWorkerAppEntry = fileURLToPath(new URL('../worker/hosts/serviceWorkerAppEntry.ts', import.meta.url));

/** The service-worker broker as one ES module file (service workers cannot be split into chunks). */
async function bundleServiceWorker(entry = serviceWorkerEntry): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
  });
  return result.outputFiles[0]!.text;
}

/** What the demo connects to; `npm start` points it at the emulator on 127.0.0.1:8102. */
export function demoConfig() {
  return {
    baseUrl: process.env.AUTHBROKER_API_URL ?? 'http://127.0.0.1:8102',
    projectId: process.env.AUTHBROKER_PROJECT_ID ?? '27581ab5-090d-4de0-a603-9893113cd548',
    publishableClientKey:
      process.env.AUTHBROKER_PUBLISHABLE_CLIENT_KEY ?? 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
    internalPublishableClientKey:
      process.env.AUTHBROKER_INTERNAL_PUBLISHABLE_CLIENT_KEY ?? 'pck_ghjz2820y3gpvvh5jbstj4exk86wy9cerws035wdpnmvv',
  };
}

/** Serves /authbroker-sw.js and /demo-config.json in dev, and writes the service worker into builds. */
export function authbrokerDemoPlugin(): Plugin {
  return {
    name: 'authbroker-demo',
    configureServer(server) {
      // The demo app's own API, beside it: what its Notes page calls with client.fetch.
      const notes = notesApi(demoConfig());
      server.middlewares.use(async (req, res, next) => {
        const [path, query = ''] = (req.url ?? '').split('?');
        // The broker's workers run without eval, as they would in production.
        if (notes(req, res)) return;
        if (path === '/authbroker-sw.js' || path === '/authbroker-sw-app.js' || /(^|&)worker_file(&|=|$)/.test(query))
          res.setHeader('content-security-policy', WORKER_CONTENT_SECURITY_POLICY);
        if (path === '/authbroker-sw.js' || path === '/authbroker-sw-app.js') {
          res.setHeader('content-type', 'text/javascript');
          res.setHeader('cache-control', 'no-store');
          res.end(await bundleServiceWorker(path === '/authbroker-sw.js' ? serviceWorkerEntry : serviceWorkerAppEntry));
          return;
        }
        if (path === '/demo-config.json') {
          res.setHeader('content-type', 'application/json');
          res.setHeader('cache-control', 'no-store');
          res.end(JSON.stringify(demoConfig()));
          return;
        }
        next();
      });
    },
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'authbroker-sw.js', source: await bundleServiceWorker() });
      this.emitFile({
        type: 'asset',
        fileName: 'authbroker-sw-app.js',
        source: await bundleServiceWorker(serviceWorkerAppEntry),
      });
      this.emitFile({ type: 'asset', fileName: 'demo-config.json', source: JSON.stringify(demoConfig()) });
    },
  };
}
