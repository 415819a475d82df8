/**
 * `authbroker-emulator`: a local service speaking the Stack Auth REST API v1, for tests, demos and
 * your own development, with no account and no network.
 *
 * @module authbroker-emulator
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { EmulatorClock } from './clock.js';
import { registerDevRoutes } from './dev/routes.js';
import type { EmulatorEnv } from './env.js';
import { Faults } from './faults.js';
import { createAccessPolicy, DEFAULT_ALLOWED_ORIGINS, parseAllowedOrigin, type AccessPolicy } from './http/guard.js';
import { Router } from './http/router.js';
import { Mailbox } from './mailbox.js';
import { registerApiRoutes } from './routes/index.js';
import { errorReply, handleApiRequest, handleDevRequest, isApiPath, writeReply } from './server.js';
import {
  DEFAULT_ADMIN_USER,
  DEFAULT_DEMO_PROJECT,
  DEFAULT_DEMO_USER,
  DEFAULT_INTERNAL_PROJECT,
  seedState,
  type ProjectKeys,
  type SeedUser,
} from './state/seed.js';
import { completeAudienceKeys } from './state/projects.js';
import { loadSnapshot, saveSnapshot, SnapshotError } from './state/snapshot.js';
import { Store } from './state/store.js';
import { Stats } from './stats.js';
import { projectJwks } from './auth/jwt.js';
import { createExternalOAuthProvider, type ExternalOAuthProviderOptions } from './dev/externalOAuthProvider.js';
import { inbucketListener } from './dev/inbucket.js';
import { InvalidArgumentError } from '../protocol/errors/errors.js';

export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the emulator is for this machine only. */
  host?: string;
  /**
   * Origins whose pages may use the dev endpoints (`/emulator/*`) besides the emulator's own;
   * default the demo's `http://localhost:5173`. They alone, besides the emulator's own pages, may
   * also use server and admin access (the demo keys are public); the client API answers every origin.
   */
  allowOrigins?: string[];
  /** Load state from this file at start and save it after every change. */
  dataFile?: string;
  /** Lifetime of access tokens; default 10 minutes like the service. */
  accessTokenTtlMillis?: number;
  /** The demo project's id and keys (defaults are fixed development values). */
  demoProject?: Partial<ProjectKeys>;
  internalProject?: Partial<Omit<ProjectKeys, 'id'>>;
  /** The seeded demo user; `null` for none. */
  demoUser?: SeedUser | null;
  /** The seeded owner of the demo project, in the `internal` project. */
  adminUser?: SeedUser;
  /** Print a line per internal error. */
  verbose?: boolean;
  /**
   * The host name of the base URL the emulator announces and signs its tokens' issuer with: the
   * listening address by default (`127.0.0.1`), or e.g. `localhost` for clients that call it so.
   * `localhost`, an IP address or `host`.
   */
  urlHost?: string;
  /**
   * Also serve the mailbox under Inbucket's REST API v1 (`GET /api/v1/mailbox/{name}`, `…/{id}`) on
   * this port (0 picks a free one), for tests written against the mail server Stack Auth develops with.
   */
  inbucketPort?: number;
  /**
   * An OpenID provider that plays every shared OAuth provider instead of the emulator's own mock
   * provider, as the development service's `STACK_OAUTH_MOCK_URL` does (e.g. Stack Auth's mock OAuth
   * server): the provider id is the client id, `clientSecret` (default `MOCK-SERVER-SECRET`) the secret.
   */
  externalOAuthProvider?: ExternalOAuthProviderOptions;
  /**
   * Every passkey challenge is the development service's fixed `MOCK` (`TU9DSw`), as its
   * `STACK_ENABLE_HARDCODED_PASSKEY_CHALLENGE_FOR_TESTING` makes it, so recorded WebAuthn answers replay.
   * For tests only: a fixed challenge lets any recorded answer sign in.
   */
  hardcodedPasskeyChallenge?: boolean;
  /**
   * The stall of `send-reset-code` for unknown e-mails: a fixed value or a [min, max] range.
   * Default [2000, 3000] like the service; tests shorten it.
   */
  unknownEmailDelayMillis?: number | [number, number];
}

