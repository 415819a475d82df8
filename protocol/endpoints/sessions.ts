import { requireObject, requireUserId, requireUuid } from '../args.js';
import type { ListResponse, SuccessResponse } from '../resources/common.js';
import type { Session, SessionCreate, TokenPair } from '../resources/session.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/** Signs out the session of the current access token (its `refreshTokenId` claim). */
export function signOutCurrentSession(t: Transport, options: { maxAttempts?: number } = {}): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: '/auth/sessions/current', body: {}, ...options });
}

/** The session endpoint's refresh (the token endpoint is what the broker uses; both work). */
export function refreshViaSessionEndpoint(t: Transport): Promise<{ access_token: string }> {
  return t.request({ method: 'POST', path: '/auth/sessions/current/refresh', body: {}, sendRefreshToken: true });
}

/** Newest first. Clients may only list their own (`me`). */
export async function listSessions(t: Transport, userId: string): Promise<Session[]> {
  const user_id = requireUserId(userId);
  return (await t.request<ListResponse<Session>>({ method: 'GET', path: '/auth/sessions', query: { user_id } })).items;
}

/** Deleting the current session is CANNOT_DELETE_CURRENT_SESSION: sign out instead. */
export function deleteSession(t: Transport, sessionId: string, userId: string): Promise<SuccessResponse> {
  // The service requires user_id although it does not use it (PROTOCOL.md §11.6).
  const user_id = requireUserId(userId);
  return t.request({
    method: 'DELETE',
    path: `/auth/sessions/${requireUuid(sessionId, 'sessionId')}`,
    query: { user_id },
  });
}

/** Signs a user in from the server (no MFA check), e.g. for impersonation. */
export function createSession(t: Transport<ServerAccess>, input: SessionCreate): Promise<TokenPair> {
  requireObject(input, 'input');
  requireUserId(input.user_id, 'user_id');
  return t.request({ method: 'POST', path: '/auth/sessions', body: input });
}
