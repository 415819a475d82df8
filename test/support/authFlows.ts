import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import type { MailboxItem } from '../../emulator/mailbox.js';
import type { ProjectRecord, SigningKeyRecord } from '../../emulator/state/model.js';
import { endpoints } from '../../protocol/index.js';
import type { AccessType } from '../../protocol/resources/common.js';
import { createTransport, type TokenSource, type Transport } from '../../protocol/transport.js';
import { devRequest, uniqueEmail } from './emulator.js';

/** Trusted by the demo project (allow_localhost). */
export const APP = 'http://localhost:5173';
export const PASSWORD = 'correct horse battery';

export interface SignedUp {
  email: string;
  password: string;
  access_token: string;
  refresh_token: string;
  user_id: string;
}

/** A token source holding a session's pair, so `sendRefreshToken` endpoints get the refresh token. */
export function sessionTokens(accessToken: string, refreshToken?: string): TokenSource {
  return {
    renewable: false,
    getAccessToken: async () => accessToken,
    invalidateAccessToken: () => undefined,
    getRefreshToken: async () => refreshToken ?? null,
  };
}

/** A transport acting as a signed-in user of a seeded project. */
export function userTransport<A extends AccessType = 'client'>(
  em: RunningEmulator,
  tokens: { access_token: string; refresh_token?: string },
  accessType: A = 'client' as A,
  project: 'demo' | 'internal' = 'demo',
): Transport<A> {
  const keys = em.projects[project];
  return createTransport({
    baseUrl: em.url,
    projectId: keys.id,
    accessType,
    publishableClientKey: keys.publishableClientKey,
    secretServerKey: keys.secretServerKey,
    superSecretAdminKey: keys.superSecretAdminKey,
    userTokens: sessionTokens(tokens.access_token, tokens.refresh_token),
    diagnoseFailures: false,
  });
}

export async function signUp(em: RunningEmulator, email = uniqueEmail(), password = PASSWORD): Promise<SignedUp> {
  const client = anonymousClient(em);
  const result = await endpoints.signUpWithPassword(client, {
    email,
    password,
    verification_callback_url: `${APP}/handler/email-verification`,
  });
  return { email, password, ...result };
}

export function anonymousClient(em: RunningEmulator): Transport<'client'> {
  const keys = em.projects.demo;
  return createTransport({
    baseUrl: em.url,
    projectId: keys.id,
    accessType: 'client',
    publishableClientKey: keys.publishableClientKey,
    diagnoseFailures: false,
  });
}

/** The newest e-mail to `to`, read through the emulator's mailbox endpoint. */
export async function latestMail(em: RunningEmulator, to: string): Promise<MailboxItem> {
  const { items } = await devRequest<{ items: MailboxItem[] }>(
    em,
    'GET',
    `/emulator/mailbox?to=${encodeURIComponent(to)}`,
  );
  expect(items.length).toBeGreaterThan(0);
  return items[items.length - 1]!;
}

export async function mailCount(em: RunningEmulator, to: string): Promise<number> {
  const { items } = await devRequest<{ items: MailboxItem[] }>(
    em,
    'GET',
    `/emulator/mailbox?to=${encodeURIComponent(to)}`,
  );
  return items.length;
}

export function codeOf(link: string | null): string {
  const code = new URL(link ?? 'http://invalid').searchParams.get('code');
  expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
  return code!;
}

export async function advanceClock(em: RunningEmulator, millis: number): Promise<number> {
  return (await devRequest<{ now_millis: number }>(em, 'POST', '/emulator/time', { advance_millis: millis }))
    .now_millis;
}

export async function emulatorNow(em: RunningEmulator): Promise<number> {
  return (await devRequest<{ now_millis: number }>(em, 'GET', '/emulator/time')).now_millis;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON. */
  body: unknown;
}

/**
 * A raw API call, for what the bindings hide: statuses, plain-text bodies, headers, inputs the
 * bindings refuse client-side. No override header, so the status is the real one.
 */
export async function api(
  em: RunningEmulator,
  method: string,
  path: string,
  options: {
    access?: AccessType | null;
    project?: 'demo' | 'internal';
    accessToken?: string;
    refreshToken?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<RawResponse> {
  const keys = em.projects[options.project ?? 'demo'];
  const access = options.access === undefined ? 'client' : options.access;
  const headers: Record<string, string> = {};
  if (access !== null) {
    headers['x-stack-project-id'] = keys.id;
    headers['x-stack-access-type'] = access;
    if (access === 'client') headers['x-stack-publishable-client-key'] = keys.publishableClientKey;
    if (access === 'server') headers['x-stack-secret-server-key'] = keys.secretServerKey;
    if (access === 'admin') headers['x-stack-super-secret-admin-key'] = keys.superSecretAdminKey;
  }
  if (options.accessToken !== undefined) headers['x-stack-access-token'] = options.accessToken;
  if (options.refreshToken !== undefined) headers['x-stack-refresh-token'] = options.refreshToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${em.url}/api/v1${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    redirect: 'manual',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Asserts a known-error response: status, header and body code. */
export function expectKnownError(response: RawResponse, code: string, status: number): void {
  expect({
    status: response.status,
    header: response.headers.get('x-stack-known-error'),
    code: (response.body as { code?: unknown } | undefined)?.code,
  }).toEqual({ status, header: code, code });
}

/** Asserts a plain (non-known) error with exactly this text. */
export function expectPlainError(response: RawResponse, status: number, text: string): void {
  expect({ status: response.status, known: response.headers.get('x-stack-known-error'), text: response.text }).toEqual({
    status,
    known: null,
    text,
  });
}

/** The demo project's stored record, for config toggles the admin API would make. */
export function demoProject(em: RunningEmulator): ProjectRecord {
  return em.env.store.project(em.projects.demo.id)!;
}

/** Runs `fn` with some demo config changed, then puts it back. */
export async function withDemoConfig(
  em: RunningEmulator,
  change: Partial<ProjectRecord['config']>,
  fn: () => Promise<void>,
): Promise<void> {
  const config = demoProject(em).config;
  const saved = { ...config };
  Object.assign(config, change);
  try {
    await fn();
  } finally {
    Object.assign(config, saved);
  }
}

/**
 * Claims signed with one of an emulator project's keys, as the service signs its tokens: for tests of what each key may
 * sign.
 */
export async function signWithKey(claims: JWTPayload, key: SigningKeyRecord): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .sign(await importJWK({ ...key.privateJwk, alg: 'ES256' } as JWK, 'ES256'));
}
