#!/usr/bin/env node
/**
 * `npm run emulator -- --port 8102` (or `authbroker-emulator`): runs the emulator until Ctrl-C.
 * State is kept across restarts in .authbroker-emulator/state.json under the current directory
 * unless --data names another file or --ephemeral asks for none.
 * Exit codes: 0 stopped by a signal, 1 could not start (e.g. a refused data file), 2 bad flags.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseExternalProviderUrl } from './dev/externalOAuthProvider.js';
import { DEFAULT_ALLOWED_ORIGINS, exposureWarning, parseAllowedOrigin } from './http/guard.js';
import type { EmulatorOptions, RunningEmulator } from './index.js';

/** Where the CLI keeps state by default, relative to the current directory. */
export const DEFAULT_DATA_DIR = '.authbroker-emulator';
const DEFAULT_DATA_FILE = join(DEFAULT_DATA_DIR, 'state.json');

const USAGE = `Usage: authbroker-emulator [options]

  --port N                    Port to listen on (default 8102; 0 picks a free one)
  --host HOST                 Interface to listen on (default 127.0.0.1; anything else is reachable
                              from other machines, and the dev endpoints have no authentication)
  --data FILE                 Keep the state in FILE across restarts
                              (default ${DEFAULT_DATA_FILE} under the current directory)
  --ephemeral                 Keep no state: everything is forgotten when the emulator stops
  --allow-origin ORIGIN       A page origin that may use the dev endpoints (/emulator/*: mailbox,
                              faults, clock) and server or admin access (the demo keys are public);
                              repeatable; default http://localhost:5173 (the demo)
  --access-token-ttl DURATION Access token lifetime: 90s, 10m, 1h or milliseconds (default 10m)
  --project-id UUID           The demo project's id
  --publishable-client-key K  The demo project's keys (pck_…, ssk_…, sak_…)
  --secret-server-key K
  --super-secret-admin-key K
  --internal-publishable-client-key K   The "internal" project's keys (any letters, digits, _ and -),
  --internal-secret-server-key K        e.g. Stack Auth's development keys
  --internal-super-secret-admin-key K   (this-publishable-client-key-is-for-local-development-only, …)
  --url-host NAME             The host name of the announced base URL, which tokens are signed with:
                              localhost, an IP address or --host (default: the listening address)
  --inbucket-port N           Also serve the mailbox under Inbucket's REST API (/api/v1/mailbox/NAME)
                              on port N, for tests written against Inbucket
  --oauth-provider-url URL    An OpenID provider that plays every shared OAuth provider instead of the
                              emulator's own (as the service's STACK_OAUTH_MOCK_URL), e.g. Stack Auth's
                              mock OAuth server; the provider id is the client id
  --oauth-provider-client-secret S  Its client secret (default MOCK-SERVER-SECRET)
  --hardcoded-passkey-challenge     Every passkey challenge is the service's fixed testing one (MOCK),
                              so recorded WebAuthn answers replay; for tests only
  --verbose                   Log internal errors
  --help                      Show this help`;

class UsageError extends Error {}

/** `90s`, `10m`, `1h`, `250ms` or plain milliseconds. */
function parseDuration(value: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  const millis = match ? Number(match[1]) * factor[(match[2] as keyof typeof factor | undefined) ?? 'ms'] : NaN;
  if (!Number.isFinite(millis) || millis < 1000)
    throw new UsageError(
      `${flag} must be a duration of at least 1s, like 90s, 10m, 1h or 600000 (milliseconds); got "${value}".`,
    );
  return Math.round(millis);
}

