/**
 * What the feature scenarios (this folder) run against: a service and one normal project of it,
 * with its four keys. The same scenario runs against the emulator (its demo project) in the normal
 * suites and against the real Stack Auth backend in the real-service lane, so a scenario asserts
 * only what the service itself does: statuses, known-error codes, key sets, and what our client
 * makes of them. Nothing here reads the emulator's internals.
 */
import 'fake-indexeddb/auto';
import { decodeJwt } from 'jose';
import { it } from 'vitest';
import type { RunningEmulator } from '../../../emulator/index.js';
import type { AuthBrokerError } from '../../../protocol/errors/errors.js';
import { isKnownError } from '../../../protocol/errors/knownError.js';
import type { AccessType } from '../../../protocol/resources/common.js';
import { createAdminApp, createServerApp, type AdminApp, type ServerApp } from '../../../protocol/server.js';
import { createTransport, staticTokenSource, type Transport } from '../../../protocol/transport.js';
import type { TabHandlerUrls } from '../../../worker/index.js';
import type { Broker } from '../../../worker/broker.js';
import { createBroker } from '../../../worker/index.js';
import { compressedClock } from '../broker.js';
import { LocalLockManager } from '../locks.js';
import { connectTab, type SimulatedTab } from '../tabs.js';

export interface ServiceTarget {
  /** The service's origin, e.g. `http://127.0.0.1:8202` (without `/api/v1`). */
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
  /** Sent with every call (the real backend in development wants `x-stack-disable-artificial-development-delay`). */
  extraRequestHeaders?: Record<string, string>;
}

/** One scenario: a self-contained story against a target, failing through `expect`. */
export type Scenario = (target: ServiceTarget) => Promise<void>;
export type Scenarios = Record<string, Scenario>;

/** The emulator's demo project as a target. */
export function emulatorTarget(emulator: RunningEmulator): ServiceTarget {
  const { demo } = emulator.projects;
  return { baseUrl: emulator.url, projectId: demo.id, publishableClientKey: demo.publishableClientKey, secretServerKey: demo.secretServerKey, superSecretAdminKey: demo.superSecretAdminKey };
}

/**
 * The target named by the environment (the real-service lane): `AUTHBROKER_REAL_BASE_URL` and the
 * four values `create-project.sh` prints (`PROJECT_ID`, `PUBLISHABLE_CLIENT_KEY`,
 * `SECRET_SERVER_KEY`, `SUPER_SECRET_ADMIN_KEY`). Null when unset.
 */
export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceTarget | null {
  const baseUrl = env.AUTHBROKER_REAL_BASE_URL;
  const { PROJECT_ID, PUBLISHABLE_CLIENT_KEY, SECRET_SERVER_KEY, SUPER_SECRET_ADMIN_KEY } = env;
  if (!baseUrl || !PROJECT_ID || !PUBLISHABLE_CLIENT_KEY || !SECRET_SERVER_KEY || !SUPER_SECRET_ADMIN_KEY) return null;
  return {
    baseUrl,
    projectId: PROJECT_ID,
    publishableClientKey: PUBLISHABLE_CLIENT_KEY,
    secretServerKey: SECRET_SERVER_KEY,
    superSecretAdminKey: SUPER_SECRET_ADMIN_KEY,
    extraRequestHeaders: { 'x-stack-disable-artificial-development-delay': '1' },
  };
}

/** Our client transport for the target's project; with `accessToken`, as that user. */
export function clientTransport(target: ServiceTarget, accessToken?: string): Transport<'client'> {
  return createTransport({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    accessType: 'client',
    publishableClientKey: target.publishableClientKey,
    userTokens: accessToken === undefined ? undefined : staticTokenSource(accessToken),
    extraRequestHeaders: target.extraRequestHeaders,
    clock: compressedClock,
    diagnoseFailures: false,
  });
}

export function serverApp(target: ServiceTarget): ServerApp {
  return createServerApp({ baseUrl: target.baseUrl, projectId: target.projectId, secretServerKey: target.secretServerKey, extraRequestHeaders: target.extraRequestHeaders, clock: compressedClock });
}

export function adminApp(target: ServiceTarget): AdminApp {
  return createAdminApp({ baseUrl: target.baseUrl, projectId: target.projectId, superSecretAdminKey: target.superSecretAdminKey, extraRequestHeaders: target.extraRequestHeaders, clock: compressedClock });
}

/** What the service answered to a hand-made call: for what our transport would never send (a missing header, another user's id). */
export interface RawAnswer {
  status: number;
  /** `x-stack-known-error`, or null. */
  code: string | null;
  body: unknown;
}

