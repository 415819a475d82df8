import { createKnownError } from '../../protocol/errors/create.js';
import { refreshTokenFor, issueTokens } from '../auth/issue.js';
import { requireAccess, resolveUserId, SERVER } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, schemaError, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import { findSessionByRefreshToken } from '../state/sessions.js';
import { own } from '../state/store.js';
import { findUser } from '../state/users.js';
import { sessionView } from '../views.js';

const MAX_SESSION_MILLIS = 31_708_800_000;

/** Session endpoints (PROTOCOL.md §3.4). */
export function registerSessionRoutes(router: Router): void {
  router.add('DELETE', '/auth/sessions/current', (req) => {
    const auth = requireAccess(req);
    if (auth.sessionId === null) throw createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: req.now });
    if (!own(auth.project.sessions, auth.sessionId)) throw createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    delete auth.project.sessions[auth.sessionId];
    return success();
  });

  router.add('POST', '/auth/sessions/current/refresh', async (req) => {
    const auth = requireAccess(req);
    const refreshToken = req.headers['x-stack-refresh-token'];
    if (refreshToken === undefined) throw schemaError(req, ['headers.x-stack-refresh-token must be defined']);
    const session = findSessionByRefreshToken(auth.project, refreshToken, req.now);
    const user = session ? findUser(auth.project, session.user_id) : undefined;
    if (!session || !user) throw createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    const accessToken = await refreshTokenFor(req.env, auth.project, user, session.id, req.now);
    req.env.stats.tokenGrant('session_refresh_endpoint');
    return json({ access_token: accessToken });
  });

  router.add('GET', '/auth/sessions', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ user_id: userIdOrMe().defined() }).defined() });
    const userId = resolveUserId(auth, query.user_id);
    if (auth.type === 'client' && userId !== auth.user?.id)
      throw new StatusError(403, 'Client can only list sessions for their own user.');
    const items = Object.values(auth.project.sessions)
      .filter(
        (s) => s.user_id === userId && s.expires_at_millis > req.now && (!s.is_impersonation || auth.type === 'admin'),
      )
      .sort((a, b) => b.created_at_millis - a.created_at_millis)
      .map((s) => sessionView(s, auth.sessionId));
    return json({ items, is_paginated: false });
  });

  router.add('DELETE', '/auth/sessions/:id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, {
      params: obj({ id: uuid().defined() }).defined(),
      query: obj({ user_id: userIdOrMe().defined() }).defined(),
    });
    const session = own(auth.project.sessions, params.id);
    if (!session || (auth.type === 'client' && session.user_id !== auth.user?.id))
      throw new StatusError(404, 'Session not found.');
    if (session.id === auth.sessionId) throw createKnownError('CANNOT_DELETE_CURRENT_SESSION');
    delete auth.project.sessions[session.id];
    return success();
  });

  router.add('POST', '/auth/sessions', async (req) => {
    const auth = requireAccess(req, SERVER);
    const { body } = validate(req, {
      body: obj({
        user_id: userIdOrMe().defined(),
        expires_in_millis: yup.number().max(MAX_SESSION_MILLIS),
        is_impersonation: yup.boolean(),
      }).defined(),
    });
    const userId = resolveUserId(auth, body.user_id);
    const user = findUser(auth.project, userId);
    if (!user) throw createKnownError('USER_ID_DOES_NOT_EXIST', { user_id: userId });
    const tokens = await issueTokens(req.env, auth.project, user, req.now, {
      ...(body.expires_in_millis === undefined ? {} : { expiresInMillis: body.expires_in_millis }),
      ...(body.is_impersonation === undefined ? {} : { isImpersonation: body.is_impersonation }),
    });
    return json({ refresh_token: tokens.refresh_token, access_token: tokens.access_token });
  });
}