function parsePort(value: string, flag = '--port'): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${flag} must be a number from 0 to 65535; got "${value}".`);
  return Number(value);
}

/** The internal project's keys take any shape, so that the service's development keys can be used. */
function parseAnyKey(value: string, flag: string): string {
  if (!/^[A-Za-z0-9_-]{5,200}$/.test(value))
    throw new UsageError(`${flag} must be 5 to 200 letters, digits, _ and -; got "${value}".`);
  return value;
}

type CliValues = Record<string, string | boolean | string[] | undefined>;

function stringFlag(v: CliValues, name: string): string | undefined {
  const value = v[name];
  return typeof value === 'string' ? value : undefined;
}

function internalProjectKeys(v: CliValues): NonNullable<EmulatorOptions['internalProject']> {
  const keys: NonNullable<EmulatorOptions['internalProject']> = {};
  const read = (flag: string) => {
    const value = stringFlag(v, flag);
    return value === undefined ? undefined : parseAnyKey(value, `--${flag}`);
  };
  const publishable = read('internal-publishable-client-key');
  const server = read('internal-secret-server-key');
  const admin = read('internal-super-secret-admin-key');
  if (publishable !== undefined) keys.publishableClientKey = publishable;
  if (server !== undefined) keys.secretServerKey = server;
  if (admin !== undefined) keys.superSecretAdminKey = admin;
  return keys;
}

/** The options that make the emulator answer as the development service does for its own test suite. */
function serviceLikeOptions(v: CliValues): Partial<EmulatorOptions> {
  const options: Partial<EmulatorOptions> = {};
  const urlHost = stringFlag(v, 'url-host');
  if (urlHost !== undefined) {
    if (!/^[A-Za-z0-9.:-]+$/.test(urlHost)) throw new UsageError(`--url-host must be a host name; got "${urlHost}".`);
    options.urlHost = urlHost;
  }
  const inbucketPort = stringFlag(v, 'inbucket-port');
  if (inbucketPort !== undefined) options.inbucketPort = parsePort(inbucketPort, '--inbucket-port');
  const providerUrl = stringFlag(v, 'oauth-provider-url');
  const providerSecret = stringFlag(v, 'oauth-provider-client-secret');
  if (providerSecret !== undefined && providerUrl === undefined)
    throw new UsageError('--oauth-provider-client-secret needs --oauth-provider-url.');
  if (providerUrl !== undefined) {
    try {
      parseExternalProviderUrl(providerUrl, '--oauth-provider-url');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    options.externalOAuthProvider = {
      url: providerUrl,
      ...(providerSecret === undefined ? {} : { clientSecret: providerSecret }),
    };
  }
  if (v['hardcoded-passkey-challenge'] === true) options.hardcodedPasskeyChallenge = true;
  return options;
}

function parseKey(value: string, flag: string, prefix: string): string {
  if (!value.startsWith(prefix) || !/^[A-Za-z0-9_-]{5,200}$/.test(value))
    throw new UsageError(
      `${flag} must start with ${prefix} and contain only letters, digits, _ and -; got "${value}".`,
    );
  return value;
}

interface CliRun {
  options: EmulatorOptions;
  /** The state file, or null with --ephemeral. */
  dataFile: string | null;
  /** True when the file is the default one (its folder is made on start). */
  defaultDataFile: boolean;
}

function parseCliArgs(argv: string[]): { help: true } | ({ help: false } & CliRun) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        ephemeral: { type: 'boolean' },
        'allow-origin': { type: 'string', multiple: true },
        'access-token-ttl': { type: 'string' },
        'project-id': { type: 'string' },
        'publishable-client-key': { type: 'string' },
        'secret-server-key': { type: 'string' },
        'super-secret-admin-key': { type: 'string' },
        'internal-publishable-client-key': { type: 'string' },
        'internal-secret-server-key': { type: 'string' },
        'internal-super-secret-admin-key': { type: 'string' },
        'url-host': { type: 'string' },
        'inbucket-port': { type: 'string' },
        'oauth-provider-url': { type: 'string' },
        'oauth-provider-client-secret': { type: 'string' },
        'hardcoded-passkey-challenge': { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  const demoProject: NonNullable<EmulatorOptions['demoProject']> = {};
  if (v['project-id'] !== undefined) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v['project-id']))
      throw new UsageError(`--project-id must be a UUID; got "${v['project-id']}".`);
    demoProject.id = v['project-id'].toLowerCase();
  }
  if (v['publishable-client-key'] !== undefined)
    demoProject.publishableClientKey = parseKey(v['publishable-client-key'], '--publishable-client-key', 'pck_');
  if (v['secret-server-key'] !== undefined)
    demoProject.secretServerKey = parseKey(v['secret-server-key'], '--secret-server-key', 'ssk_');
  if (v['super-secret-admin-key'] !== undefined)
    demoProject.superSecretAdminKey = parseKey(v['super-secret-admin-key'], '--super-secret-admin-key', 'sak_');
  if (v.host !== undefined && v.host.trim() === '') throw new UsageError('--host must not be empty.');
  if (v.data !== undefined && v.data.trim() === '') throw new UsageError('--data must name a file.');
  if (v.data !== undefined && v.ephemeral)
    throw new UsageError('--data and --ephemeral contradict each other: keep state in a file, or keep none.');
  const allowOrigins = v['allow-origin']?.map((origin) => {
    try {
      return parseAllowedOrigin(origin, '--allow-origin');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  });
  const dataFile = v.ephemeral ? null : resolve(v.data ?? DEFAULT_DATA_FILE);
  const internalProject = internalProjectKeys(v);
  const options: EmulatorOptions = {
    port: v.port === undefined ? 8102 : parsePort(v.port),
    ...(v.host === undefined ? {} : { host: v.host }),
    ...(dataFile === null ? {} : { dataFile }),
    ...(allowOrigins === undefined ? {} : { allowOrigins }),
    ...(v['access-token-ttl'] === undefined
      ? {}
      : { accessTokenTtlMillis: parseDuration(v['access-token-ttl'], '--access-token-ttl') }),
    ...(Object.keys(demoProject).length === 0 ? {} : { demoProject }),
    ...(Object.keys(internalProject).length === 0 ? {} : { internalProject }),
    ...serviceLikeOptions(v),
    ...(v.verbose ? { verbose: true } : {}),
  };
  return { help: false, options, dataFile, defaultDataFile: !v.ephemeral && v.data === undefined };
}

function banner(
  em: RunningEmulator,
  run: CliRun,
  keyIsValid: typeof import('./auth/authenticate.js').keyIsValid,
): string {
  const demo = em.projects.demo;
  const origins = run.options.allowOrigins ?? DEFAULT_ALLOWED_ORIGINS;
  const lines = [
    'authbroker emulator: the Stack Auth REST API v1, locally.',
    '',
    // First and alone: the one value an app's configuration needs (clients add /api/v1 themselves).
    `  Base URL:  ${em.url}`,
    '             the baseUrl of authbroker and of the official SDKs',
    '',
    `  API:       ${em.apiUrl}`,
    `  Dev page:  ${em.mailboxUrl}   (mailbox, faults, clock, statistics)`,
    `             no authentication, by design: for this machine. Pages of ${origins.length > 0 ? origins.join(', ') : 'no other origin'} may use it too.`,
    ...(em.inbucketUrl === null
      ? []
      : [`  Inbucket:  ${em.inbucketUrl}/api/v1/mailbox/NAME   (the mailbox, as Inbucket's API serves it)`]),
    '',
    `  Project id:              ${demo.id}`,
    `  Publishable client key:  ${demo.publishableClientKey}`,
    `  Secret server key:       ${demo.secretServerKey}`,
    `  Super secret admin key:  ${demo.superSecretAdminKey}`,
    `             public development keys: web pages get server or admin access only from ${origins.length > 0 ? origins.join(', ') : 'no origin'}`,
    '',
    em.demoUser ? `  Demo user:   ${em.demoUser.email} / ${em.demoUser.password}` : '  Demo user:   none',
    `  Admin user:  ${em.adminUser.email} / ${em.adminUser.password}   (project "internal", owns the demo project)`,
    '',
    run.dataFile === null
      ? '  State:       in memory only (--ephemeral): forgotten when the emulator stops.'
      : `  State:       ${run.dataFile}\n               kept across restarts (sessions survive); --ephemeral keeps none, --data FILE another file.`,
  ];
  // With a data file the stored project keeps its own keys; say so rather than print keys that fail.
  const project = em.env.store.project(demo.id);
  const now = em.env.clock.now();
  if (!project || !keyIsValid(project, 'publishable_client_key', demo.publishableClientKey, now)) {
    lines.push('', '  Note: the state file holds other keys (or no such project); the keys above do not apply to it.');
  }
  lines.push('', 'Press Ctrl-C to stop.');
  return lines.join('\n');
}

