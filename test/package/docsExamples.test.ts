import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../e2e/support/chromium.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { markdownFiles } from './support/readme.js';
import { declaredDependencies, repoRoot, run, scratchApp, writeFiles } from './support/scratch.js';

/**
 * Issue 34: each sign-in page's component, as the page shows it, runs against the emulator in
 * Chromium: an app built from the packed tarball with every sign-in page's files (docs/sign-in/*.md)
 * and a test-only page that mounts one of them per path.
 */
const skip = skipWithoutChromium();
const emulator = useEmulator();
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
const SIGN_IN_PAGES = ['password', 'one-time-code', 'magic-link', 'passkeys', 'oauth', 'mfa'];

const harness = (config: {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
}) => `import { Suspense, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrokerClient } from 'authbroker/client';
import { AuthProvider, useUserState } from 'authbroker/react';
import { CodeSignIn } from './sign-in/CodeSignIn';
import { MagicLinkCallback } from './sign-in/MagicLinkCallback';
import { OAuthButtons } from './sign-in/OAuthButtons';
import { OAuthCallback } from './sign-in/OAuthCallback';
import { Passkeys } from './sign-in/Passkeys';
import { PasswordSignIn } from './sign-in/PasswordSignIn';
import { TwoFactorSetup } from './sign-in/TwoFactorSetup';
import { TwoFactorSignIn } from './sign-in/TwoFactorSignIn';

const client = createBrokerClient({
  ...${JSON.stringify(config)},
  sharedWorker: (name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module', name }),
});
(window as unknown as { client: typeof client }).client = client;
const pages: Record<string, () => ReactNode> = {
  '/password': () => <PasswordSignIn />,
  '/code': () => <CodeSignIn />,
  '/handler/magic-link-callback': () => <MagicLinkCallback />,
  '/passkeys': () => <Passkeys />,
  '/oauth': () => <OAuthButtons providers={['github']} />,
  '/handler/oauth-callback': () => <OAuthCallback />,
  '/mfa-setup': () => <TwoFactorSetup />,
  '/mfa': () => <TwoFactorSignIn />,
};
function Who() {
  const state = useUserState();
  return <p id="who">{state.status === 'signed-in' ? state.user.primaryEmail : state.status}</p>;
}
const page = pages[location.pathname] ?? (() => <p>home</p>);
createRoot(document.getElementById('root')!).render(
  <AuthProvider client={client}>
    <Who />
    <Suspense fallback={<p>Loading…</p>}>{page()}</Suspense>
  </AuthProvider>,
);
`;

