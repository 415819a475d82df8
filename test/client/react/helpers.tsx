import 'fake-indexeddb/auto';
import { cleanup } from '@testing-library/react';
import { Component, type ReactNode } from 'react';
import { vi } from 'vitest';
import { createBrokerClient, type BrokerClient, type ConnectOptions } from '../../../client/index.js';
import type { RunningEmulator } from '../../../emulator/index.js';
import { endpoints } from '../../../protocol/index.js';
import { RELEASE_GRACE_MILLIS } from '../../../client/queryStore.js';
import { resetIndexedDb } from '../../support/broker.js';
import { transportFor, uniqueEmail } from '../../support/emulator.js';

/** jsdom's origin (http://localhost:3000), which the demo project trusts through allow_localhost. */
export const PAGE_ORIGIN = 'http://localhost:3000';
export const PASSWORD = 'hooks-password-1';

export function demoOptions(em: RunningEmulator, extra: Partial<ConnectOptions> = {}): ConnectOptions {
  const demo = em.projects.demo;
  return {
    baseUrl: em.url,
    projectId: demo.id,
    publishableClientKey: demo.publishableClientKey,
    mode: 'in-process',
    ...extra,
  };
}

/** A user as a previous visit kept it (`keepUserFromLastVisit`). */
export const keptUser = {
  id: '5b0d7a4e-8d3c-4d8e-9f51-0c1f7c6a2b11',
  primaryEmail: 'kept@example.com',
  primaryEmailVerified: true,
  displayName: 'Kept',
  profileImageUrl: null,
  signedUpAtMillis: 1,
  clientMetadata: {},
  clientReadOnlyMetadata: null,
  hasPassword: true,
  otpAuthEnabled: false,
  passkeyAuthEnabled: false,
  authWithEmail: true,
  requiresTotpMfa: false,
  oauthProviders: [],
  selectedTeamId: null,
  selectedTeam: null,
  isAnonymous: false,
  isRestricted: false,
  restrictedReason: null,
  restrictedByAdmin: false,
  restrictedByAdminReason: null,
};

/** The copy a previous visit of `keptUser` left for the demo project (the record `client/persisted.ts` reads). */
export function keepUserFromLastVisit(em: RunningEmulator): void {
  const { baseUrl, projectId } = demoOptions(em);
  const now = Date.now();
  const record = {
    v: 1,
    userId: keptUser.id,
    createdAtMillis: now - 20,
    savedAtMillis: now - 10,
    entries: { '["currentUser",{}]': { data: keptUser, updatedAtMillis: now - 15 } },
  };
  localStorage.setItem(`authbroker:snapshot:${projectId}@${baseUrl}`, JSON.stringify(record));
}

const opened: BrokerClient[] = [];

/** An in-page client of the demo project; closed by `resetBrowser`. */
export function newClient(em: RunningEmulator, extra: Partial<ConnectOptions> = {}): BrokerClient {
  const client = createBrokerClient(demoOptions(em, extra));
  opened.push(client);
  return client;
}

export const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis));

/**
 * Unmounts every tree, lets the release grace run out (so no late unsubscribe reconnects a closed
 * client), closes the clients and forgets the fake IndexedDB: each test starts signed out.
 */
export async function resetBrowser(): Promise<void> {
  cleanup();
  await sleep(RELEASE_GRACE_MILLIS + 20);
  for (const client of opened.splice(0)) client.close();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  await resetIndexedDb();
  // The copy tabs keep between visits (persistSnapshot): each test starts as a first visit.
  localStorage.clear();
}

/** A user of the demo project made through the server API (the broker is not signed in). */
export async function createUser(em: RunningEmulator, extra: Partial<Parameters<typeof endpoints.createUser>[1]> = {}) {
  const email = uniqueEmail('hooks');
  const user = await endpoints.createUser(transportFor(em, 'server'), {
    primary_email: email,
    primary_email_auth_enabled: true,
    password: PASSWORD,
    ...extra,
  });
  return { id: user.id, email, password: PASSWORD };
}

/** Catches what a subtree throws and shows its class and code. */
export class Boundary extends Component<
  { children?: ReactNode; onError?: (error: unknown) => void },
  { error: unknown }
> {
  override state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(error: unknown) {
    this.props.onError?.(error);
  }
  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const e = error as { name?: string; code?: string };
    return <p role="alert">{`${e.name ?? 'Error'}:${e.code ?? '?'}`}</p>;
  }
}

/** React reports errors caught by boundaries on the console; the tests read them from the boundary. */
export function quietConsoleErrors(): void {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
}

/** Keys with an underscore anywhere outside the app's own JSON fields (which keep theirs). */
export function snakeKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => snakeKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    if (key === 'clientMetadata' || key === 'clientReadOnlyMetadata' || key === 'serverMetadata') return [];
    return [...(key.includes('_') ? [`${path}.${key}`] : []), ...snakeKeys(inner, `${path}.${key}`)];
  });
}

/** Replaces `location` by one that reads the real one and records navigations. */
export function recordNavigations(): { assign: ReturnType<typeof vi.fn>; replace: ReturnType<typeof vi.fn> } {
  const real = window.location;
  const assign = vi.fn();
  const replace = vi.fn();
  const fake = {
    get href() {
      return real.href;
    },
    get origin() {
      return real.origin;
    },
    get hostname() {
      return real.hostname;
    },
    get pathname() {
      return real.pathname;
    },
    get search() {
      return real.search;
    },
    get hash() {
      return real.hash;
    },
    assign,
    replace,
  };
  vi.stubGlobal('location', fake);
  return { assign, replace };
}
