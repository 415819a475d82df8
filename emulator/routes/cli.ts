import { createKnownError } from '../../protocol/errors/create.js';
import { randomToken } from '../crypto.js';
import { requireAccess } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { obj, validate, yup } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';
import { own } from '../state/store.js';

const MAX_EXPIRES_IN_MILLIS = 24 * 3600 * 1000;
const DEFAULT_EXPIRES_IN_MILLIS = 2 * 3600 * 1000;

function pruneCliLogins(p: ProjectRecord, now: number): void {
  for (const [key, login] of Object.entries(p.cli_logins))
    if (login.expires_at_millis + MAX_EXPIRES_IN_MILLIS < now) delete p.cli_logins[key];
}

/**
 * CLI login (PROTOCOL.md §5.2): the CLI starts a login and polls; a signed-in browser completes it
 * by handing over its refresh token, which the next poll returns exactly once.
 */
export function registerCliRoutes(router: Router): void {
  router.add('POST', '/auth/cli', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ expires_in_millis: yup.number().integer().min(0).max(MAX_EXPIRES_IN_MILLIS) }),
    });
    const p = auth.project;
    pruneCliLogins(p, req.now);
    const expiresAt = req.now + (body?.expires_in_millis ?? DEFAULT_EXPIRES_IN_MILLIS);
    const login = {
      polling_code: randomToken(),
      login_code: randomToken(),
      expires_at_millis: expiresAt,
      refresh_token: null,
      status: 'waiting' as const,
    };
    p.cli_logins[login.polling_code] = login;
    return json({
      polling_code: login.polling_code,
      login_code: login.login_code,
      expires_at: new Date(expiresAt).toISOString(),
    });
  });

  router.add('POST', '/auth/cli/complete', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ login_code: yup.string().defined(), refresh_token: yup.string().defined() }).defined(),
    });
    // Like the service, the refresh token is passed on as given, not checked.
    const login = Object.values(auth.project.cli_logins).find(
      (l) => l.login_code === body.login_code && l.status === 'waiting' && l.expires_at_millis > req.now,
    );
    if (!login) throw new StatusError(400, 'Invalid login code or the code has expired');
    login.refresh_token = body.refresh_token;
    login.status = 'success';
    return success();
  });

  router.add('POST', '/auth/cli/poll', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ polling_code: yup.string().defined() }).defined() });
    const login = own(auth.project.cli_logins, body.polling_code);
    if (!login) throw createKnownError('INVALID_POLLING_CODE');
    if (login.expires_at_millis <= req.now) return json({ status: 'expired' });
    if (login.status === 'used') return json({ status: 'used' });
    if (login.status === 'waiting' || login.refresh_token === null) return json({ status: 'waiting' });
    const refreshToken = login.refresh_token;
    // Handed out once; the state file need not keep it any longer.
    login.status = 'used';
    login.refresh_token = null;
    return json({ status: 'success', refresh_token: refreshToken }, 201);
  });
}