describe.skipIf(skip)('the sign-in pages, one example each, against the emulator in Chromium', () => {
  let preview: PreviewServer;
  let origin = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const em = emulator();
    const { demo } = em.projects;
    const app = await scratchApp('docs-examples', {
      tarballs: ['authbroker'],
      dependencies: [...Object.keys(declaredDependencies(repoRoot)), 'react', 'react-dom', 'otpauth'],
      devDependencies: ['vite', '@vitejs/plugin-react'],
    });
    const files: Record<string, string> = {};
    for (const name of SIGN_IN_PAGES) Object.assign(files, markdownFiles(`docs/sign-in/${name}.md`));
    expect(Object.keys(files).sort()).toEqual(
      [
        'CodeSignIn',
        'MagicLinkCallback',
        'OAuthButtons',
        'OAuthCallback',
        'Passkeys',
        'PasswordSignIn',
        'TwoFactorSetup',
        'TwoFactorSignIn',
      ].map((name) => `src/sign-in/${name}.tsx`),
    );
    writeFiles(app, {
      ...files,
      'index.html':
        '<!doctype html><html><body><div id="root"></div><script type="module" src="/src/harness.tsx"></script></body></html>\n',
      'src/harness.tsx': harness({
        baseUrl: em.url,
        projectId: demo.id,
        publishableClientKey: demo.publishableClientKey,
      }),
      'vite.config.ts':
        "import react from '@vitejs/plugin-react';\nimport { defineConfig } from 'vite';\nexport default defineConfig({ plugins: [react()], worker: { format: 'es' }, logLevel: 'warn' });\n",
    });
    const built = await run(join(app, 'node_modules/.bin/vite'), ['build'], app);
    if (built.code !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
    const { preview: startPreview } = await import('vite');
    // localhost, not 127.0.0.1: WebAuthn needs it.
    preview = await startPreview({ root: app, preview: { host: 'localhost', port: 0 }, logLevel: 'warn' });
    origin = preview.resolvedUrls!.local[0]!.replace(/\/$/, '');
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await preview?.close();
  });

  const who = (expected: string) =>
    page.waitForFunction((text) => document.getElementById('who')?.textContent === text, expected, { timeout: 15_000 });
  async function signOut(): Promise<void> {
    await page.evaluate(() => (window as unknown as { client: { signOut(): Promise<void> } }).client.signOut());
    await who('signed-out');
  }
  /** CodeSignIn's first step: the e-mail that carries both the code and the magic link. */
  async function requestCode(email: string): Promise<void> {
    await page.goto(`${origin}/code`);
    await page.getByPlaceholder('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByPlaceholder('6-character code').waitFor();
  }
  /** The last e-mail sent to `email` (the emulator's mailbox). */
  const lastMail = (email: string) => emulator().env.mailbox.list(email).at(-1)!;

  it('password: the form signs the demo user in', async () => {
    await page.goto(`${origin}/password`);
    await page.getByPlaceholder('E-mail').fill(DEMO.email);
    await page.getByPlaceholder('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That e-mail and password do not match').waitFor();
    await page.getByPlaceholder('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await who(DEMO.email);
    await signOut();
  });

  it('one-time code: the code from the e-mail signs a new user in', async () => {
    const email = uniqueEmail('docs-code');
    await requestCode(email);
    const code = /Your code is ([0-9A-Z]{6})\b/i.exec(lastMail(email).subject)![1]!;
    await page.getByPlaceholder('6-character code').fill(code.toLowerCase());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await who(email);
    await signOut();
  });

  it("magic link: the e-mail's link opens the callback page, which signs in and goes home", async () => {
    const email = uniqueEmail('docs-link');
    await requestCode(email);
    const link = new URL(lastMail(email).link!);
    expect(`${link.origin}${link.pathname}`).toBe(`${origin}/handler/magic-link-callback`);
    await page.goto(link.href);
    await page.waitForURL(`${origin}/`);
    await who(email);
  });

  it('passkeys: a signed-in user adds one, then signs in with it', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const email = (await page.locator('#who').textContent())!;
    expect(email).toMatch(/^docs-link-/);
    await page.goto(`${origin}/passkeys`);
    await who(email);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').getByText('Passkey added.').waitFor({ timeout: 15_000 });
    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await who(email);
    await signOut();
  });

  it("OAuth: the provider's button, the consent page, and the callback page signs in", async () => {
    const em = emulator();
    const email = uniqueEmail('docs-oauth');
    await page.goto(`${origin}/oauth`);
    await page.getByRole('button', { name: 'Sign in with github' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${em.url}/emulator/oauth/github/authorize?`), {
      timeout: 15_000,
    });
    await page.locator('input#email').fill(email);
    await page.locator('input#display_name').fill('Docs Reader');
    await page.locator('button[name="action"][value="approve"]').click();
    await page.waitForURL(`${origin}/`, { timeout: 15_000 });
    await who(email);
    await signOut();
  });

  it('MFA: two-factor turned on in the setup, then the password and the code sign in', async () => {
    const email = uniqueEmail('docs-mfa');
    const password = 'docs-mfa-password';
    await page.evaluate(
      ({ email, password }) =>
        (
          window as unknown as { client: { signUpWithPassword(input: object): Promise<unknown> } }
        ).client.signUpWithPassword({ email, password }),
      { email, password },
    );
    await page.goto(`${origin}/mfa-setup`);
    await who(email);
    await page.getByRole('button', { name: 'Turn two-factor on' }).click();
    const secret = (await page.locator('[data-secret]').getAttribute('data-secret'))!;
    expect(await page.locator('[data-uri]').getAttribute('data-uri')).toContain(`secret=${secret}`);
    await signOut();

    await page.goto(`${origin}/mfa`);
    await page.getByPlaceholder('E-mail').fill(email);
    await page.getByPlaceholder('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByPlaceholder('123456').waitFor();
    // The service takes only the current 30 s period: move the emulator's clock to the start of a fresh one.
    const { clock } = emulator().env;
    clock.advance(30_000 - (clock.now() % 30_000) + 2_000);
    const totp = TOTP.generate({
      secret: Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      timestamp: clock.now(),
    });
    await page.getByPlaceholder('123456').fill(totp);
    await page.getByRole('button', { name: 'Verify' }).click();
    await who(email);
  });
});
