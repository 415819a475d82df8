import type { ProjectRecord } from '../state/model.js';
import type { Store } from '../state/store.js';
import { keyIsValid } from './authenticate.js';

/** The OAuth client of the authorize and token endpoints: a project (and branch) and a publishable key. */

/**
 * What the service says of a publishable key given as an OAuth client secret: the sentinel `__stack_public_client__`
 * stands for "no key", which a project that requires publishable keys refuses.
 */
export const PUBLIC_CLIENT_SECRET = '__stack_public_client__';

export function clientSecretProblem(p: ProjectRecord, secret: string, now: number): 'invalid' | 'required' | null {
  if (secret === PUBLIC_CLIENT_SECRET) return p.config.require_publishable_client_key === true ? 'required' : null;
  return keyIsValid(p, 'publishable_client_key', secret, now) ? null : 'invalid';
}

/** A project and branch from an OAuth client id (`<project id>` or `<project id>#<branch id>`); only `main` exists. */
export function projectOfClientId(store: Store, clientId: string): ProjectRecord | undefined {
  const hash = clientId.indexOf('#');
  const projectId = hash === -1 ? clientId : clientId.slice(0, hash);
  const branchId = hash === -1 ? 'main' : clientId.slice(hash + 1);
  return branchId === 'main' ? store.project(projectId) : undefined;
}
