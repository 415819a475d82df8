/**
 * What a session reads from the tokens it holds, apart from the session's state machine: whose
 * they are, whether a stored one may still be used, and what to tell the app when they look wrong.
 */
import { decodeJwt } from 'jose';
import { isAccessTokenExpiring } from '../../protocol/tokens.js';
import type { StoredSession } from '../storage/types.js';

/**
 * Said when tokens name another user than the session they came for: a record in storage (or from
 * a peer) under the held session's key with another user's tokens, or a renewal that answered with
 * them. Sign-ins always make a new session key, so this is never the session going on: not taken.
 */
export const FOREIGN_TOKENS_WARNING = 'Tokens of another user arrived for this session: not used.';

export const ARRIVAL_WARNINGS = {
  'expired-on-arrival':
    "Access tokens arrive expired by this device's clock: each is used for its stated lifetime from its arrival.",
  unreadable:
    'The access token is not a JWT the broker can read: it is renewed at most once a minute, or when refused.',
} as const;

/** The user an access token names (`sub`), or null when it names none or cannot be read. */
export function userIdOf(accessToken: string): string | null {
  try {
    const { sub } = decodeJwt(accessToken);
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
}

/** Whether a stored access token may be sent now: not refused by the service, not due for renewal. */
export function isStoredTokenUsable(
  record: StoredSession,
  refused: ReadonlySet<string>,
  now: number,
  marginMillis: number,
): record is StoredSession & { accessToken: string } {
  const token = record.accessToken;
  if (token === null || refused.has(token)) return false;
  const renewAt = record.accessTokenRenewAtMillis;
  // Records of older versions carry no renewal time: judge by the token's `exp`.
  if (renewAt === undefined) return !isAccessTokenExpiring(token, now, marginMillis);
  return renewAt === null || now < renewAt;
}

/**
 * Whether a record's tokens may be `userId`'s (null: whoever's): the user its access token names
 * (`sub`), the user it says and `userId`, where known, are one. A token whose `sub` is another user's
 * is another session, never the held one going on.
 */
export function isSameUser(userId: string | null, record: Pick<StoredSession, 'accessToken' | 'userId'>): boolean {
  const named = [record.accessToken === null ? null : userIdOf(record.accessToken), record.userId, userId].filter(
    (id) => id !== null,
  );
  return named.every((id) => id === named[0]);
}
