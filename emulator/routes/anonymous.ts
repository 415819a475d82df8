import { issueTokens } from '../auth/issue.js';
import { requireAccess } from '../http/access.js';
import { signUpCountryOf } from '../http/endUser.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { createUser } from '../state/users.js';

/** Anonymous users (newer than PROTOCOL.md): a user with no way to sign in, until a sign-up upgrades it. */
export function registerAnonymousRoutes(router: Router): void {
  router.add('POST', '/auth/anonymous/sign-up', async (req) => {
    // Any access type; the service reads no body (whatever is sent is ignored) and checks no project setting.
    const auth = requireAccess(req);
    const user = createUser(auth.project, { is_anonymous: true, country_code: signUpCountryOf(req.headers) }, req.now);
    const tokens = await issueTokens(req.env, auth.project, user, req.now);
    return json({ access_token: tokens.access_token, refresh_token: tokens.refresh_token, user_id: user.id });
  });
}
