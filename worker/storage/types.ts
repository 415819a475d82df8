import type { SessionEnd, StorageKind } from '../../contract/state.js';

export type { SessionEnd, SessionEndReason } from '../../contract/state.js';
import { sessionEnd, sessionEndReasons } from '../../contract/state.js';

/** A session as persisted: the working copy lives in memory, this is its durable form. */
export interface StoredSession {
  /** The storage slot: the project id for the user's session, `admin:{projectId}` for a project owner's. */
  slot: string;
  status: 'active';
  /** Random per sign-in; names the session in cache keys and messages without revealing a token. */
  sessionKey: string;
  refreshToken: string;
  accessToken: string | null;
  /**
   * When to renew `accessToken` by this device's clock (see `judgeArrivedAccessToken`); absent in
   * records of older versions, which go by the token's `exp`.
   */
  accessTokenRenewAtMillis?: number | null;
  userId: string | null;
  updatedAtMillis: number;
}

/** What is left of an ended session: the reason, so brokers that read it later report the same one. */
export interface EndedSession {
  slot: string;
  status: 'ended';
  /** The session that ended (not secret). */
  sessionKey: string | null;
  end: SessionEnd;
  updatedAtMillis: number;
}

export type SessionRecord = StoredSession | EndedSession;

/** An OAuth flow between the redirect to the provider and the callback, which may land in any tab. */
export interface StoredOAuthFlow {
  state: string;
  projectId: string;
  /** The service the flow was started against (absent in flows stored by older versions). */
  baseUrl?: string;
  codeVerifier: string;
  /** Exactly the redirect_uri sent to the authorize endpoint. */
  redirectUri: string;
  type: 'authenticate' | 'link';
  afterCallbackRedirectUrl: string | null;
  createdAtMillis: number;
}

/** Work to send when the network returns: a sign-out that happened offline. */
export interface OutboxItem {
  id?: number;
  projectId: string;
  kind: 'sign-out';
  refreshToken: string;
  accessToken: string | null;
  createdAtMillis: number;
}

export type StorageEvent =
  | { kind: 'cleared' }
  | { kind: 'closed' }
  /** A stored record this version cannot use (malformed, another slot's, a newer format) was set aside. */
  | { kind: 'discarded'; slot: string; problem: string }
  /**
   * A slot's record changed without this broker writing it (another in-page broker's session, `tokenStore: 'memory'`).
   */
  | { kind: 'changed'; slot: string };

/** Where the broker keeps what must survive a restart. One database per origin. */
export interface BrokerStorage {
  readonly kind: StorageKind;
  loadSession(slot: string): Promise<SessionRecord | null>;
  saveSession(record: SessionRecord): Promise<void>;
  /**
   * Replaces the record only if the slot still holds `expectedSessionKey` (null: holds no live
   * session), atomically; returns whether it did. Keeps two brokers from undoing each other.
   */
  replaceSession(record: SessionRecord, expectedSessionKey: string | null): Promise<boolean>;
  /** Deletes the slot's record if it still holds `expectedSessionKey`, atomically; returns whether it did. */
  removeSession(slot: string, expectedSessionKey: string): Promise<boolean>;
  putOAuthFlow(flow: StoredOAuthFlow): Promise<void>;
  /** Reads and deletes in one transaction, so a callback can complete a flow only once. */
  takeOAuthFlow(state: string): Promise<StoredOAuthFlow | null>;
  pruneOAuthFlows(olderThanMillis: number): Promise<void>;
  addOutbox(item: OutboxItem): Promise<void>;
  listOutbox(projectId: string): Promise<OutboxItem[]>;
  removeOutbox(id: number): Promise<void>;
  /** Site data cleared (the database deleted) or the connection killed by the browser. */
  onEvent(listener: (event: StorageEvent) => void): void;
  close(): void;
}

const SESSION_END_REASONS = new Set<string>(sessionEndReasons);
/** A service error code, as stored with an end. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,99}$/;

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The longest token and key a record may hold: the service's access tokens are about a kilobyte,
 * no server takes a header much over 8 kB, and anything longer is not a session (a page posting
 * records of a megabyte each took every in-page broker's memory up by hundreds of MB).
 */
export const MAX_TOKEN_LENGTH = 8192;
const MAX_KEY_LENGTH = 200;
const isToken = (value: unknown) => isNonEmptyString(value) && value.length <= MAX_TOKEN_LENGTH;

/** Why a stored value is not a session record this version can use, or null when it is one. */
function recordProblem(raw: unknown, slot: string): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'it is not an object';
  const r = raw as Record<string, unknown>;
  if (r.slot !== slot) return 'it belongs to another slot';
  if (!isTime(r.updatedAtMillis)) return 'updatedAtMillis is missing';
  if (r.status === 'active') {
    if (!isNonEmptyString(r.sessionKey) || r.sessionKey.length > MAX_KEY_LENGTH || !isToken(r.refreshToken))
      return 'no session key or refresh token';
    if (r.accessToken !== null && !isToken(r.accessToken)) return 'the access token is malformed';
    if (r.userId !== null && (typeof r.userId !== 'string' || r.userId.length > MAX_KEY_LENGTH))
      return 'the user id is malformed';
    if (
      r.accessTokenRenewAtMillis !== undefined &&
      r.accessTokenRenewAtMillis !== null &&
      !isTime(r.accessTokenRenewAtMillis)
    )
      return 'the renewal time is malformed';
    return null;
  }
  if (r.status === 'ended') {
    const end = r.end as Record<string, unknown> | null | undefined;
    if (r.sessionKey !== null && !isNonEmptyString(r.sessionKey)) return 'the session key is malformed';
    if (
      typeof end !== 'object' ||
      end === null ||
      !SESSION_END_REASONS.has(end.reason as string) ||
      !isTime(end.atMillis) ||
      typeof end.message !== 'string'
    )
      return 'the end reason is malformed';
    return null;
  }
  return `unknown status ${JSON.stringify(String(r.status)).slice(0, 40)} (a newer version's?)`;
}

/**
 * Reads a stored session record defensively: storage is shared with other deploys (older and newer
 * brokers run side by side) and can hold anything. A record this version cannot use is set aside
 * (`problem` says why) and the slot reads as empty, so the broker starts signed out and a sign-in
 * can replace it, rather than failing to start or locking the user out.
 */
export function readSessionRecord(
  raw: unknown,
  slot: string,
): { record: SessionRecord | null; problem: string | null } {
  if (raw === undefined || raw === null) return { record: null, problem: null };
  const problem = recordProblem(raw, slot);
  if (problem !== null) return { record: null, problem };
  const record = raw as SessionRecord;
  if (record.status === 'active') return { record, problem: null };
  // Any page of the origin can write here: the sentence people see is ours, from the reason.
  const { reason, atMillis, code } = record.end;
  return {
    record: {
      ...record,
      end: sessionEnd(reason, atMillis, typeof code === 'string' && ERROR_CODE.test(code) ? code : undefined),
    },
    problem: null,
  };
}

/** The key of the live session a record holds, or null (also for a record this version cannot use). */
export function liveKey(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return null;
  const slot = (record as { slot?: unknown }).slot;
  if (typeof slot !== 'string') return null;
  const { record: usable } = readSessionRecord(record, slot);
  return usable?.status === 'active' ? usable.sessionKey : null;
}
