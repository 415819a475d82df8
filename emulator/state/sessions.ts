import { randomToken, sha256Hex } from '../crypto.js';
import type { ProjectRecord, SessionRecord } from './model.js';

export const DEFAULT_SESSION_LIFETIME_MILLIS = 365 * 24 * 3600 * 1000;

/** Starts a session; the refresh token is returned once and only its hash is kept. */
export function createSession(
  p: ProjectRecord,
  userId: string,
  now: number,
  options: { expiresInMillis?: number; isImpersonation?: boolean } = {},
): { session: SessionRecord; refreshToken: string } {
  const refreshToken = randomToken();
  const session: SessionRecord = {
    id: crypto.randomUUID(),
    user_id: userId,
    refresh_token_hash: sha256Hex(refreshToken),
    created_at_millis: now,
    expires_at_millis: now + (options.expiresInMillis ?? DEFAULT_SESSION_LIFETIME_MILLIS),
    is_impersonation: options.isImpersonation ?? false,
    last_used_at_millis: null,
  };
  p.sessions[session.id] = session;
  return { session, refreshToken };
}

/** The live session of a refresh token. Lookup by hash: comparing hashes leaks nothing useful. */
export function findSessionByRefreshToken(
  p: ProjectRecord,
  refreshToken: string,
  now: number,
): SessionRecord | undefined {
  const hash = sha256Hex(refreshToken);
  return Object.values(p.sessions).find((s) => s.refresh_token_hash === hash && s.expires_at_millis > now);
}

export function revokeSessionsOfUser(p: ProjectRecord, userId: string, exceptSessionId?: string): void {
  for (const [id, session] of Object.entries(p.sessions)) {
    if (session.user_id === userId && id !== exceptSessionId) delete p.sessions[id];
  }
}
