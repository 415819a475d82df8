import { createKnownError } from '../../protocol/errors/create.js';
import { refreshTokenFor } from '../auth/issue.js';
import { randomToken, sha256Hex } from '../crypto.js';
import { requireAccess } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, validate, yup } from '../http/validate.js';
import type { CliLoginRecord, ProjectRecord, SessionRecord } from '../state/model.js';
import type { Store } from '../state/store.js';
import { own } from '../state/store.js';
import { findUser } from '../state/users.js';

const MAX_EXPIRES_IN_MILLIS = 24 * 3600 * 1000;
const DEFAULT_EXPIRES_IN_MILLIS = 2 * 3600 * 1000;
const INVALID_LOGIN_CODE = 'Invalid login code or the code has expired';
const NO_ANONYMOUS_SESSION = 'No anonymous session associated with this code';

function pruneCliLogins(p: ProjectRecord, now: number): void {
  for (const [key, login] of Object.entries(p.cli_logins))
    if (login.expires_at_millis + MAX_EXPIRES_IN_MILLIS < now) delete p.cli_logins[key];
}

/**
 * The session of a refresh token in whichever project holds it, expired or not: the service looks a
 * token up across every project first, then says whether it belongs to this one and is still alive.
 */
function sessionAnywhere(
  store: Store,
  refreshToken: string,
): { project: ProjectRecord; session: SessionRecord } | null {
  const hash = sha256Hex(refreshToken);
  for (const project of Object.values(store.state.projects))
    for (const session of Object.values(project.sessions))
      if (session.refresh_token_hash === hash) return { project, session };
  return null;
}

/** The live session of a refresh token of this project; another project's is refused, as the service does. */
function liveSession(store: Store, p: ProjectRecord, refreshToken: string, now: number): SessionRecord | null {
  const found = sessionAnywhere(store, refreshToken);
  if (found === null) return null;
  if (found.project !== p) throw new StatusError(400, 'Refresh token does not belong to this project');
  return found.session.expires_at_millis < now ? null : found.session;
}

/** The attempt a login code names while it can still be completed: not completed, not polled, not expired. */
function pendingLogin(p: ProjectRecord, loginCode: string, now: number): CliLoginRecord {
  const login = Object.values(p.cli_logins).find((l) => l.login_code === loginCode);
  if (!login || login.status !== 'waiting' || login.expires_at_millis < now)
    throw new StatusError(400, INVALID_LOGIN_CODE);
  return login;
}

/** The CLI's own guest session, while its user is still anonymous (a sign-up since makes it none). */
function cliGuestSession(store: Store, p: ProjectRecord, login: CliLoginRecord, now: number): SessionRecord | null {
  const token = login.anon_refresh_token ?? null;
  if (token === null) return null;
  const session = liveSession(store, p, token, now);
  return session !== null && findUser(p, session.user_id)?.is_anonymous === true ? session : null;
}

/**
 * CLI login, as the service at the pinned commit has it (`auth/cli`, `auth/cli/complete`,
 * `auth/cli/poll`). The CLI starts an attempt (optionally with its anonymous user's refresh token)
 * and polls; a browser completes it with its own refresh token, which the next poll hands over once.
 * Before that, the browser may ask whether the CLI brought an anonymous user (`check`) and take that
 * user's session over (`claim-anon-session`), to upgrade it by signing up and then complete.
 */
export function registerCliRoutes(router: Router): void {
  router.add('POST', '/auth/cli', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        expires_in_millis: yup.number().max(MAX_EXPIRES_IN_MILLIS),
        anon_refresh_token: yup.string(),
      }),
    });
    const p = auth.project;
    let anonRefreshToken: string | null = null;
    if (body?.anon_refresh_token) {
      const found = sessionAnywhere(req.env.store, body.anon_refresh_token);
      if (found === null) throw new StatusError(400, 'Invalid anon refresh token');
      if (found.project !== p) throw new StatusError(400, 'Anon refresh token does not belong to this project');
      if (found.session.expires_at_millis < req.now)
        throw new StatusError(400, 'The provided anon refresh token has expired');
      const user = findUser(p, found.session.user_id);
      if (!user) throw new StatusError(400, 'User not found for provided refresh token');
      if (user.is_anonymous !== true)
        throw new StatusError(400, 'The provided refresh token does not belong to an anonymous user');
      anonRefreshToken = body.anon_refresh_token;
    }
    pruneCliLogins(p, req.now);
    const expiresAt = req.now + (body?.expires_in_millis ?? DEFAULT_EXPIRES_IN_MILLIS);
    const login: CliLoginRecord = {
      polling_code: randomToken(),
      login_code: randomToken(),
      expires_at_millis: expiresAt,
      refresh_token: null,
      anon_refresh_token: anonRefreshToken,
      status: 'waiting',
    };
    p.cli_logins[login.polling_code] = login;
    return json({
      polling_code: login.polling_code,
      login_code: login.login_code,
      expires_at: new Date(expiresAt).toISOString(),
    });
  });

  router.add('POST', '/auth/cli/complete', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        login_code: yup.string().defined(),
        mode: yup.string().oneOf(['check', 'claim-anon-session', 'complete']).default('complete'),
        refresh_token: yup.string(),
      }).defined(),
    });
    const p = auth.project;
    const store = req.env.store;
    const login = pendingLogin(p, body.login_code, req.now);

    if (body.mode === 'check')
      return json({ cli_session_state: cliGuestSession(store, p, login, req.now) === null ? 'none' : 'anonymous' });

    if (body.mode === 'claim-anon-session') {
      const guest = cliGuestSession(store, p, login, req.now);
      const token = login.anon_refresh_token ?? null;
      if (guest === null || token === null) throw new StatusError(400, NO_ANONYMOUS_SESSION);
      // Taken once: a second claim finds no session.
      login.anon_refresh_token = null;
      const user = findUser(p, guest.user_id);
      if (!user) throw new StatusError(400, 'Anonymous session is no longer valid');
      const accessToken = await refreshTokenFor(req.env, p, user, guest.id, req.now);
      return json({ access_token: accessToken, refresh_token: token });
    }

    if (!body.refresh_token) throw new StatusError(400, "refresh_token is required when mode is 'complete'");
    if (liveSession(store, p, body.refresh_token, req.now) === null)
      throw new StatusError(400, 'Invalid refresh token');
    // The CLI's anonymous user, if any, is left as it is: never merged into the browser's.
    login.refresh_token = body.refresh_token;
    login.anon_refresh_token = null;
    login.status = 'success';
    return success();
  });

  router.add('POST', '/auth/cli/poll', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ polling_code: yup.string().defined() }).defined() });
    const login = own(auth.project.cli_logins, body.polling_code);
    if (!login) throw createKnownError('INVALID_POLLING_CODE');
    if (login.expires_at_millis < req.now) return json({ status: 'expired' });
    if (login.status === 'used') return json({ status: 'used' });
    if (login.status === 'waiting' || login.refresh_token === null) return json({ status: 'waiting' });
    const refreshToken = login.refresh_token;
    // Handed out once; the state file need not keep it any longer.
    login.status = 'used';
    login.refresh_token = null;
    return json({ status: 'success', refresh_token: refreshToken }, 201);
  });
}
