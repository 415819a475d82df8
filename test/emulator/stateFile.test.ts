import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { saveSnapshot } from '../../emulator/state/snapshot.js';
import { STATE_VERSION, type EmulatorState } from '../../emulator/state/model.js';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail } from '../support/emulator.js';

/**
 * The state file holds password hashes and project keys. Another user of the machine may plant files beside it
 * (a shared or world-writable folder): the emulator's writes must neither follow nor inherit them.
 */
const dir = mkdtempSync(join(tmpdir(), 'authbroker-state-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EMPTY: EmulatorState = { format: 'authbroker-emulator', version: STATE_VERSION, projects: {} };
const modeOf = (file: string) => statSync(file).mode & 0o777;

describe("the emulator's state file", () => {
  it('follows no symlink planted at the temporary name it used to use, and leaves its target untouched', async () => {
    const folder = mkdtempSync(join(dir, 'symlink-'));
    const file = join(folder, 'state.json');
    const victim = join(folder, 'victim.txt');
    writeFileSync(victim, 'not yours to overwrite\n');
    // The old writer opened `${file}.${pid}.tmp` with 'w': a symlink there sent the state into the victim.
    const planted = `${file}.${process.pid}.tmp`;
    symlinkSync(victim, planted);

    const em = await startEmulator({ port: 0, dataFile: file });
    try {
      await endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email: uniqueEmail('state-file'),
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/v',
      });
    } finally {
      await em.stop();
    }
    expect(readFileSync(victim, 'utf8')).toBe('not yours to overwrite\n');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'authbroker-emulator' });
    expect(modeOf(file)).toBe(0o600);
  });

  it('writes the file with mode 0600 even over world-readable files of the same names', () => {
    const folder = mkdtempSync(join(dir, 'modes-'));
    const file = join(folder, 'state.json');
    for (const name of [file, `${file}.${process.pid}.tmp`]) {
      writeFileSync(name, '{}');
      chmodSync(name, 0o666);
    }
    saveSnapshot(file, EMPTY);
    expect(modeOf(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(EMPTY);
    // Nothing of the write is left behind; the planted file is not the one renamed into place.
    expect(readdirSync(folder).sort()).toEqual(['state.json', `state.json.${process.pid}.tmp`]);
    expect(readFileSync(`${file}.${process.pid}.tmp`, 'utf8')).toBe('{}');
  });

  it('uses a fresh temporary name for every write, and leaves none behind when a write fails', () => {
    const folder = mkdtempSync(join(dir, 'fresh-'));
    const file = join(folder, 'state.json');
    saveSnapshot(file, EMPTY);
    saveSnapshot(file, EMPTY);
    expect(readdirSync(folder)).toEqual(['state.json']);
    // A folder in the way of the rename: the write fails, its temporary file is removed.
    const blocked = join(folder, 'blocked');
    mkdirSync(join(blocked, 'inner'), { recursive: true });
    expect(() => saveSnapshot(blocked, EMPTY)).toThrow();
    expect(readdirSync(folder).sort()).toEqual(['blocked', 'state.json']);
  });
});
