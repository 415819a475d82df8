/**
 * The Chromium side of the benchmarks: the bench pages bundled with esbuild into bench/.tmp/www,
 * served from http://localhost (cross-origin isolated, so performance.now() has fine resolution),
 * Debian's Chromium through playwright-core, and helpers to open tabs and seed sessions.
 */
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, relative, resolve, sep } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/e2e/support/chromium.js';
import { BENCH, freshDir, packageVersion, ROOT, sleep, TMP, type BenchEmulator } from './harness.js';
import { compiledAheadPlugin } from '../scripts/compiledAhead.mjs';
import { inPageAsShipped } from './inPageBundle.js';

/**
 * `sdk` is the official SDK release compared so far (`@stackframe/js`), `sdk-newest` the newest that works against the
 * emulator (`stackframe-js-newest`).
 */
export type ClientKind = 'authbroker' | 'sdk' | 'sdk-newest' | 'naive';
export const CLIENT_KINDS: ClientKind[] = ['authbroker', 'sdk', 'sdk-newest', 'naive'];
export const CLIENT_LABELS: Record<ClientKind, string> = {
  authbroker: 'authbroker (SharedWorker)',
  sdk: `official SDK @stackframe/js ${packageVersion('@stackframe/js')}`,
  'sdk-newest': `official SDK @stackframe/js ${packageVersion('stackframe-js-newest')} (newest compatible)`,
  naive: 'naive per-tab client',
};

/**
 * A bench page: a client kind's page, the client-only page, or one of them built from the tab side before (`before/…`).
 */
export type BenchPage = ClientKind | 'client-only' | 'before/authbroker' | 'before/client-only';

export const WWW = join(TMP, 'www');

/**
 * The commit before issue 25's work on the tab's boot (the connection after the first render, the
 * in-page broker a bundle of its own): bench 4 builds its pages from that commit's tab side too, and
 * runs them beside today's in the same run.
 */
export const BEFORE_COMMIT = '513f2c20d692851b6aa5f61e90c810d842d6eb6a';
const BEFORE = join(TMP, 'before');
const LAYERS = ['client', 'contract', 'protocol', 'worker'];

/** Our layers' sources at BEFORE_COMMIT, into bench/.tmp/before; false when this checkout does not have that commit. */
function checkoutBefore(): boolean {
  freshDir(BEFORE);
  try {
    const archive = execFileSync('git', ['archive', BEFORE_COMMIT, ...LAYERS], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    execFileSync('tar', ['-x', '-C', BEFORE], { input: archive });
    return true;
  } catch {
    return false;
  }
}

/** The bench pages' imports of our layers, resolved in the copy at BEFORE_COMMIT. */
const fromBefore: Plugin = {
  name: 'tab-side-before',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'before' || !args.importer.startsWith(join(ROOT, 'bench', 'pages'))) return undefined;
      const target = resolve(args.resolveDir, args.path);
      if (!LAYERS.some((layer) => target.startsWith(join(ROOT, layer) + sep))) return undefined;
      return b.resolve(`./${relative(args.resolveDir, join(BEFORE, relative(ROOT, target)))}`, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'before',
      });
    });
  },
};

/** Whether the pages of the tab side before (`before/…`) were built: the commit may be missing from this checkout. */
export let beforePagesBuilt = false;

const PAGES = {
  authbroker: 'authbroker.tsx',
  'client-only': 'clientOnly.ts',
  sdk: 'sdk.tsx',
  'sdk-newest': 'sdkNewest.tsx',
  naive: 'naive.tsx',
} as const;

