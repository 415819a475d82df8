/**
 * What the feature scenarios (test/support/features/*.ts) are written with: each is a story over a
 * service target (test/support/serviceTarget.ts: a service, one normal project of it with its four
 * keys, and its mailbox), run against a fresh emulator in `npm test` and against the real Stack Auth
 * backend in the real-service lane, so a scenario asserts only what the service itself does:
 * statuses, known-error codes, key sets, and what our client makes of them. Nothing here reads the
 * emulator's internals.
 *
 * Every exported function of a file in test/support/features/ is a scenario, so the helpers live
 * here, outside that folder.
 */
import 'fake-indexeddb/auto';
import { decodeJwt } from 'jose';
import { it } from 'vitest';
import type { AuthBrokerError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { AccessType } from '../../protocol/resources/common.js';
import { createAdminApp, createServerApp, type AdminApp, type ServerApp } from '../../protocol/server.js';
import { createTransport, staticTokenSource, type Transport } from '../../protocol/transport.js';
import type { TabHandlerUrls } from '../../worker/index.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import { compressedClock } from './broker.js';
import { LocalLockManager } from './locks.js';
import type { ServiceTarget } from './serviceTarget.js';
import { connectTab, type SimulatedTab } from './tabs.js';

/** One scenario: a self-contained story against a target, failing through `expect`. */
export type Scenario = (target: ServiceTarget) => Promise<void>;

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
  return createServerApp({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    secretServerKey: target.secretServerKey,
    extraRequestHeaders: target.extraRequestHeaders,
    clock: compressedClock,
  });
}

export function adminApp(target: ServiceTarget): AdminApp {
  return createAdminApp({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    superSecretAdminKey: target.superSecretAdminKey,
    extraRequestHeaders: target.extraRequestHeaders,
    clock: compressedClock,
  });
}

/**
 * What the service answered to a hand-made call: for what our transport would never send (a missing header, another
 * user's id).
 */
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
  options: {
    access?: AccessType;
    accessToken?: string;
    refreshToken?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<RawAnswer> {
  const access = options.access ?? 'client';
  const headers: Record<string, string> = {
    'x-stack-project-id': target.projectId,
    'x-stack-access-type': access,
    ...target.extraRequestHeaders,
    ...options.headers,
  };
  if (access === 'client') headers['x-stack-publishable-client-key'] = target.publishableClientKey;
  if (access === 'server') headers['x-stack-secret-server-key'] = target.secretServerKey;
  if (access === 'admin') headers['x-stack-super-secret-admin-key'] = target.superSecretAdminKey;
  if (options.accessToken !== undefined) headers['x-stack-access-token'] = options.accessToken;
  if (options.refreshToken !== undefined) headers['x-stack-refresh-token'] = options.refreshToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.baseUrl}/api/v1${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
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

/**
 * {@link knownCodeOf}, also for the service's codes authbroker's catalogue lacks, which arrive as UNSUPPORTED_ERROR
 * carrying the service's code (`details.originalErrorCode`).
 */
export function serviceCodeOf(error: unknown): string {
  const code = knownCodeOf(error);
  return code === 'UNSUPPORTED_ERROR'
    ? String((error as { details?: { originalErrorCode?: unknown } }).details?.originalErrorCode)
    : code;
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

export async function brokerFor(
  target: ServiceTarget,
  count = 1,
  options: { fetch?: typeof fetch } = {},
): Promise<TargetBroker> {
  const locks = new LocalLockManager();
  // Tokens in memory: scenarios one after another never adopt each other's stored session.
  const broker = await createBroker(
    {
      baseUrl: target.baseUrl,
      projectId: target.projectId,
      publishableClientKey: target.publishableClientKey,
      extraRequestHeaders: target.extraRequestHeaders,
      tokenStore: 'memory',
    },
    { mode: 'shared-worker', clock: compressedClock, locks, ...options },
  );
  const tabs = await Promise.all(
    Array.from({ length: count }, () => connectTab(broker, locks, { handlerUrls: HANDLER_URLS })),
  );
  return {
    broker,
    tabs,
    close() {
      for (const tab of tabs) tab.close();
      broker.close();
    },
  };
}

const SETTINGS = '/internal/projects/current';

/** The project's admin settings (today's service, and the emulator, serve them at `/internal/projects/current`). */
async function projectSettings(target: ServiceTarget): Promise<Record<string, unknown>> {
  const read = await rawCall(target, 'GET', SETTINGS, { access: 'admin' });
  if (read.status !== 200)
    throw new Error(`Reading the project's settings answered ${read.status}: ${JSON.stringify(read.body)}`);
  return (read.body as { config: Record<string, unknown> }).config;
}

/** Turns project settings on (`{ magic_link_enabled: true }`) where they are not yet. */
export async function ensureProjectSettings(target: ServiceTarget, wanted: Record<string, boolean>): Promise<void> {
  const config = await projectSettings(target);
  const missing = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => config[key] !== value));
  if (Object.keys(missing).length === 0) return;
  const written = await rawCall(target, 'PATCH', SETTINGS, { access: 'admin', body: { config: missing } });
  if (written.status !== 200)
    throw new Error(`Changing the project's settings answered ${written.status}: ${JSON.stringify(written.body)}`);
}

/**
 * Makes sure the project offers an OAuth provider (for linked accounts): on the service's shared keys, or on `keys` of
 * the app's own (a standard provider, whose tokens the service hands to the app).
 */
export async function ensureOAuthProvider(
  target: ServiceTarget,
  providerId: string,
  keys?: { clientId: string; clientSecret: string },
): Promise<void> {
  const config = await projectSettings(target);
  type Provider = { id: string; type: string; client_id?: string; client_secret?: string };
  const listed = (config.oauth_providers as Provider[] | undefined) ?? [];
  if (listed.some((p) => p.id === providerId)) return;
  // Written back as they were given (the read adds fields of its own, which a write refuses).
  const providers = listed.map(({ id, type, client_id, client_secret }) => ({
    id,
    type,
    ...(client_id === undefined ? {} : { client_id, client_secret }),
  }));
  const written = await rawCall(target, 'PATCH', SETTINGS, {
    access: 'admin',
    body: {
      config: {
        oauth_providers: [
          ...providers,
          keys === undefined
            ? { id: providerId, type: 'shared' }
            : { id: providerId, type: 'standard', client_id: keys.clientId, client_secret: keys.clientSecret },
        ],
      },
    },
  });
  if (written.status !== 200)
    throw new Error(
      `Adding the OAuth provider ${providerId} answered ${written.status}: ${JSON.stringify(written.body)}`,
    );
}

/** Registers every exported function of a feature module as a test against the target `target()` gives when it runs. */
export function defineScenarioTests(
  module: Record<string, unknown>,
  target: () => ServiceTarget,
  timeoutMillis?: number,
): void {
  for (const [name, run] of Object.entries(module)) {
    if (typeof run === 'function') it(name, () => (run as Scenario)(target()), timeoutMillis);
  }
}