/** One call as the bare wire has it (no retries, no allow-anonymous header unless given), with the real status. */
export async function rawCall(
  target: ServiceTarget,
  method: string,
  path: string,
  options: { access?: AccessType; accessToken?: string; refreshToken?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const access = options.access ?? 'client';
  const headers: Record<string, string> = { 'x-stack-project-id': target.projectId, 'x-stack-access-type': access, ...target.extraRequestHeaders, ...options.headers };
  if (access === 'client') headers['x-stack-publishable-client-key'] = target.publishableClientKey;
  if (access === 'server') headers['x-stack-secret-server-key'] = target.secretServerKey;
  if (access === 'admin') headers['x-stack-super-secret-admin-key'] = target.superSecretAdminKey;
  if (options.accessToken !== undefined) headers['x-stack-access-token'] = options.accessToken;
  if (options.refreshToken !== undefined) headers['x-stack-refresh-token'] = options.refreshToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.baseUrl}/api/v1${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain-text answer stays text
  }
  return { status: response.status, code: response.headers.get('x-stack-known-error'), body };
}

/** The claims of an access token. */
export function claimsOf(accessToken: string): Record<string, unknown> {
  return decodeJwt(accessToken);
}

/** The error a call failed with (the call must fail). */
export async function failureOf(call: Promise<unknown>): Promise<AuthBrokerError> {
  try {
    await call;
  } catch (error) {
    return error as AuthBrokerError;
  }
  throw new Error('The call succeeded; it was expected to fail.');
}

/** Whether `error` is the known error `code` (for `expect(...).toBe(true)` with the error shown when not). */
export function knownCodeOf(error: unknown): string {
  return isKnownError(error) ? error.code : `not a known error: ${String(error)}`;
}

/** A unique e-mail per call, so scenarios sharing a project never collide. */
let counter = 0;
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** A unique id fragment for permission ids and provider account ids. */
export function uniqueId(): string {
  counter += 1;
  return `${Date.now().toString(36)}_${counter}_${Math.random().toString(36).slice(2, 6)}`;
}

export const PASSWORD = 'a-long-Passw0rd-for-scenarios';
const APP = 'http://localhost:5173';

/** A tab's handler pages, as authbroker/client sends them (localhost: trusted by both projects). */
export const HANDLER_URLS: TabHandlerUrls = {
  emailVerification: `${APP}/handler/email-verification`,
  passwordReset: `${APP}/handler/password-reset`,
  magicLinkCallback: `${APP}/handler/magic-link-callback`,
  teamInvitation: `${APP}/handler/team-invitation`,
};

/** A broker for the target's project (fake IndexedDB, local locks) and `count` tabs on it. */
export interface TargetBroker {
  broker: Broker;
  tabs: SimulatedTab[];
  close(): void;
}

export async function brokerFor(target: ServiceTarget, count = 1): Promise<TargetBroker> {
  const locks = new LocalLockManager();
  // Tokens in memory: scenarios one after another never adopt each other's stored session.
  const broker = await createBroker(
    {
      baseUrl: target.baseUrl,
      projectId: target.projectId,
      publishableClientKey: target.publishableClientKey,
      ...(target.extraRequestHeaders === undefined ? {} : { extraRequestHeaders: target.extraRequestHeaders }),
      tokenStore: 'memory',
    },
    { mode: 'shared-worker', clock: compressedClock, locks },
  );
  const tabs = await Promise.all(Array.from({ length: count }, () => connectTab(broker, locks, { handlerUrls: HANDLER_URLS })));
  return {
    broker,
    tabs,
    close() {
      for (const tab of tabs) tab.close();
      broker.close();
    },
  };
}

/**
 * Makes sure the project offers an OAuth provider (for linked accounts). Today's service changes
 * project settings through `/internal/projects/current`; an emulator that does not serve it yet
 * (404) is asked at `/projects/current`, its 2.7 path.
 */
export async function ensureOAuthProvider(target: ServiceTarget, providerId: string): Promise<void> {
  let path = '/internal/projects/current';
  let read = await rawCall(target, 'GET', path, { access: 'admin' });
  if (read.status === 404) {
    path = '/projects/current';
    read = await rawCall(target, 'GET', path, { access: 'admin' });
  }
  if (read.status !== 200) throw new Error(`Reading the project's settings answered ${read.status}: ${JSON.stringify(read.body)}`);
  type Provider = { id: string; type: string; client_id?: string; client_secret?: string };
  const listed = (read.body as { config: { oauth_providers?: Provider[] } }).config.oauth_providers ?? [];
  if (listed.some((p) => p.id === providerId)) return;
  // Written back as they were given (the read adds fields of its own, which a write refuses).
  const providers = listed.map(({ id, type, client_id, client_secret }) => ({ id, type, ...(client_id === undefined ? {} : { client_id, client_secret }) }));
  const written = await rawCall(target, 'PATCH', path, { access: 'admin', body: { config: { oauth_providers: [...providers, { id: providerId, type: 'shared' }] } } });
  if (written.status !== 200) throw new Error(`Adding the OAuth provider ${providerId} answered ${written.status}: ${JSON.stringify(written.body)}`);
}

/** Registers each scenario as a test against the target `target()` gives when it runs. */
export function defineScenarioTests(scenarios: Scenarios, target: () => ServiceTarget, timeoutMillis?: number): void {
  for (const [name, run] of Object.entries(scenarios)) it(name, () => run(target()), timeoutMillis);
}