/**
 * Makes the default state folder, with a .gitignore of its own so that the state (password hashes,
 * project keys) is not committed by accident in the app's repository.
 */
function prepareDefaultDataDir(): void {
  mkdirSync(DEFAULT_DATA_DIR, { recursive: true });
  writeFileSync(join(DEFAULT_DATA_DIR, '.gitignore'), "# The authbroker emulator's local state.\n*\n");
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`authbroker-emulator: ${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Loaded only now, so that a mistyped flag is answered without loading the whole emulator.
  const [{ SnapshotError, startEmulator }, { keyIsValid }] = await Promise.all([
    import('./index.js'),
    import('./auth/authenticate.js'),
  ]);
  const warning = exposureWarning(parsed.options.host ?? '127.0.0.1');
  if (warning !== null) process.stderr.write(`authbroker-emulator: ${warning}\n\n`);
  let em: RunningEmulator;
  try {
    if (parsed.defaultDataFile) prepareDefaultDataDir();
    em = await startEmulator(parsed.options);
  } catch (error) {
    const message = error instanceof SnapshotError ? error.message : `Cannot start: ${(error as Error).message}`;
    process.stderr.write(`authbroker-emulator: ${message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${banner(em, parsed, keyIsValid)}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second Ctrl-C means "now".
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`\nReceived ${signal}, stopping.\n`);
    em.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

await main(process.argv.slice(2));
