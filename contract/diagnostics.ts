/**
 * What the broker tells devtools about its work (the `diagnostics` live query): the host, the tabs,
 * the sessions, the shared cache, the requests it sent and connectivity over time. Plain data, read
 * only, and never a secret: no token (access or refresh), password, key, request or response body,
 * and no error message (a message may quote a body). Errors appear as their code and status only.
 */
import type { NetworkDiagnostics } from '../protocol/errors/errors.js';
import type { RetryReason } from '../protocol/retry.js';
import type { QueryScope } from './scope.js';
import type { BrokerMode, ConnectivityState, SessionEnd, StorageKind } from './state.js';

/** Requests kept, newest last; older ones are dropped (and counted). */
export const REQUEST_LOG_SIZE = 100;
/** Connectivity changes kept, newest last. */
export const CONNECTIVITY_HISTORY_SIZE = 50;

/** An error as diagnostics show it: what it was, never what it said. */
export interface DiagnosticsError {
  code: string;
  /** The HTTP status when the service answered. */
  status: number | null;
}

/**
 * What made the broker do something:
 * - `subscribe`: a tab started watching a query (`name` is the query kind);
 * - `session`: a sign-in or sign-out moved a tab's subscription to the new session's data;
 * - `read`, `refetch`: a tab's call for a query;
 * - `invalidate`: a change made by an action (`name`) marked a watched query stale;
 * - `action`: a tab called a broker method (`name`);
 * - `return`: a tab came back into view, or the network came back (refetch on return);
 * - `broker`: the broker's own work (a queued sign-out, another broker's change).
 */
export type CauseVia = 'subscribe' | 'session' | 'read' | 'refetch' | 'invalidate' | 'action' | 'return' | 'broker';

/** What made the broker send a request: which tab, through what, and the call's name. */
export interface RequestCause {
  /**
   * The tab whose call started it (its number in this broker, see `TabDiagnostics.tab`), or null for the broker's own
   * work.
   */
  tab: number | null;
  via: CauseVia;
  name: string;
}

/** One attempt of a request (a request is retried after network failures, 429 and transient 5xx). */
export interface RequestAttempt {
  /** The answer's status; null when none came (network failure, timeout). */
  status: number | null;
  durationMillis: number | null;
  /** Why the broker tried again after this attempt, and how long it waited. */
  retry: { reason: RetryReason; delayMillis: number } | null;
}

/** One request in the devtools' request log: what was asked, each attempt, the outcome, and who it served. */
export interface RequestRecord {
  /** Increasing per broker. */
  id: number;
  method: string;
  /** The API path (`/users/me`), without the query string. */
  path: string;
  startedAtMillis: number;
  /** Null while under way. */
  durationMillis: number | null;
  outcome: 'pending' | 'success' | 'error';
  /** The last answer's status. */
  status: number | null;
  /** The known-error code (or our own: `NETWORK_UNREACHABLE`, `HTTP_STATUS_ERROR`…) when it failed. */
  code: string | null;
  attempts: RequestAttempt[];
  cause: RequestCause;
  /**
   * How many callers this request answered: the one that started it and those that joined it while
   * it was under way (the single-flight token refresh, a cache fetch several tabs asked for).
   */
  callers: number;
}

/** A tab connected to the broker, as devtools show it. */
export interface TabDiagnostics {
  /** This tab's number in this broker (1, 2, …, in the order tabs connected). */
  tab: number;
  subscriptions: number;
  /** The devtools panels open in this tab (the `panel` parameter of their diagnostics query). */
  panels: string[];
}

/** The session as devtools show it: its state and renewals, never a token. */
export interface SessionDiagnostics {
  status: 'loading' | 'signed-in' | 'signed-out';
  userId: string | null;
  /** When the access token the broker holds expires; null when there is none. Never the token. */
  accessTokenExpiresAtMillis: number | null;
  /** Token requests this broker made for this session slot. */
  renewals: number;
  lastEnd: SessionEnd | null;
}

/**
 * A cache entry as devtools see it, but for its query: `CacheEntryDiagnostics` in queries.ts adds
 * it (the registry's QuerySpec). The registry names these diagnostics as its `diagnostics` query's
 * data, so this file cannot import it back.
 */
export interface CacheEntryFacts {
  /** The query's key (the hash both sides compute). */
  key: string;
  scope: QueryScope;
  /** False for a previous session's data still watched while subscriptions move over. */
  current: boolean;
  /** The tabs watching it, by number. */
  tabs: number[];
  subscribers: number;
  status: 'pending' | 'success' | 'error';
  isFetching: boolean;
  /** When its value was fetched or set (0 before any). */
  updatedAtMillis: number;
  /** Marked stale by a change and not fetched since. */
  invalidated: boolean;
  lastError: (DiagnosticsError & { atMillis: number }) | null;
}

/** Connectivity now (the `connectivity` query's value, with its last error reduced to code and status). */
export interface ConnectivityDiagnostics {
  state: ConnectivityState;
  sinceMillis: number;
  browserOnline: boolean | null;
  consecutiveFailures: number;
  lastError: (DiagnosticsError & { atMillis: number }) | null;
  lastSuccessAtMillis: number | null;
  diagnostics: NetworkDiagnostics | null;
}

/** A change of the connectivity state, with the checks behind it. */
export interface ConnectivityChange {
  atMillis: number;
  state: ConnectivityState;
  browserOnline: boolean | null;
  consecutiveFailures: number;
  lastError: DiagnosticsError | null;
  /** The probes behind the change, when there were any. */
  diagnostics: NetworkDiagnostics | null;
}

/**
 * The `diagnostics` query's value but for its cache entries: `BrokerDiagnostics` in queries.ts adds them (see
 * CacheEntryFacts).
 */
export interface BrokerFacts {
  host: {
    mode: BrokerMode;
    brokerId: string;
    version: string;
    startedAtMillis: number;
    storage: StorageKind;
  };
  /** Since when requests and connectivity changes are recorded (the devtools first mounted in a tab, open or not). */
  recordingSinceMillis: number;
  tabs: TabDiagnostics[];
  session: SessionDiagnostics;
  /** Null when the broker has no project-owner session slot. */
  adminSession: SessionDiagnostics | null;
  /** Oldest first, at most REQUEST_LOG_SIZE. */
  requests: RequestRecord[];
  /** Requests that fell out of the log. */
  requestsDropped: number;
  connectivity: ConnectivityDiagnostics;
  /** Oldest first, at most CONNECTIVITY_HISTORY_SIZE. */
  connectivityHistory: ConnectivityChange[];
  /** Things the app should know (storage not available, the session not saved, a fallback host). */
  warnings: string[];
}