export interface RunningEmulator {
  /** e.g. `http://127.0.0.1:8102`: the base URL clients use. */
  url: string;
  apiUrl: string;
  mailboxUrl: string;
  /** The Inbucket-compatible mailbox API's base URL (`inbucketPort`), or null when not served. */
  inbucketUrl: string | null;
  port: number;
  projects: { internal: ProjectKeys; demo: ProjectKeys };
  demoUser: SeedUser | null;
  adminUser: SeedUser;
  /** The running state and services, for in-process tests. */
  env: EmulatorEnv;
  stop(): Promise<void>;
}

export { SnapshotError };

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const allowOrigins = (options.allowOrigins ?? DEFAULT_ALLOWED_ORIGINS).map((origin, i) =>
    parseAllowedOrigin(origin, `allowOrigins[${i}]`),
  );
  const policy = createAccessPolicy({ host: options.host ?? '127.0.0.1', allowOrigins });
  if (options.urlHost !== undefined && !policy.hostAllowed(options.urlHost))
    throw new InvalidArgumentError(
      'urlHost',
      `urlHost must be localhost, an IP address or the host the emulator listens on; got "${options.urlHost}".`,
    );
  const externalOAuthProvider =
    options.externalOAuthProvider === undefined ? null : createExternalOAuthProvider(options.externalOAuthProvider);
  const clock = new EmulatorClock();
  const demo: ProjectKeys = { ...DEFAULT_DEMO_PROJECT, ...options.demoProject };
  const internal: ProjectKeys = { ...DEFAULT_INTERNAL_PROJECT, ...options.internalProject, id: 'internal' };
  const demoUser = options.demoUser === undefined ? DEFAULT_DEMO_USER : options.demoUser;
  const adminUser = options.adminUser ?? DEFAULT_ADMIN_USER;

  const loaded = options.dataFile === undefined ? null : loadSnapshot(options.dataFile);
  const keysAdded = loaded !== null && (await completeAudienceKeys(Object.values(loaded.projects)));
  const store = new Store(loaded ?? (await seedState({ demo, internal, demoUser, adminUser, now: clock.now() })));
  if (options.dataFile !== undefined) {
    const file = options.dataFile;
    let pending = false;
    // Coalesce the saves of one turn of the event loop into one write.
    store.onChange(() => {
      if (pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        saveSnapshot(file, store.state);
      });
    });
    if (loaded === null || keysAdded) saveSnapshot(file, store.state);
  }

  const env: EmulatorEnv = {
    store,
    clock,
    mailbox: new Mailbox(() => clock.now()),
    stats: new Stats(() => clock.now()),
    faults: new Faults(),
    accessTokenTtlMillis: options.accessTokenTtlMillis ?? 10 * 60 * 1000,
    baseUrl: '',
    unknownEmailDelayMillis: () => {
      const delay = options.unknownEmailDelayMillis ?? [2000, 3000];
      return typeof delay === 'number' ? delay : delay[0] + Math.random() * (delay[1] - delay[0]);
    },
    hardcodedPasskeyChallenge: options.hardcodedPasskeyChallenge ?? false,
    externalOAuthProvider,
    allowedOrigins: allowOrigins,
    log: options.verbose ? (line) => console.error(`[emulator] ${line}`) : () => undefined,
  };
  const server: Server = createServer(requestListener(env, policy));
  server.keepAliveTimeout = 5000;

  const address = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  // Listening on every interface, this machine still reaches it on loopback: that is the URL to give clients here.
  const reachable = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const urlHost = options.urlHost ?? reachable;
  const host = isIP(urlHost) === 6 ? `[${urlHost}]` : urlHost;
  env.baseUrl = `http://${host}:${address.port}`;
  let inbucket: Server | null = null;
  let inbucketUrl: string | null = null;
  if (options.inbucketPort !== undefined) {
    inbucket = createServer(inbucketListener(env, policy));
    try {
      inbucketUrl = `http://${host}:${(await listen(inbucket, options.inbucketPort, options.host ?? '127.0.0.1')).port}`;
    } catch (error) {
      await close(server);
      throw error;
    }
  }

  return {
    url: env.baseUrl,
    apiUrl: `${env.baseUrl}/api/v1`,
    mailboxUrl: `${env.baseUrl}/emulator`,
    inbucketUrl,
    port: address.port,
    projects: { internal, demo },
    demoUser,
    adminUser,
    env,
    stop: async () => {
      await Promise.all([close(server), inbucket === null ? undefined : close(inbucket)]);
    },
  };
}

