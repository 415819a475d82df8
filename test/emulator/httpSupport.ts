import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import type { AccessType } from '../../protocol/resources/common.js';
import type { AdminProject } from '../../protocol/resources/project.js';
import { createTransport, staticTokenSource, type Transport } from '../../protocol/transport.js';
import { transportFor } from '../support/emulator.js';

/** Helpers for the tests about HTTP details and administration (raw requests, admin tokens). */

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

export interface RawOptions {
  headers?: Record<string, string>;
  /** JSON-encoded with `content-type: application/json`. */
  json?: unknown;
  /** Sent as is (set the content type yourself in `headers`). */
  body?: string | Uint8Array<ArrayBuffer>;
}

/** One request with exactly the given headers, for tests about statuses, headers and texts. */
export async function raw(
  em: RunningEmulator,
  method: string,
  path: string,
  options: RawOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array<ArrayBuffer> | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${em.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
}

/** The key headers of a seeded project for one access type. */
export function keyHeaders(
  em: RunningEmulator,
  access: AccessType,
  project: 'demo' | 'internal' = 'demo',
): Record<string, string> {
  const keys = em.projects[project];
  const key: Record<string, string> =
    access === 'client'
      ? { 'x-stack-publishable-client-key': keys.publishableClientKey }
      : access === 'server'
        ? { 'x-stack-secret-server-key': keys.secretServerKey }
        : { 'x-stack-super-secret-admin-key': keys.superSecretAdminKey };
  return { 'x-stack-project-id': keys.id, 'x-stack-access-type': access, ...key };
}

/** Signs the seeded owner in to `internal`; the access token is an admin access token. */
export async function signInAdmin(
  em: RunningEmulator,
): Promise<{ access_token: string; refresh_token: string; user_id: string }> {
  return endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
    email: em.adminUser.email,
    password: em.adminUser.password,
  });
}

/** A transport for `projectId` authenticated by an admin access token only (no keys). */
export function adminTokenTransport<A extends AccessType = 'admin'>(
  em: RunningEmulator,
  projectId: string,
  adminToken: string,
  accessType?: A,
): Transport<A> {
  return createTransport({
    baseUrl: em.url,
    projectId,
    accessType: (accessType ?? 'admin') as A,
    adminTokens: staticTokenSource(adminToken),
    diagnoseFailures: false,
  });
}

/** The `internal` client transport of a signed-in internal user (for `/internal/projects`). */
export function internalUserTransport(em: RunningEmulator, accessToken: string): Transport<'client'> {
  return transportFor(em, 'client', { project: 'internal', accessToken });
}

/** A new project owned by the seeded admin, and an admin transport for it. */
export async function freshProject(
  em: RunningEmulator,
  input: Parameters<typeof endpoints.createProject>[1] = { display_name: 'Test project' },
): Promise<{
  project: AdminProject;
  admin: Transport<'admin'>;
  adminToken: string;
}> {
  const { access_token } = await signInAdmin(em);
  const project = await endpoints.createProject(internalUserTransport(em, access_token), input);
  return { project, admin: adminTokenTransport(em, project.id, access_token), adminToken: access_token };
}

/** Resolves to the rejection of `promise` (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to fail, but it succeeded.');
}
