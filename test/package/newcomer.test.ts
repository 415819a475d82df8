import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithPassword } from '../../protocol/endpoints/auth.js';
import { launchChromium, skipWithoutChromium } from '../e2e/support/chromium.js';
import { startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { fillPlaceholders, guideFiles, readmeFiles } from './support/readme.js';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

/**
 * Issue 17's newcomer: a fresh Vite + React + TypeScript app, authbroker installed from its packed
 * tarball, the getting-started page's files (docs/guide/getting-started.md, and docs/guide/server.md's
 * server code) written as they are (placeholders filled for the emulator), built,
 * served by `vite preview`, and used in Chromium.
 */
const skip = skipWithoutChromium();
const emulator = useEmulator();
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };

/** What `npm create vite@latest -- --template react-ts` gives, less its sample code. */
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>Newcomer</title></head>
  <body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body>
</html>
`;
const APP_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    module: 'ESNext',
    moduleResolution: 'bundler',
    jsx: 'react-jsx',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  include: ['src'],
};

/**
 * Test-only second page: an app that shows no sign-in form at its sign-in path (here the page
 * itself), the case that reloaded forever (27 loads in 4 s) before the fix. It also mounts
 * authbroker/devtools, so that the entry is type-checked (skipLibCheck off) and bundled from the tarball.
 */
const LOOP_HTML = `<!doctype html>
<html lang="en"><body><div id="root"></div><script type="module" src="/src/loop.tsx"></script></body></html>
`;
const loopPage = (config: {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
}) => `import { Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrokerClient } from 'authbroker/client';
import { AuthbrokerDevtools } from 'authbroker/devtools';
import { AuthProvider, useSession, useUser } from 'authbroker/react';

const client = createBrokerClient({ ...${JSON.stringify(config)}, handlerPaths: { signIn: '/loop.html' } });
function Page() {
  const user = useUser({ or: 'redirect' });
  return <p id="state">{user.primaryEmail}</p>;
}
function Session() {
  return <p id="session">{useSession().status}</p>;
}
createRoot(document.getElementById('root')!).render(
  <AuthProvider client={client}>
    <Session />
    <Suspense fallback={<p id="state">waiting for a sign-in</p>}><Page /></Suspense>
    <AuthbrokerDevtools />
  </AuthProvider>,
);
`;

describe.skipIf(skip)('the getting-started guide, followed by a newcomer in a fresh Vite app', () => {
  let app = '';
  let preview: PreviewServer;
  let origin = '';
  let browser: Browser;

  beforeAll(async () => {
    const em = emulator();
    const { demo } = em.projects;
    const config = { baseUrl: em.url, projectId: demo.id, publishableClientKey: demo.publishableClientKey };
    app = await scratchApp('newcomer-app', {
      tarballs: ['authbroker'],
      dependencies: [...Object.keys(declaredDependencies(repoRoot)), 'react', 'react-dom'],
      devDependencies: [
        'vite',
        '@vitejs/plugin-react',
        'typescript',
        '@types/react',
        '@types/react-dom',
        '@types/node',
      ],
    });
    const readme = guideFiles();
    expect(Object.keys(readme).sort()).toEqual(['server.ts', 'src/main.tsx', 'vite.config.ts']);
    writeFiles(app, {
      'index.html': INDEX_HTML,
      'tsconfig.json': JSON.stringify(APP_TSCONFIG, null, 2),
      'vite.config.ts': readme['vite.config.ts']!,
      'src/main.tsx': fillPlaceholders(readme['src/main.tsx']!, config),
      'server.ts': fillPlaceholders(readme['server.ts']!, { baseUrl: config.baseUrl, projectId: config.projectId }),
      'loop.html': LOOP_HTML,
      'src/loop.tsx': loopPage(config),
      // The guide's config, with the test page as a second input.
      'vite.test.config.ts': `import { mergeConfig } from 'vite';
