import { createKnownError } from '../../protocol/errors/knownError.js';
import { requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { userView } from '../views.js';

/** Users (PROTOCOL.md §5.3). */
export function registerUserRoutes(router: Router): void {
  router.add('GET', '/users/me', (req) => {
    const auth = requireAccess(req);
    validate(req, {});
    if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
    return json(userView(auth.project, auth.user, auth.type));
  });
}
