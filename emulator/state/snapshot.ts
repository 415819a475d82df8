import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { STATE_VERSION, type EmulatorState } from './model.js';

/** Why a snapshot file cannot be used. The file is then left exactly as it is. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** Reads a snapshot; null when the file does not exist yet. */
export function loadSnapshot(file: string): EmulatorState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SnapshotError(`Cannot read the data file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SnapshotError(
      `The data file ${file} is not valid JSON (corrupt or not an emulator snapshot). It was left untouched; move it away or pass another --data file.`,
    );
  }
  const record = parsed as Partial<EmulatorState> | null;
  if (
    typeof record !== 'object' ||
    record === null ||
    record.format !== 'authbroker-emulator' ||
    typeof record.projects !== 'object' ||
    record.projects === null
  ) {
    throw new SnapshotError(`The data file ${file} is not an authbroker emulator snapshot. It was left untouched.`);
  }
  if (typeof record.version !== 'number' || record.version > STATE_VERSION) {
    throw new SnapshotError(
      `The data file ${file} was written by a newer emulator (format version ${String(record.version)}); this one reads version ${STATE_VERSION}. It was left untouched: upgrade authbroker or use another file.`,
    );
  }
  if (record.version < STATE_VERSION) {
    throw new SnapshotError(
      `The data file ${file} has format version ${record.version}, which this emulator cannot upgrade. It was left untouched.`,
    );
  }
  return record as EmulatorState;
}

/**
 * Writes the snapshot atomically (temp file, fsync, rename), readable by the owner only. The temp
 * file has a fresh random name and is created exclusively (`wx`): whatever another user of the
 * machine planted beside the data file (a symlink to a file of ours, a world-readable file) makes
 * the write fail rather than be followed or inherited, and the file renamed into place is always
 * the new one, with mode 0600.
 */
export function saveSnapshot(file: string, state: EmulatorState): void {
  const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