import config from './vite.config';
export default mergeConfig(config, { build: { rollupOptions: { input: { main: 'index.html', loop: 'loop.html' } } }, logLevel: 'warn' });
`,
    });
    const built = await run(join(app, 'node_modules/.bin/vite'), ['build', '--config', 'vite.test.config.ts'], app);
    if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
    const { preview: startPreview } = await import('vite');
    preview = await startPreview({
      root: app,
      configFile: join(app, 'vite.test.config.ts'),
      preview: { host: 'localhost', port: 0 },
      logLevel: 'warn',
    });
    origin = preview.resolvedUrls!.local[0]!.replace(/\/$/, '');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await preview?.close();
  });

  it("the guide's app type-checks with skipLibCheck off", async () => {
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });

  it('in vite dev, authbroker/vite serves the service-worker script (a missing file would be the app page)', async () => {
    const { createServer } = await import('vite');
    const dev = await createServer({
      root: app,
      configFile: join(app, 'vite.config.ts'),
      server: { host: 'localhost', port: 0 },
      logLevel: 'warn',
      optimizeDeps: { noDiscovery: true },
    });
    try {
      await dev.listen();
      const devOrigin = dev.resolvedUrls!.local[0]!.replace(/\/$/, '');
      const script = await fetch(`${devOrigin}/authbroker-service-worker.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(script.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
      const text = await script.text();
      expect(text).toBe(readFileSync(join(app, 'node_modules/authbroker/dist/authbroker-service-worker.js'), 'utf8'));
      const map = (await (await fetch(`${devOrigin}/authbroker-service-worker.js.map`)).json()) as {
        sourcesContent: unknown[];
      };
      expect(map.sourcesContent.length).toBeGreaterThan(10);
      const missing = await fetch(`${devOrigin}/no-such-worker.js`);
      expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      await dev.close();
    }
  });

  /** Main-frame page loads of `page`, counted from now. */
  function countLoads(page: Page): { readonly count: number } {
    const counter = { count: 0 };
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) counter.count += 1;
    });
    return counter;
  }

  async function signInThroughTheForm(page: Page): Promise<void> {
    await page.fill('input[name=email]', DEMO.email);
    await page.fill('input[name=password]', DEMO.password);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL(`${origin}/`);
    await page
      .getByText('Hello Demo User', { exact: false })
      .or(page.getByText(`Hello ${DEMO.email}`))
      .waitFor({ timeout: 15_000 });
  }

  it('signed out, the app goes once to the sign-in page, signs in there and comes back', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const loads = countLoads(page);
      await page.goto(`${origin}/`);
      await page.waitForURL(`${origin}/handler/sign-in?after_auth_return_to=%2F`);
      await page.locator('form input[name=email]').waitFor();
      expect(loads.count).toBe(2);
      await signInThroughTheForm(page);
      // Signing out sends Greeting's useUser back to the sign-in page, once.
      await page.click('button:has-text("Sign out")');
      await page.waitForURL(`${origin}/handler/sign-in?after_auth_return_to=%2F`);
      await page.locator('form input[name=email]').waitFor();
    } finally {
      await context.close();
    }
  });

  it('a sign-in page left open leaves once another tab signs in', async () => {
    const context = await browser.newContext();
    try {
      const waiting = await context.newPage();
      await waiting.goto(`${origin}/`);
      await waiting.waitForURL(`${origin}/handler/sign-in?after_auth_return_to=%2F`);
      await waiting.locator('form input[name=email]').waitFor();
      const other = await context.newPage();
      await other.goto(`${origin}/handler/sign-in`);
      await signInThroughTheForm(other);
      await waiting.waitForURL(`${origin}/`, { timeout: 15_000 });
      await waiting.getByText('Hello', { exact: false }).first().waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  });

  it('an app with no sign-in form at its sign-in path stays there: no redirect loop', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const loads = countLoads(page);
      const reloaded = new Promise<void>((resolve) => page.on('framenavigated', () => loads.count > 1 && resolve()));
      await page.goto(`${origin}/loop.html`, { waitUntil: 'commit' });
      // Signed out on the sign-in page itself: the hook waits for a sign-in there instead of redirecting.
      const signedOut = page.waitForFunction(
        () =>
          document.getElementById('session')?.textContent === 'signed-out' &&
          document.getElementById('state')?.textContent === 'waiting for a sign-in',
        null,
        { timeout: 15_000 },
      );
      // A loop shows as a second page load, sooner than the signed-out state settles.
      await Promise.race([signedOut, reloaded]);
      signedOut.catch(() => undefined);
      // The redirect would have been made in the same commit that showed "signed-out".
      await page.waitForTimeout(200);
      expect(page.url()).toBe(`${origin}/loop.html`);
      expect(loads.count).toBe(1);
      // The devtools from the tarball: the toggle follows the broker, the panel (a lazy chunk) opens.
      await page.waitForFunction(
        () => document.querySelector('[data-testid="authbroker-devtools-session"]')?.textContent === 'signed-out',
        null,
        { timeout: 10_000 },
      );
      await page.locator('[data-testid="authbroker-devtools-toggle"]').click();
      await page.locator('[data-testid="authbroker-devtools-mode"]').waitFor({ timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  it('without SharedWorker, the service-worker broker served by authbroker/vite runs the app', async () => {
    const script = await fetch(`${origin}/authbroker-service-worker.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const context: BrowserContext = await browser.newContext();
    try {
      await context.addInitScript(() => {
        delete (window as { SharedWorker?: unknown }).SharedWorker;
      });
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.waitForURL(/\/handler\/sign-in\?/);
      await page.locator('form input[name=email]').waitFor();
      await signInThroughTheForm(page);
      const host = await page.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration();
        const locks = await navigator.locks.query();
        return {
          script: registration?.active?.scriptURL ?? null,
          // A worker-hosted broker holds this lock for its lifetime; an in-page one does not.
          brokerLock: (locks.held ?? []).some((lock) => lock.name?.startsWith('authbroker:broker:')),
        };
      });
      expect(host).toEqual({ script: `${origin}/authbroker-service-worker.js`, brokerLock: true });
    } finally {
      await context.close();
    }
  });

  it("the docs' server code refuses garbage with a typed error and accepts a real token", async () => {
    const em = emulator();
    const { access_token, user_id } = await signInWithPassword(transportFor(em, 'client'), DEMO);
    writeFiles(app, {
      'check-server.ts': `import { isKnownError, KnownError } from 'authbroker/server';
import { app, newestUserEmails, userIdOf } from './server.js';

const withToken = (token: string) => new Request('http://localhost/api', { headers: { 'x-stack-access-token': token } });
let garbage: unknown;
try {
  await app.verifyAccessToken('garbage');
} catch (error) {
  garbage = { knownError: error instanceof KnownError, unparsable: isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN'), family: isKnownError(error, 'INVALID_ACCESS_TOKEN') };
}
console.log(JSON.stringify({ garbage, userOfGarbage: await userIdOf(withToken('garbage')), userOfToken: await userIdOf(withToken(process.argv[2]!)), emails: await newestUserEmails() }));
`,
    });
    const result = await run(join(repoRoot, 'node_modules/.bin/tsx'), ['check-server.ts', access_token], app, {
      STACK_SECRET_SERVER_KEY: em.projects.demo.secretServerKey,
    });
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout) as {
      garbage: unknown;
      userOfGarbage: unknown;
      userOfToken: unknown;
      emails: unknown[];
    };
    expect(out.garbage).toEqual({ knownError: true, unparsable: true, family: true });
    expect(out.userOfGarbage).toBeNull();
    expect(out.userOfToken).toBe(user_id);
    expect(out.emails).toContain(DEMO.email);
  });
  // Last: it stops the file's emulator (connection refused) and starts another on its port.
  it("the guide's connectivity banner names the service while it cannot be reached, and goes when it is back", async () => {
    const em = emulator();
    const context = await browser.newContext();
    let back: RunningEmulator | undefined;
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/handler/sign-in`);
      await signInThroughTheForm(page);
      expect(await page.locator('[data-connectivity]').count()).toBe(0);
      // A second tab keeps the broker running while the first reloads, as an app's other tabs would.
      const other = await context.newPage();
      await other.goto(`${origin}/`);
      await em.stop();
      const goneAt = Date.now();
      await page.reload();
      await page.locator('[data-connectivity="offline"]').waitFor({ timeout: 5000 });
      expect(Date.now() - goneAt).toBeLessThan(5000);
      // The browser is online: the service does not answer, and the banner says which one and how to start it.
      expect(await page.getByRole('status').textContent()).toMatch(
        /^The service at http:\/\/127\.0\.0\.1:\d+ could not be reached.*Is it running\? .*authbroker-emulator/,
      );
      back = await startEmulator({ port: em.port });
      await page.reload();
      await page.locator('[data-connectivity]').waitFor({ state: 'detached', timeout: 5000 });
    } finally {
      await back?.stop();
      await context.close();
    }
  });
});

describe.skipIf(skip)("the README's quick start, as written, in a fresh Vite app", () => {
  let app = '';
  let preview: PreviewServer;
  let origin = '';
  let browser: Browser;
  // Its own emulator: the guide's last test stops the file's.
  let em: RunningEmulator;

  beforeAll(async () => {
    em = await startEmulator({ port: 0 });
    const { demo } = em.projects;
    app = await scratchApp('readme-app', {
      tarballs: ['authbroker'],
      dependencies: [...Object.keys(declaredDependencies(repoRoot)), 'react', 'react-dom'],
      devDependencies: ['vite', '@vitejs/plugin-react', 'typescript', '@types/react', '@types/react-dom'],
    });
    const readme = readmeFiles();
    expect(Object.keys(readme).sort()).toEqual(['src/main.tsx', 'vite.config.ts']);
    // About twenty lines of app, as the README promises.
    expect(readme['src/main.tsx']!.trim().split('\n').length).toBeLessThanOrEqual(22);
    writeFiles(app, {
      'index.html': INDEX_HTML,
      'tsconfig.json': JSON.stringify(APP_TSCONFIG, null, 2),
      'vite.config.ts': readme['vite.config.ts']!,
      'src/main.tsx': fillPlaceholders(readme['src/main.tsx']!, {
        baseUrl: em.url,
        projectId: demo.id,
        publishableClientKey: demo.publishableClientKey,
      }),
    });
    const built = await run(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], app);
    if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
    const { preview: startPreview } = await import('vite');
    preview = await startPreview({ root: app, preview: { host: 'localhost', port: 0 }, logLevel: 'warn' });
    origin = preview.resolvedUrls!.local[0]!.replace(/\/$/, '');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await preview?.close();
    await em?.stop();
  });

  it('type-checks with skipLibCheck off', async () => {
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });

  it('signs the demo user in with its button, in both tabs, and out again in both', async () => {
    const context = await browser.newContext();
    try {
      const first = await context.newPage();
      await first.goto(`${origin}/`);
      const second = await context.newPage();
      await second.goto(`${origin}/`);
      await first.getByRole('button', { name: 'Sign in' }).click();
      for (const page of [first, second]) await page.getByText(`Hello ${DEMO.email}`).waitFor({ timeout: 15_000 });
      await second.getByRole('button', { name: 'Sign out' }).click();
      for (const page of [first, second])
        await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  });
});
