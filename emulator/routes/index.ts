import type { Router } from '../http/router.js';
import { registerMiscRoutes } from './misc.js';
import { registerOAuthTokenRoute } from './oauthToken.js';
import { registerPasswordRoutes } from './password.js';
import { registerSessionRoutes } from './sessions.js';
import { registerUserRoutes } from './users.js';

/** Every `/api/v1` route, by area. */
export function registerApiRoutes(router: Router): void {
  registerMiscRoutes(router);
  registerPasswordRoutes(router);
  registerOAuthTokenRoute(router);
  registerSessionRoutes(router);
  registerUserRoutes(router);
}
