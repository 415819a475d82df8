import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { RunningEmulator } from '../../../emulator/index.js';
import { WORKER_CONTENT_SECURITY_POLICY } from '../../../protocol/workerPolicy.js';
import { DEMO_DIST } from './demoBuild.js';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/**
 * The demo's production build served from its own http://localhost origin under a strict CSP:
 * scripts and workers from the origin only, no eval; API calls to the emulator on 127.0.0.1.
 */
export function contentSecurityPolicy(emulatorUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "worker-src 'self'",
    `connect-src 'self' ${emulatorUrl}`,
    "img-src 'self' data:",
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface DemoServer {
  url: string;
  /** Serves a changed service-worker script from now on, as a new deploy would. */
  redeployServiceWorker(): void;
  /** From now on the service-worker script is "missing": the app's page (text/html) answers, as Vite does. */
  breakServiceWorker(): void;
  stop(): Promise<void>;
}

export interface ServeDemoOptions {
  /**
   * A script every page runs before the app's own (a classic script from the origin, so the strict
   * CSP allows it): how a test removes browser APIs before the app loads in engines that have no
   * init scripts of their own (WebDriver classic).
   */
  pageScript?: string;
  /**
   * Sends the pages and files without `Cache-Control: no-store`, as an app's host does: the
   * back/forward cache keeps no page that was sent with it.
   */
  cacheable?: boolean;
  /** The app's own API on the demo's origin (`/api/*`): answers and returns true for the requests it serves. */
  api?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

const PAGE_SCRIPT_PATH = '/__test-page-script.js';
/**
 * A page of the demo's origin that runs none of the app: for looking at the origin (its Web Locks) from outside the
 * app.
 */
export const BLANK_PAGE_PATH = '/__blank.html';

/** What the demo is configured with (`/demo-config.json`): the service, its project, and headers for every call. */
export interface DemoServiceConfig {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  internalPublishableClientKey: string;
  /** Sent with every API call (the real development backend's `x-stack-disable-artificial-development-delay`). */
  extraRequestHeaders?: Record<string, string>;
}

export function serveDemo(emulator: RunningEmulator, options: ServeDemoOptions = {}): Promise<DemoServer> {
  return serveDemoFor(
    {
      baseUrl: emulator.url,
      projectId: emulator.projects.demo.id,
      publishableClientKey: emulator.projects.demo.publishableClientKey,
      internalPublishableClientKey: emulator.projects.internal.publishableClientKey,
    },
    options,
  );
}

/** The demo for any service: the emulator's demo project, or the real backend's project in the real-service lane. */
export async function serveDemoFor(config: DemoServiceConfig, options: ServeDemoOptions = {}): Promise<DemoServer> {
  const csp = contentSecurityPolicy(config.baseUrl);
  let deploys = 0;
  let serviceWorkerMissing = false;
  const server: Server = createServer((req, res) => {
    if (options.api?.(req, res) === true) return;
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    if (options.pageScript !== undefined && path === PAGE_SCRIPT_PATH) {
      res.writeHead(200, { 'content-type': types['.js']!, 'cache-control': 'no-store' });
      res.end(options.pageScript);
      return;
    }
    if (path === BLANK_PAGE_PATH) {
      res.writeHead(200, {
        'content-type': types['.html']!,
        'cache-control': 'no-store',
        'content-security-policy': csp,
      });
      res.end('<!doctype html><title>blank</title>');
      return;
    }
    if (path === '/demo-config.json') {
      res.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': options.cacheable ? 'no-cache' : 'no-store',
      });
      res.end(JSON.stringify(config));
      return;
    }
    let file = normalize(join(DEMO_DIST, path));
    if (!file.startsWith(DEMO_DIST)) {
      res.writeHead(403).end();
      return;
    }
    // The app's routes (/handler/…) are the single page's.
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(DEMO_DIST, 'index.html');
    if (file.endsWith('authbroker-sw.js') && serviceWorkerMissing) file = join(DEMO_DIST, 'index.html');
    const headers: Record<string, string> = {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': options.cacheable ? 'no-cache' : 'no-store',
    };
    if (file.endsWith('.html')) headers['content-security-policy'] = csp;
    // Scripts loaded by the page follow the page's policy; a worker follows its own script's.
    if (file.endsWith('.js')) headers['content-security-policy'] = WORKER_CONTENT_SECURITY_POLICY;
    if (file.endsWith('authbroker-sw.js')) {
      headers['service-worker-allowed'] = '/';
      if (deploys > 0) {
        res.writeHead(200, headers);
        res.end(`${readFileSync(file, 'utf8')}\n// deploy ${deploys}\n`);
        return;
      }
    }
    res.writeHead(200, headers);
    if (options.pageScript !== undefined && file.endsWith('.html')) {
      res.end(readFileSync(file, 'utf8').replace('<head>', `<head><script src="${PAGE_SCRIPT_PATH}"></script>`));
      return;
    }
    createReadStream(file).pipe(res);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    redeployServiceWorker() {
      deploys += 1;
    },
    breakServiceWorker() {
      serviceWorkerMissing = true;
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
