import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The command line's options for running a test suite written for the development service
 * (Stack Auth's own end-to-end suite): the internal project's keys, the announced host, the
 * Inbucket-compatible mailbox, an external OpenID provider, the fixed passkey challenge.
 */

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const children: ChildProcess[] = [];

// tsx runs the CLI in a child process of its own: the whole process group goes, or that child outlives the test.
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

interface Run {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[]): Run {
  const child = spawn(tsx, [join(root, 'emulator', 'cli.ts'), '--ephemeral', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { stdout: () => stdout, stderr: () => stderr, exited };
}

async function banner(r: Run, timeoutMillis = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMillis;
  while (!r.stdout().includes('Press Ctrl-C')) {
    if (Date.now() > deadline) throw new Error(`No banner. stdout: ${r.stdout()} stderr: ${r.stderr()}`);
    const exited = await Promise.race([r.exited.then(() => true), new Promise((done) => setTimeout(done, 100))]);
    if (exited === true) throw new Error(`Exited early. stderr: ${r.stderr()}`);
  }
  return r.stdout();
}

const DEV_KEYS = {
  pck: 'this-publishable-client-key-is-for-local-development-only',
  ssk: 'this-secret-server-key-is-for-local-development-only',
  sak: 'this-super-secret-admin-key-is-for-local-development-only',
};

describe('emulator CLI: options for a suite written for the service', { timeout: 60_000 }, () => {
  it('takes the internal keys, announces localhost, serves the Inbucket API and the fixed challenge', async () => {
    const r = run([
      '--port',
      '0',
      '--inbucket-port',
      '0',
      '--url-host',
      'localhost',
      '--internal-publishable-client-key',
      DEV_KEYS.pck,
      '--internal-secret-server-key',
      DEV_KEYS.ssk,
      '--internal-super-secret-admin-key',
      DEV_KEYS.sak,
      '--oauth-provider-url',
      'http://localhost:8114',
      '--hardcoded-passkey-challenge',
    ]);
    const out = await banner(r);
    const baseUrl = /Base URL: +(http:\/\/localhost:\d+)/.exec(out)?.[1];
    const inbucketUrl = /Inbucket: +(http:\/\/localhost:\d+)\/api\/v1\/mailbox\/NAME/.exec(out)?.[1];
    expect(baseUrl).toBeDefined();
    expect(inbucketUrl).toBeDefined();
    const internal = { 'x-stack-project-id': 'internal', 'content-type': 'application/json' };
    const admin = { ...internal, 'x-stack-access-type': 'admin', 'x-stack-super-secret-admin-key': DEV_KEYS.sak };
    const asAdmin = await fetch(`${baseUrl}/api/v1/internal/projects/current`, {
      headers: {
        'x-stack-project-id': 'internal',
        'x-stack-access-type': 'admin',
        'x-stack-super-secret-admin-key': DEV_KEYS.sak,
      },
    });
    expect(asAdmin.status, await asAdmin.clone().text()).toBe(200);
    const client = { ...internal, 'x-stack-access-type': 'client', 'x-stack-publishable-client-key': DEV_KEYS.pck };
    const email = `cli-${Date.now()}@example.com`;
    const sent = await fetch(`${baseUrl}/api/v1/auth/otp/send-sign-in-code`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ email, callback_url: 'http://localhost:3000/magic' }),
    });
    expect(sent.status).toBe(200);
    const mailbox = (await (await fetch(`${inbucketUrl}/api/v1/mailbox/${email.split('@')[0]}`)).json()) as unknown[];
    expect(mailbox).toHaveLength(1);
    const enabled = await fetch(`${baseUrl}/api/v1/internal/projects/current`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ config: { passkey_enabled: true } }),
    });
    expect(enabled.status).toBe(200);
    const passkey = await fetch(`${baseUrl}/api/v1/auth/passkey/initiate-passkey-authentication`, {
      method: 'POST',
      headers: client,
      body: '{}',
    });
    expect(((await passkey.json()) as { options_json: { challenge: string } }).options_json.challenge).toBe('TU9DSw');
  });

  it('refuses malformed values with exit code 2', async () => {
    const cases = [
      ['--inbucket-port', 'abc'],
      ['--internal-publishable-client-key', 'no spaces allowed'],
      ['--oauth-provider-url', 'not a url'],
      ['--oauth-provider-client-secret', 's3cret'],
      ['--url-host', 'bad/host'],
    ];
    const runs = cases.map((args) => run(args));
    for (const [i, r] of runs.entries()) {
      expect(await r.exited, cases[i]!.join(' ')).toBe(2);
      expect(r.stderr()).toMatch(new RegExp(`authbroker-emulator: .*${cases[i]![0]!.replace(/^--/, '')}`));
    }
  });
});
