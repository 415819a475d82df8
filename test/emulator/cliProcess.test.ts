import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_PROJECT } from '../../emulator/state/seed.js';

/** The emulator's command line, run as a real process (tsx, as `npm run emulator` does). */

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const dir = mkdtempSync(join(tmpdir(), 'authbroker-cli-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs the CLI in `cwd` (a scratch folder by default: without --data it keeps its state there). */
function run(args: string[], cwd = dir): Run {
  const child = spawn(tsx, [join(root, 'emulator', 'cli.ts'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Resolves once stdout contains `text`; fails (bounded) if the process exits or takes too long. */
function waitForOutput(r: Run, text: string, timeoutMillis = 15_000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`No "${text}" within ${timeoutMillis} ms. stdout: ${r.stdout()} stderr: ${r.stderr()}`)),
      timeoutMillis,
    );
    const check = () => {
      if (r.stdout().includes(text)) {
        clearTimeout(timer);
        resolvePromise(r.stdout());
      }
    };
    r.child.stdout!.on('data', check);
    void r.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`Exited with ${code} before printing "${text}". stderr: ${r.stderr()}`));
    });
    check();
  });
}

function withTimeout<T>(promise: Promise<T>, millis = 15_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`Timed out after ${millis} ms`)), millis)),
  ]);
}

const DEMO_PROJECT = { id: DEFAULT_DEMO_PROJECT.id, pck: DEFAULT_DEMO_PROJECT.publishableClientKey };

