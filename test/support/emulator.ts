import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js';
import type { AccessType } from '../../protocol/resources/common.js';
import { createServerApp, type ServerApp } from '../../protocol/server.js';
import { createTransport, staticTokenSource, type Transport } from '../../protocol/transport.js';

/** Starts a fresh emulator for the file's tests and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}): () => RunningEmulator {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await emulator?.stop();
  });
  return () => {
    if (!emulator) throw new Error('The emulator has not started yet (use it inside a test or hook).');
    return emulator;
  };
}

/** A transport for a seeded project with its keys; `accessToken` acts as that user. */
export function transportFor<A extends AccessType>(
  emulator: RunningEmulator,
  accessType: A,
  options: { project?: 'demo' | 'internal'; accessToken?: string; diagnoseFailures?: boolean } = {},
): Transport<A> {
  const keys = emulator.projects[options.project ?? 'demo'];
  return createTransport({
    baseUrl: emulator.url,
    projectId: keys.id,
    accessType,
    publishableClientKey: keys.publishableClientKey,
    secretServerKey: keys.secretServerKey,
    superSecretAdminKey: keys.superSecretAdminKey,
    userTokens: options.accessToken === undefined ? undefined : staticTokenSource(options.accessToken),
    diagnoseFailures: options.diagnoseFailures ?? false,
  });
}

/** `authbroker/server`'s app for the demo project, with its secret server key, as an app's backend would make it. */
export function demoServerApp(emulator: RunningEmulator): ServerApp {
  const { demo } = emulator.projects;
  return createServerApp({ baseUrl: emulator.url, projectId: demo.id, secretServerKey: demo.secretServerKey });
}

/** A unique e-mail per call, so tests sharing an emulator never collide. */
let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** Emulator dev endpoints. */
export async function devRequest<T>(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * The service unreachable (every API call and health probe dropped before an answer, through the
 * emulator's fault injection), or reachable again: offline as a broker meets it, in any browser.
 */
export async function setServiceReachable(emulator: RunningEmulator, reachable: boolean): Promise<void> {
  const url = `${emulator.url}/emulator/faults`;
  if (reachable) {
    await fetch(url, { method: 'DELETE' });
    return;
  }
  const rules = ['/api/v1*', '/health'].map((path) => ({
    path,
    probability: 1,
    effect: { type: 'drop', phase: 'before' },
  }));
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  if (!response.ok) throw new Error(`faults: ${response.status} ${await response.text()}`);
}
