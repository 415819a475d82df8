/** Whether a URL is of an origin the app lets the user's token go to (`appRequests.origins`). */
import type { ResolvedAppRequests } from './appRequestOptions.js';

export function isAllowedOrigin(resolved: Pick<ResolvedAppRequests, 'origins'>, url: string): boolean {
  try {
    return resolved.origins.includes(new URL(url).origin);
  } catch {
    return false;
  }
}
