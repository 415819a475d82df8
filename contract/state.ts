/**
 * The broker's own state as tabs see it: the session (never a token), connectivity and the
 * broker's status. These are live queries: pushed to tabs when they change.
 */
import type { NetworkDiagnostics } from '../protocol/errors/errors.js';
import type { SerializedError } from '../protocol/errors/errors.js';

/**
 * Where the broker runs: a SharedWorker (one for every tab), a service worker, each tab's own page, or a browser
 * extension's background (`authbroker/extension`).
 */
export type BrokerMode = 'shared-worker' | 'service-worker' | 'in-process' | 'extension';

/** Where the broker keeps the session: IndexedDB, its memory, or an extension's `storage.session`. */
export type StorageKind = 'indexeddb' | 'memory' | 'session';

/** Why a session ended; every tab is told. */
export type SessionEndReason =
  /** Signed out by the app in some tab. */
  | 'signed-out'
  /**
   * The service no longer knows the refresh token: revoked elsewhere (sign-out on another device, password reset) or
   * expired.
   */
  | 'session-revoked'
  /** The service refused to renew for another reason (e.g. the identity provider said no). */
  | 'refresh-rejected'
  /** The account was deleted from this app. */
  | 'user-deleted'
  /** Site data was cleared: the stored session is gone. */
  | 'storage-cleared';

/** Why and when the last session ended (signed out here or in another tab, expired, revoked…). */
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

/** The broker's word on the network, the same in every tab. */
export interface ConnectivitySnapshot {
  /** `online`, `degraded` or `offline`. */
  state: ConnectivityState;
  /** When the state began (ms since the epoch). */
  sinceMillis: number;
  /** What the tabs last reported (`navigator.onLine`), null before any tab did. */
  browserOnline: boolean | null;
  /** The last failure (its code and message), if any. */
  lastError: SerializedError | null;
  /** When the last failure happened. */
  lastErrorAtMillis: number | null;
  /** When an answer last arrived. */
  lastSuccessAtMillis: number | null;
  /** Failures since the last answer. */
  consecutiveFailures: number;
  /** What the last check of the service found. */
  diagnostics: NetworkDiagnostics | null;
}

/** What the broker says about itself ({@link BrokerApi.status}, `useBrokerStatus`). */
export interface BrokerStatus {
  /** Where it runs. */
  mode: BrokerMode;
  /** A random id of this broker instance. */
  brokerId: string;
  /** The authbroker version it runs. */
  version: string;
  /** When it started. */
  startedAtMillis: number;
  /** Tabs connected now. */
  tabsConnected: number;
  /** Token requests this broker made. */
  tokenRefreshes: number;
  /** Entries in the shared cache. */
  cacheEntries: number;
  /** Subscriptions of all tabs. */
  subscriptions: number;
  /** The network as the broker sees it. */
  connectivity: ConnectivitySnapshot;
  /** The app user's session. */
  session: SessionInfo;
  /** The project owner's session (admin calls), apart from the app user's. */
  adminSession: SessionInfo;
  /**
   * Where it keeps the session: IndexedDB, memory (`tokenStore: 'memory'`, or IndexedDB failed), or an extension's
   * `storage.session`.
   */
  storage: StorageKind;
  /** Things the app should show (e.g. the session is not persisted). */
  warnings: string[];
}
