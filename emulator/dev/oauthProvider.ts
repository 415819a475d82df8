import type { Router } from '../http/router.js';

/** The mock upstream OAuth provider with its consent page (to be written). */
export function registerMockOAuthProvider(_router: Router): void {}