const pageHtml = (script: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body><div id="root"></div><script type="module" src="/${script}.js"></script></body></html>`;

/**
 * Bundles the pages of each client kind, the broker's SharedWorker script and the echo worker (production React,
 * minified).
 */
export async function buildPages(): Promise<void> {
  freshDir(WWW);
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    format: 'esm' as const,
    platform: 'browser' as const,
    target: 'es2022',
    minify: true,
    legalComments: 'none' as const,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error' as const,
  };
  /**
   * Each page bundled on its own, as an app is: lazy imports stay lazy, as in an app's production
   * build (a page must not carry the in-page broker, passkeys or OAuth code it never loads), and no
   * chunk is shared with another page's bundle. The in-page broker as `npm run build` ships it.
   */
  const page = (outdir: string, plugins: Plugin[]) => async (name: string, entry: string) =>
    build({
      ...common,
      entryPoints: { [name]: `${BENCH}pages/${entry}` },
      outdir,
      splitting: true,
      chunkNames: `chunks/${name}/[name]-[hash]`,
      jsx: 'automatic',
      // The very first statement of the page's first script to run: "script start" (every chunk carries
      // the banner; only the first one evaluated sets it).
      banner: { js: 'globalThis.__benchT0??=performance.now();globalThis.__benchT0Epoch??=Date.now();' },
      plugins: [compiledAheadPlugin, ...plugins],
    });
  const today = page(WWW, [await inPageAsShipped()]);
  for (const [name, entry] of Object.entries(PAGES)) await today(name, entry);
  // The same pages on the tab side before (bench 4); they use today's broker worker, the same protocol.
  beforePagesBuilt = checkoutBefore();
  if (beforePagesBuilt) {
    const before = join(WWW, 'before');
    mkdirSync(before, { recursive: true });
    for (const name of ['authbroker', 'client-only'] as const) {
      await page(before, [fromBefore])(name, PAGES[name]);
      writeFileSync(join(before, `${name}.html`), pageHtml(`before/${name}`));
    }
  }
  // The broker's SharedWorker as an app's bundler splits it (its devtools recorder a lazy chunk).
  await build({
    ...common,
    entryPoints: {
      'broker-worker': `${ROOT}worker/hosts/sharedWorker.ts`,
      'echo-worker': `${BENCH}pages/echoWorker.ts`,
    },
    outdir: WWW,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [compiledAheadPlugin],
  });
  for (const name of Object.keys(PAGES)) writeFileSync(join(WWW, `${name}.html`), pageHtml(name));
}

const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

export interface PageServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves bench/.tmp/www on http://localhost:PORT. COOP/COEP make the pages cross-origin isolated
 * (5 µs timers instead of 100 µs); scripts may be cached like a deployed app's.
 */
export async function servePages(): Promise<PageServer> {
  const server = createServer((req, res) => {
    const path = normalize(join(WWW, decodeURIComponent((req.url ?? '/').split('?')[0]!)));
    if (!path.startsWith(WWW) || !existsSync(path) || statSync(path).isDirectory())
      return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': types[extname(path)] ?? 'application/octet-stream',
      'cache-control': path.endsWith('.html') ? 'no-store' : 'max-age=600',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cross-origin-resource-policy': 'same-origin',
    });
    createReadStream(path).pipe(res);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A browser, the page server and an emulator: what a browser benchmark works with. */
export class Stage {
  private cdpSession: CDPSession | null = null;
  /** Requests pages tried to send to hosts other than loopback (all failed through the dead proxy). */
  readonly externalRequests: string[] = [];
  constructor(
    readonly browser: Browser,
    readonly pages: PageServer,
    readonly emulator: BenchEmulator,
  ) {}

  static async open(emulator: BenchEmulator, browser: Browser, pages: PageServer): Promise<Stage> {
    return new Stage(browser, pages, emulator);
  }

  url(kind: BenchPage, mode: 'hooks' | 'idle', extra: Record<string, string> = {}): string {
    const { em } = this.emulator;
    const params = new URLSearchParams({
      api: em.url,
      pid: em.projects.demo.id,
      pck: em.projects.demo.publishableClientKey,
      mode,
      ...extra,
    });
    return `${this.pages.url}/${kind}.html?${params}`;
  }

  private contextIds = new Map<BrowserContext, string>();

  /** A fresh context (its own storage); its CDP id is kept to tell its SharedWorkers apart. */
  async newContext(): Promise<BrowserContext> {
    const context = await this.browser.newContext();
    const page = await context.newPage();
    const session = await context.newCDPSession(page);
    const { targetInfo } = await session.send('Target.getTargetInfo');
    if (targetInfo.browserContextId) this.contextIds.set(context, targetInfo.browserContextId);
    await session.detach();
    await page.close();
    return context;
  }

  /** Opens a bench page; waits until its script has run (window.__bench exists). */
  async open(
    context: BrowserContext,
    kind: BenchPage,
    mode: 'hooks' | 'idle',
    extra: Record<string, string> = {},
  ): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error(`  [${kind}] page error: ${error.message}`));
    page.on('request', (request) => {
      if (!isLoopback(request.url())) this.externalRequests.push(`${kind}: ${request.method()} ${request.url()}`);
    });
    await page.goto(this.url(kind, mode, extra));
    await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 30_000 });
    return page;
  }

  /** Waits for a mark of the page's screen ('user' or 'ready'). */
  async waitMark(page: Page, mark: 'user' | 'ready', timeout = 60_000): Promise<void> {
    await page.waitForFunction((name) => window.__bench.marks[name] !== undefined, mark, { timeout, polling: 20 });
  }

  /**
   * Signs the demo user in from a set-up tab, then closes it and waits until no broker runs: the
   * session is left in storage (IndexedDB, cookies or localStorage) with no tab open.
   * `expiredToken`: the emulator's clock is moved back for the sign-in, so the stored access token
   * has already expired (by the real clock too) when the measurement starts.
   */
  async seedSession(
    context: BrowserContext,
    kind: ClientKind,
    options: { expiredToken?: boolean } = {},
  ): Promise<void> {
    const { em } = this.emulator;
    const shift = em.env.accessTokenTtlMillis + 60_000;
    const page = await this.open(context, kind, 'idle');
    if (options.expiredToken) em.env.clock.advance(-shift);
    try {
      await page.evaluate(async ({ email, password }) => window.__bench.signIn(email, password), {
        email: em.demoUser!.email,
        password: em.demoUser!.password,
      });
    } finally {
      if (options.expiredToken) em.env.clock.advance(shift);
    }
    await page.close();
    await this.waitNoBroker(context);
  }

  async cdp(): Promise<CDPSession> {
    this.cdpSession ??= await this.browser.newBrowserCDPSession();
    return this.cdpSession;
  }

  /** Broker SharedWorkers alive in a context (or in the whole browser). */
  async brokerCount(context?: BrowserContext): Promise<number> {
    const { targetInfos } = await (await this.cdp()).send('Target.getTargets');
    const id = context === undefined ? undefined : this.contextIds.get(context);
    return targetInfos.filter(
      (t) =>
        t.type === 'shared_worker' &&
        t.url.includes('/broker-worker.js') &&
        (id === undefined || t.browserContextId === id),
    ).length;
  }

  async waitNoBroker(context?: BrowserContext, timeout = 10_000): Promise<void> {
    const deadline = Date.now() + timeout;
    while ((await this.brokerCount(context)) > 0) {
      if (Date.now() > deadline) throw new Error('A broker SharedWorker is still running after its tabs closed.');
      await sleep(25);
    }
  }

  /**
   * Waits until the browser's processes together use at most `cpuMillis` of CPU over `windowMillis`
   * (CDP SystemInfo.getProcessInfo): a new context starts the browser's own pages too (in this
   * Chromium, the omnibox popup's WebUI spends a few hundred ms of script on a core), which on a
   * two-core machine would compete with what a benchmark times. Returns how long it waited.
   */
  async waitQuiet(windowMillis = 250, cpuMillis = 15, timeout = 15_000): Promise<number> {
    const started = Date.now();
    const total = async () => {
      const { processInfo } = (await (await this.cdp()).send('SystemInfo.getProcessInfo' as never)) as {
        processInfo: Array<{ cpuTime: number }>;
      };
      return processInfo.reduce((sum, p) => sum + p.cpuTime * 1000, 0);
    };
    let before = await total();
    for (;;) {
      await sleep(windowMillis);
      const now = await total();
      if (now - before <= cpuMillis || Date.now() - started > timeout) return Date.now() - started;
      before = now;
    }
  }

  /** A note for the results when a page tried to reach a non-loopback host. */
  externalNote(): string[] {
    if (this.externalRequests.length === 0) return [];
    const unique = [...new Set(this.externalRequests)];
    return [
      `Pages tried ${this.externalRequests.length} request(s) to non-loopback hosts (refused locally by the harness's dead proxy): ${unique.slice(0, 6).join('; ')}.`,
    ];
  }

  async close(): Promise<void> {
    await this.cdpSession?.detach().catch(() => undefined);
  }
}

/**
 * Debian's Chromium with the flags of BROWSER-NOTES.md. Every request to a host other than
 * loopback goes to a proxy address where nothing listens, so it fails on this machine: some
 * clients (the official SDK's network diagnostics) try public hosts after a failed request.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    proxy: { server: 'http://127.0.0.1:9', bypass: 'localhost,127.0.0.1' },
  });
}

const isLoopback = (url: string) =>
  /^(https?|wss?):\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/)/.test(url) || !/^(https?|wss?):/.test(url);
