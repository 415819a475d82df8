import type { QueryKind } from './queries.js';

/**
 * The queries a tab keeps a copy of between visits, so that a new tab shows them on its first
 * render (then revalidates): the signed-in user's own data and the project's public settings. Never
 * a token, never admin or server-only data, never live broker state.
 */
export const PERSISTED_KINDS = [
  'currentUser',
  'teams',
  'team',
  'teamMembers',
  'teamProfile',
  'permissions',
  'contactChannels',
  'project',
] as const satisfies readonly QueryKind[];

export type PersistedKind = (typeof PERSISTED_KINDS)[number];