/** Signs the seeded demo user in over HTTP. */
async function signIn(baseUrl: string): Promise<{ refresh_token: string }> {
  const response = await fetch(`${baseUrl}/api/v1/auth/password/sign-in`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-stack-project-id': DEMO_PROJECT.id,
      'x-stack-access-type': 'client',
      'x-stack-publishable-client-key': DEMO_PROJECT.pck,
    },
    body: JSON.stringify({ email: 'demo@authbroker.dev', password: 'demo-password' }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { refresh_token: string };
}

/** The status of a session refresh with this refresh token. */
async function refresh(baseUrl: string, refreshToken: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v1/auth/sessions/current/refresh`, {
    method: 'POST',
    headers: {
      'x-stack-project-id': DEMO_PROJECT.id,
      'x-stack-access-type': 'client',
      'x-stack-publishable-client-key': DEMO_PROJECT.pck,
      'x-stack-refresh-token': refreshToken,
    },
  });
  return response.status;
}

// Process starts are slow on a busy machine; every wait below is bounded by its own timeout.
describe('emulator CLI', { timeout: 45_000 }, () => {
  it('prints the URLs, keys and users, serves, and stops cleanly on SIGTERM', async () => {
    const projectId = '0d6c6f0e-3b7a-4c55-9a3e-2f1d0c9b8a71';
    const keys = {
      pck: 'pck_clitestpublishablekey0000000000000000000000000',
      ssk: 'ssk_clitestsecretserverkey000000000000000000000000',
      sak: 'sak_clitestsuperadminkey0000000000000000000000000',
    };
    const r = run([
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--access-token-ttl',
      '90s',
      '--data',
      join(dir, 'cli-state.json'),
      '--project-id',
      projectId,
      '--publishable-client-key',
      keys.pck,
      '--secret-server-key',
      keys.ssk,
      '--super-secret-admin-key',
      keys.sak,
    ]);
    const out = await waitForOutput(r, 'Press Ctrl-C');
    // The base URL is the first URL printed, labelled as what a client's baseUrl takes (issue 20.3).
    const baseUrl = /^ {2}Base URL: +(http:\/\/127\.0\.0\.1:\d+)\n +the baseUrl of authbroker/m.exec(out)?.[1];
    expect(baseUrl).toBeDefined();
    expect(out.indexOf(baseUrl!)).toBe(out.indexOf('http://'));
    const apiUrl = `${baseUrl}/api/v1`;
    expect(out).toMatch(new RegExp(`API: +${apiUrl.replace(/[./]/g, '\\$&')}\n`));
    expect(out).toMatch(/Dev page:\s+http:\/\/127\.0\.0\.1:\d+\/emulator/);
    expect(out).toContain(`State:       ${join(dir, 'cli-state.json')}`);
    expect(r.stderr()).toBe('');
    for (const value of [
      projectId,
      keys.pck,
      keys.ssk,
      keys.sak,
      'demo@authbroker.dev',
      'demo-password',
      'admin@authbroker.dev',
      'admin-password',
    ])
      expect(out).toContain(value);

    const response = await fetch(`${apiUrl}/projects/current`, {
      headers: {
        'x-stack-project-id': projectId,
        'x-stack-access-type': 'client',
        'x-stack-publishable-client-key': keys.pck,
      },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(projectId);
    const page = await fetch(`${baseUrl}/emulator`);
    expect(await page.text()).toContain(projectId);

    r.child.kill('SIGTERM');
    expect(await withTimeout(r.exited)).toBe(0);
    expect(r.stdout()).toContain('stopping');
  });

  it('keeps state across restarts by default in .authbroker-emulator/ under the current folder', async () => {
    const cwd = mkdtempSync(join(dir, 'app-'));
    const first = run(['--port', '0'], cwd);
    const out = await waitForOutput(first, 'Press Ctrl-C');
    const file = join(cwd, '.authbroker-emulator', 'state.json');
    expect(out).toContain(`State:       ${file}`);
    expect(out).toContain('kept across restarts');
    // Its own .gitignore keeps the state (password hashes, keys) out of the app's repository.
    expect(readFileSync(join(cwd, '.authbroker-emulator', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const baseUrl = /Base URL: +(\S+)/.exec(out)![1]!;
    const signedIn = await signIn(baseUrl);
    first.child.kill('SIGTERM');
    expect(await withTimeout(first.exited)).toBe(0);

    // A restart on another port: the open session is still valid (tabs stay signed in).
    const second = run(['--port', '0'], cwd);
    const again = /Base URL: +(\S+)/.exec(await waitForOutput(second, 'Press Ctrl-C'))![1]!;
    expect(await refresh(again, signedIn.refresh_token)).toBe(200);
    second.child.kill('SIGTERM');
    await withTimeout(second.exited);

    // --ephemeral keeps nothing: a fresh folder stays empty and the banner says so.
    const elsewhere = mkdtempSync(join(dir, 'ephemeral-'));
    const third = run(['--port', '0', '--ephemeral'], elsewhere);
    const thirdOut = await waitForOutput(third, 'Press Ctrl-C');
    expect(thirdOut).toContain('State:       in memory only (--ephemeral)');
    expect(await refresh(/Base URL: +(\S+)/.exec(thirdOut)![1]!, signedIn.refresh_token)).toBe(401);
    third.child.kill('SIGTERM');
    await withTimeout(third.exited);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('startEmulator() from code keeps no state unless given a data file', async () => {
    const cwd = mkdtempSync(join(dir, 'code-'));
    const script = `void (async () => {
      const { startEmulator } = await import(${JSON.stringify(join(root, 'emulator', 'index.ts'))});
      const em = await startEmulator({ port: 0 });
      await fetch(em.url + '/api/v1/auth/password/sign-in', { method: 'POST' });
      await em.stop();
      console.log('stopped');
    })();`;
    const child = spawn(tsx, ['--eval', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await withTimeout(new Promise((done) => child.on('exit', done)))).toBe(0);
    expect(stdout).toContain('stopped');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('warns on stderr when listening beyond this machine, and lists the allowed origins', async () => {
    const r = run([
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--ephemeral',
      '--allow-origin',
      'http://localhost:3000',
      '--allow-origin',
      'https://app.example.com',
    ]);
    const out = await waitForOutput(r, 'Press Ctrl-C');
    expect(r.stderr()).toContain('Warning: listening on 0.0.0.0, which other machines can reach.');
    expect(r.stderr()).toContain('no authentication');
    // The URL to give clients on this machine, not the wildcard address.
    expect(out).toMatch(/Base URL: +http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).toContain('Pages of http://localhost:3000, https://app.example.com may use it too.');
    const baseUrl = /Base URL: +(\S+)/.exec(out)![1]!;
    expect((await fetch(`${baseUrl}/emulator/stats`, { headers: { origin: 'https://app.example.com' } })).status).toBe(
      200,
    );
    expect((await fetch(`${baseUrl}/emulator/stats`, { headers: { origin: 'http://localhost:5173' } })).status).toBe(
      403,
    );
    r.child.kill('SIGTERM');
    expect(await withTimeout(r.exited)).toBe(0);
  });

  it('exits 2 with a clear message on a bad flag or value', async () => {
    const cases = [
      ['--bogus'],
      ['--access-token-ttl', '10 minutes'],
      ['--project-id', 'not-a-uuid'],
      ['--data', 'x.json', '--ephemeral'],
      ['--allow-origin', 'localhost:5173'],
    ];
    // In parallel: each start of tsx costs a second or two.
    const runs = cases.map((args) => run(args));
    const codes = await withTimeout(Promise.all(runs.map((r) => r.exited)));
    expect(codes).toEqual(cases.map(() => 2));
    for (const r of runs) {
      expect(r.stderr()).toMatch(/^authbroker-emulator: .+/);
      expect(r.stderr()).toContain('Usage: authbroker-emulator');
      expect(r.stdout()).toBe('');
    }
    expect(runs[0]!.stderr()).toContain("Unknown option '--bogus'");
    expect(runs[1]!.stderr()).toContain('--access-token-ttl must be a duration');
    expect(runs[3]!.stderr()).toContain('--data and --ephemeral contradict each other');
    expect(runs[4]!.stderr()).toContain('--allow-origin must be an origin like http://localhost:5173');
  });

  it('exits 1 with the SnapshotError message on a corrupt data file, leaving it untouched', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{ this is not json');
    const r = run(['--port', '0', '--data', file]);
    expect(await withTimeout(r.exited)).toBe(1);
    expect(r.stderr()).toContain('is not valid JSON');
    expect(r.stderr()).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe('{ this is not json');
  });
});
