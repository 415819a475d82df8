/**
 * `authbroker-emulator`: a local service speaking the Stack Auth REST API v1, for tests, demos and
 * your own development, with no account and no network.
 *
 * @module authbroker-emulator
 */
import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { EmulatorClock } from './clock.js';
import { registerDevRoutes } from './dev/routes.js';
import type { EmulatorEnv } from './env.js';
import { Faults } from './faults.js';
import { createAccessPolicy, DEFAULT_ALLOWED_ORIGINS, parseAllowedOrigin } from './http/guard.js';
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
    allowedOrigins: allowOrigins,
    log: options.verbose ? (line) => console.error(`[emulator] ${line}`) : () => undefined,
  };
  const api = new Router();
  registerApiRoutes(api);
  const dev = new Router();
  registerDevRoutes(dev);

  const server: Server = createServer((req, res) => {
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
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // Listening on every interface, this machine still reaches it on loopback: that is the URL to give clients here.
  const reachable = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const host = isIP(reachable) === 6 ? `[${reachable}]` : reachable;
  env.baseUrl = `http://${host}:${address.port}`;

  return {
    url: env.baseUrl,
    apiUrl: `${env.baseUrl}/api/v1`,
    mailboxUrl: `${env.baseUrl}/emulator`,
    port: address.port,
    projects: { internal, demo },
    demoUser,
    adminUser,
    env,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { projectJwks };
export type { ProjectKeys, SeedUser } from './state/seed.js';
export type { MailboxItem } from './mailbox.js';
export type { FaultRuleInput, FaultEffect } from './faults.js';
export type { StatsSnapshot } from './stats.js';