/** Every request of the emulator's port: the API, the dev endpoints, `/health` and the legacy key set. */
function requestListener(env: EmulatorEnv, policy: AccessPolicy): (req: IncomingMessage, res: ServerResponse) => void {
  const api = new Router();
  registerApiRoutes(api);
  const dev = new Router();
  registerDevRoutes(dev);

  return (req, res) => {
    if (!policy.hostAllowed(req.headers.host)) {
      return void writeReply(
        res,
        { kind: 'text', status: 403, body: policy.hostRefusal(req.headers.host ?? '') },
        { cors: false, override: false, pretty: false },
      );
    }
    const url = new URL(req.url ?? '/', env.baseUrl || 'http://127.0.0.1');
    const done = (promise: Promise<void>) =>
      promise.catch((error: unknown) => {
        if (!res.headersSent)
          writeReply(res, errorReply(error, env.log), { cors: true, override: false, pretty: false });
        else res.destroy();
      });
    if (isApiPath(url.pathname)) return void done(handleApiRequest(env, api, req, res, url));
    if (url.pathname === '/emulator' || url.pathname.startsWith('/emulator/'))
      return void done(handleDevRequest(env, dev, policy, req, res, url));
    if (url.pathname === '/health') {
      // Faults may target /health too, so that tests can make the service look unreachable.
      return void done(
        (async () => {
          const fault = env.faults.pick((req.method ?? 'GET').toUpperCase(), url.pathname);
          if (fault) env.stats.fault(fault.type);
          if (fault?.type === 'latency') await new Promise((resolve) => setTimeout(resolve, fault.ms));
          if (fault?.type === 'drop') return void req.socket.destroy();
          if (fault?.type === 'status' || fault?.type === 'loop-detected') {
            return void writeReply(
              res,
              { kind: 'text', status: fault.type === 'status' ? fault.status : 508, body: 'Unavailable' },
              { cors: true, override: false, pretty: false },
            );
          }
          writeReply(
            res,
            { kind: 'json', status: 200, body: { status: 'ok' } },
            { cors: true, override: false, pretty: false },
          );
        })(),
      );
    }
    if (url.pathname === '/.well-known/jwks.json') {
      // The legacy global key set, for tokens without an audience; the emulator issues none.
      const body = {
        keys: [] as unknown[],
        message:
          'This is the legacy global key set; tokens carry their project in "aud". See /api/v1/projects/{project_id}/.well-known/jwks.json.',
      };
      return void writeReply(res, { kind: 'json', status: 200, body }, { cors: true, override: false, pretty: false });
    }
    writeReply(
      res,
      {
        kind: 'text',
        status: 404,
        body: `Not found: ${url.pathname}. The API is under /api/v1; the emulator's own pages under /emulator.`,
      },
      { cors: true, override: false, pretty: false },
    );
  };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export { projectJwks };
export type { ProjectKeys, SeedUser } from './state/seed.js';
export type { MailboxItem } from './mailbox.js';
export type { ExternalOAuthProviderOptions } from './dev/externalOAuthProvider.js';
export type { FaultRuleInput, FaultEffect } from './faults.js';
export type { StatsSnapshot } from './stats.js';
