import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotError, startEmulator, type RunningEmulator } from '../../emulator/index.js';
import { endpoints, refreshAccessToken } from '../../protocol/index.js';
import { transportFor, uniqueEmail } from '../support/emulator.js';
import { authorizeUrl } from '../support/oauth.js';
import { keyHeaders, raw, signInAdmin } from './httpSupport.js';

const dir = mkdtempSync(join(tmpdir(), 'authbroker-persistence-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withEmulator<T>(dataFile: string, run: (em: RunningEmulator) => Promise<T>): Promise<T> {
  const em = await startEmulator({ port: 0, dataFile });
  try {
    return await run(em);
  } finally {
    await em.stop();
  }
}

describe('persistence with a data file', () => {
  it('keeps users and sessions across a restart', async () => {
    const file = join(dir, 'state.json');
    const email = uniqueEmail('persist');
    const first = await withEmulator(file, async (em) => {
      const signedUp = await endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email,
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/v',
      });
      const { access_token } = await signInAdmin(em);
      const project = await endpoints.createProject(
        transportFor(em, 'client', { project: 'internal', accessToken: access_token }),
        { display_name: 'Persisted' },
      );
      return { signedUp, projectId: project.id, demo: em.projects.demo };
    });

    await withEmulator(file, async (em) => {
      // The refresh token from before the restart still works, and so does the old access token.
      const refreshed = await refreshAccessToken(
        { baseUrl: em.url, projectId: first.demo.id, publishableClientKey: first.demo.publishableClientKey },
        first.signedUp.refresh_token,
      );
      const me = await endpoints.getCurrentUser(transportFor(em, 'client', { accessToken: refreshed.access_token }));
      expect(me?.primary_email).toBe(email);
      const old = await raw(em, 'GET', '/api/v1', {
        headers: { ...keyHeaders(em, 'client'), 'x-stack-access-token': first.signedUp.access_token },
      });
      expect(old.text.endsWith(`  User: ${email}`)).toBe(true);
      const again = await endpoints.signInWithPassword(transportFor(em, 'client'), {
        email,
        password: 'correct horse',
      });
      expect(again.user_id).toBe(first.signedUp.user_id);
      expect(em.env.store.project(first.projectId)?.display_name).toBe('Persisted');
    });
  });

  it('writes owner-only files through a temp file and a rename', async () => {
    const file = join(dir, 'atomic.json');
    await withEmulator(file, async (em) => {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // A hard link keeps the old inode: a write in place would change it, a rename does not.
      const before = join(dir, 'atomic-before.json');
      linkSync(file, before);
      const oldBytes = readFileSync(before);
      const inode = statSync(file).ino;
      await endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email: uniqueEmail('atomic'),
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/v',
      });
      expect(statSync(file).ino).not.toBe(inode);
      expect(readFileSync(before)).toEqual(oldBytes);
      expect(readFileSync(file)).not.toEqual(oldBytes);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      JSON.parse(readFileSync(file, 'utf8'));
    });
  });

  it("reads a data file written before the service dropped the providers' enabled flag: a provider switched off there stays off", async () => {
    const file = join(dir, 'providers-v27.json');
    const demoId = await withEmulator(file, async (em) => em.projects.demo.id);
    const state = JSON.parse(readFileSync(file, 'utf8')) as {
      projects: Record<string, { config: { oauth_providers: Array<Record<string, unknown>> } }>;
    };
    // As 0.1.0 wrote it: every provider with `enabled`, GitHub off.
    state.projects[demoId]!.config.oauth_providers = state.projects[demoId]!.config.oauth_providers.map((o) => ({
      ...o,
      enabled: o.id !== 'github',
    }));
    writeFileSync(file, JSON.stringify(state), { mode: 0o600 });

    await withEmulator(file, async (em) => {
      const client = await endpoints.getCurrentProject(transportFor(em, 'client'));
      expect(client.config.enabled_oauth_providers).toEqual([{ id: 'google' }]);
      const admin = await endpoints.getCurrentProject(transportFor(em, 'admin'));
      // Listed in today's shape: no `enabled`, and the one switched off left out.
      expect(admin.config.oauth_providers).toEqual([
        {
          provider_config_id: 'google',
          id: 'google',
          type: 'standard',
          client_id: 'emulator-google-client',
          client_secret: 'emulator-google-secret',
        },
      ]);
      const { url } = await authorizeUrl(em, { providerId: 'github' });
      const refused = await fetch(url, { redirect: 'manual' });
      expect(refused.headers.get('x-stack-known-error')).toBe('OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');
      // Written back by an update, the list is today's: what it names is on.
      const rewritten = await endpoints.updateCurrentProject(transportFor(em, 'admin'), {
        config: { oauth_providers: [{ id: 'github', type: 'shared' }] },
      });
      expect(rewritten.config.enabled_oauth_providers).toEqual([{ id: 'github' }]);
    });
  });

  it('refuses a corrupt file with a clear SnapshotError and leaves it byte for byte', async () => {
    const file = join(dir, 'corrupt.json');
    const bytes = Buffer.from('{"format":"authbroker-emulator","version":1,"projects":{ truncated');
    writeFileSync(file, bytes, { mode: 0o600 });
    const error = await startEmulator({ port: 0, dataFile: file }).then(
      async (em) => {
        await em.stop();
        throw new Error('started');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toContain('not valid JSON');
    expect((error as Error).message).toContain(file);
    expect(readFileSync(file)).toEqual(bytes);
  });

  it('refuses a file written by a newer version and leaves it byte for byte', async () => {
    const file = join(dir, 'newer.json');
    const bytes = Buffer.from(JSON.stringify({ format: 'authbroker-emulator', version: 99, projects: {} }));
    writeFileSync(file, bytes, { mode: 0o600 });
    const error = await startEmulator({ port: 0, dataFile: file }).then(
      async (em) => {
        await em.stop();
        throw new Error('started');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(/newer emulator \(format version 99\)/);
    expect(readFileSync(file)).toEqual(bytes);
  });

  it('refuses a JSON file that is not a snapshot', async () => {
    const file = join(dir, 'other.json');
    const bytes = Buffer.from('{"name":"package"}');
    writeFileSync(file, bytes);
    await expect(startEmulator({ port: 0, dataFile: file })).rejects.toBeInstanceOf(SnapshotError);
    expect(readFileSync(file)).toEqual(bytes);
  });
});
