import type { SessionEnd } from '../../contract/state.js';

export type { SessionEnd, SessionEndReason } from '../../contract/state.js';

/** A session as persisted: the working copy lives in memory, this is its durable form. */
export interface StoredSession {
  /** The storage slot: the project id for the user's session, `admin:{projectId}` for a project owner's. */
  slot: string;
  status: 'active';
  /** Random per sign-in; names the session in cache keys and messages without revealing a token. */
  sessionKey: string;
  refreshToken: string;
  accessToken: string | null;
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

export type StorageEvent = { kind: 'cleared' } | { kind: 'closed' };

/** Where the broker keeps what must survive a restart. One database per origin. */
export interface BrokerStorage {
  readonly kind: 'indexeddb' | 'memory';
  loadSession(slot: string): Promise<SessionRecord | null>;
  saveSession(record: SessionRecord): Promise<void>;
  /**
   * Replaces the record only if the slot still holds `expectedSessionKey` (null: holds no live
   * session), atomically; returns whether it did. Keeps two brokers from undoing each other.
   */
  replaceSession(record: SessionRecord, expectedSessionKey: string | null): Promise<boolean>;
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

/** The key of the live session a record holds, or null. */
export function liveKey(record: SessionRecord | null | undefined): string | null {
  return record?.status === 'active' ? record.sessionKey : null;
}
