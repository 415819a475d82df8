/**
 * `authbroker/emulator`: the emulator from the `authbroker-emulator` package, which is installed
 * separately so that browser apps do not get its server-side dependencies. Prefer importing
 * `authbroker-emulator` itself; this entry loads it on first use and says how to install it.
 *
 * @module authbroker/emulator
 */
import type * as EmulatorModule from 'authbroker-emulator';
import { ClientError } from '../protocol/errors/errors.js';

export type {
  EmulatorOptions,
  FaultEffect,
  FaultRuleInput,
  MailboxItem,
  ProjectKeys,
  RunningEmulator,
  SeedUser,
  StatsSnapshot,
} from 'authbroker-emulator';

/** The emulator's package name. */
export const EMULATOR_PACKAGE = 'authbroker-emulator';
/** The command that installs the emulator beside your app. */
export const EMULATOR_INSTALL_COMMAND = 'npm install --save-dev authbroker-emulator';

function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Only the package itself: a dependency missing inside it is another problem, reported as is.
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    new RegExp(`['"]${name}['"]`).test(message)
  );
}

/**
 * The whole `authbroker-emulator` module. Throws ClientError `PACKAGE_NOT_INSTALLED`, naming the
 * install command, when that package is not installed.
 */
export async function loadEmulator(): Promise<typeof EmulatorModule> {
  try {
    return await import('authbroker-emulator');
  } catch (error) {
    if (!isMissingPackage(error, EMULATOR_PACKAGE)) throw error;
    throw new ClientError(
      'PACKAGE_NOT_INSTALLED',
      `authbroker/emulator needs the ${EMULATOR_PACKAGE} package, which is not installed (it is kept apart so that browser apps do not install its server-side dependencies). Install it with: ${EMULATOR_INSTALL_COMMAND}`,
    );
  }
}

/** Starts a local emulator (see `authbroker-emulator`); `port: 0` picks a free port. */
export async function startEmulator(options?: EmulatorModule.EmulatorOptions): Promise<EmulatorModule.RunningEmulator> {
  return (await loadEmulator()).startEmulator(options);
}
