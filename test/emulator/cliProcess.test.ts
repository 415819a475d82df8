import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

/** The emulator's command line, run as a real process (tsx, as `npm run emulator` does). */

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const dir = mkdtempSync(join(tmpdir(), 'authbroker-cli-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[]): Run {
  const child = spawn(tsx, ['emulator/cli.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const timer = setTimeout(() => reject(new Error(`No "${text}" within ${timeoutMillis} ms. stdout: ${r.stdout()} stderr: ${r.stderr()}`)), timeoutMillis);
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
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`Timed out after ${millis} ms`)), millis))]);
}

// Process starts are slow on a busy machine; every wait below is bounded by its own timeout.
describe('emulator CLI', { timeout: 45_000 }, () => {
  it('prints the URLs, keys and users, serves, and stops cleanly on SIGTERM', async () => {
    const projectId = '0d6c6f0e-3b7a-4c55-9a3e-2f1d0c9b8a71';
    const keys = { pck: 'pck_clitestpublishablekey0000000000000000000000000', ssk: 'ssk_clitestsecretserverkey000000000000000000000000', sak: 'sak_clitestsuperadminkey0000000000000000000000000' };
    const r = run([
      '--port', '0', '--host', '127.0.0.1', '--access-token-ttl', '90s', '--data', join(dir, 'cli-state.json'),
      '--project-id', projectId, '--publishable-client-key', keys.pck, '--secret-server-key', keys.ssk, '--super-secret-admin-key', keys.sak,
    ]);
    const out = await waitForOutput(r, 'Press Ctrl-C');
    const apiUrl = /API URL:\s+(http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(out)?.[1];
    expect(apiUrl).toBeDefined();
    expect(out).toMatch(/Mailbox:\s+http:\/\/127\.0\.0\.1:\d+\/emulator/);
    for (const value of [projectId, keys.pck, keys.ssk, keys.sak, 'demo@authbroker.dev', 'demo-password', 'admin@authbroker.dev', 'admin-password']) expect(out).toContain(value);

    const response = await fetch(`${apiUrl}/projects/current`, { headers: { 'x-stack-project-id': projectId, 'x-stack-access-type': 'client', 'x-stack-publishable-client-key': keys.pck } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(projectId);
    const page = await fetch(apiUrl!.replace('/api/v1', '/emulator'));
    expect(await page.text()).toContain(projectId);

    r.child.kill('SIGTERM');
    expect(await withTimeout(r.exited)).toBe(0);
    expect(r.stdout()).toContain('stopping');
  });

  it('exits 2 with a clear message on a bad flag or value', async () => {
    const cases = [['--bogus'], ['--access-token-ttl', '10 minutes'], ['--project-id', 'not-a-uuid']];
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
