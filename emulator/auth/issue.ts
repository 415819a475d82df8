import { createKnownError } from '../../protocol/errors/create.js';
import type { EmulatorEnv } from '../env.js';
import { createCode } from '../codes.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { createSession } from '../state/sessions.js';
import { recordActivity } from '../state/users.js';
import { signAccessToken } from './jwt.js';

/** A signed-in response's tokens: a new session and its first access token. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  session_id: string;
}

/**
 * Starts a session for `user`. Signing is the only await and it happens before any mutation,
 * so the store changes in one synchronous block (see Store).
 */
export async function issueTokens(
  env: EmulatorEnv,
  p: ProjectRecord,
  user: UserRecord,
  now: number,
  options: { method?: string; expiresInMillis?: number; isImpersonation?: boolean } = {},
): Promise<IssuedTokens> {
  const sessionId = crypto.randomUUID();
  const accessToken = await signAccessToken(p, user, sessionId, now, env.accessTokenTtlMillis, env.baseUrl);
  const { session, refreshToken } = createSession(p, user.id, now, {
    ...(options.expiresInMillis === undefined ? {} : { expiresInMillis: options.expiresInMillis }),
    ...(options.isImpersonation === undefined ? {} : { isImpersonation: options.isImpersonation }),
  });
  // Keep the id the token was signed with.
  delete p.sessions[session.id];
  session.id = sessionId;
  session.last_used_at_millis = now;
  p.sessions[sessionId] = session;
  recordActivity(p, user, now);
  if (options.method !== undefined && !user.login_methods.includes(options.method))
    user.login_methods.push(options.method);
  return { access_token: accessToken, refresh_token: refreshToken, session_id: sessionId };
}

/** A fresh access token for an existing session (refresh); records activity. */
export async function refreshTokenFor(
  env: EmulatorEnv,
  p: ProjectRecord,
  user: UserRecord,
  sessionId: string,
  now: number,
): Promise<string> {
  const token = await signAccessToken(p, user, sessionId, now, env.accessTokenTtlMillis, env.baseUrl);
  const session = p.sessions[sessionId];
  if (session) session.last_used_at_millis = now;
  recordActivity(p, user, now);
  return token;
}

/**
 * For TOTP users, first factors end here: MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code
 * that remembers the flow's `is_new_user`.
 */
export function requireSecondFactor(p: ProjectRecord, user: UserRecord, now: number, isNewUser: boolean): void {
  if (user.totp_secret_base64 === null) return;
  const attempt = createCode(p, 'mfa_attempt', { user_id: user.id, is_new_user: isNewUser }, now);
  throw createKnownError('MULTI_FACTOR_AUTHENTICATION_REQUIRED', { attempt_code: attempt.code });
}
