/**
 * The broker's own state as tabs see it: the session (never a token), connectivity and the
 * broker's status. These are live queries: pushed to tabs when they change.
 */
import type { NetworkDiagnostics } from '../protocol/errors/errors.js';
import type { SerializedError } from '../protocol/errors/errors.js';

/** Where the broker runs: a SharedWorker, a service worker, the page itself, or a browser extension's background (`authbroker/extension`). */
export type BrokerMode = 'shared-worker' | 'service-worker' | 'in-process' | 'extension';

/** Where the broker keeps the session: IndexedDB, its memory, or an extension's `storage.session`. */
export type StorageKind = 'indexeddb' | 'memory' | 'session';

/** Why a session ended; every tab is told. */
export type SessionEndReason =
  /** Signed out by the app in some tab. */
  | 'signed-out'
  /** The service no longer knows the refresh token: revoked elsewhere (sign-out on another device, password reset) or expired. */
  | 'session-revoked'
  /** The service refused to renew for another reason (e.g. the identity provider said no). */
  | 'refresh-rejected'
  /** The account was deleted from this app. */
  | 'user-deleted'
  /** Site data was cleared: the stored session is gone. */
  | 'storage-cleared';

export interface SessionEnd {
  reason: SessionEndReason;
  atMillis: number;
  /** A sentence for people. */
  message: string;
  /** The service's error code when one caused it. */
  code?: string | undefined;
}

const endMessages: Record<SessionEndReason, string> = {
  'signed-out': 'You signed out.',
  'session-revoked': 'Your session was revoked or has expired. Please sign in again.',
  'refresh-rejected': 'Your session could not be renewed. Please sign in again.',
  'user-deleted': 'The account was deleted.',
  'storage-cleared': 'Site data was cleared, which signed you out.',
};

/** Every reason a session can end for (what other brokers and storage may say is checked against it). */
export const sessionEndReasons = Object.keys(endMessages) as SessionEndReason[];

/** Why a session ended, with our sentence for it: the sentence is never taken from storage or another broker. */
export function sessionEnd(reason: SessionEndReason, now: number, code?: string): SessionEnd {
  return { reason, atMillis: now, message: endMessages[reason], ...(code === undefined ? {} : { code }) };
}

/** What a tab learns about a session: never a token. */
export type SessionInfo =
  | { status: 'loading' }
  | { status: 'signed-out'; lastEnd: SessionEnd | null }
  | { status: 'signed-in'; userId: string | null };

/**
 * online: answers arrive. degraded: something is off (server errors, a dropped connection being
 * checked) but requests still go. offline: the browser says so or the service cannot be reached;
 * reads wait for the network instead of burning their retries.
 */
export type ConnectivityState = 'online' | 'degraded' | 'offline';

export interface ConnectivitySnapshot {
  state: ConnectivityState;
  sinceMillis: number;
  /** What the tabs last reported (`navigator.onLine`), null before any tab did. */
  browserOnline: boolean | null;
  lastError: SerializedError | null;
  lastErrorAtMillis: number | null;
  lastSuccessAtMillis: number | null;
  consecutiveFailures: number;
  diagnostics: NetworkDiagnostics | null;
}

export interface BrokerStatus {
  mode: BrokerMode;
  brokerId: string;
  version: string;
  startedAtMillis: number;
  tabsConnected: number;
  /** Token requests this broker made. */
  tokenRefreshes: number;
  cacheEntries: number;
  subscriptions: number;
  connectivity: ConnectivitySnapshot;
  session: SessionInfo;
  adminSession: SessionInfo;
  storage: StorageKind;
  /** Things the app should show (e.g. the session is not persisted). */
  warnings: string[];
}
