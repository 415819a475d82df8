import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { isUuid } from '../../protocol/args.js';

/**
 * The logical queries tabs can subscribe to. A query's cache key adds its scope: the user's
 * session, the admin's session, or nothing for project-wide data, so the same query after a
 * sign-in names a different entry.
 */
export type QuerySpec =
  | { kind: 'currentUser' }
  | { kind: 'teams' }
  | { kind: 'team'; teamId: string }
  | { kind: 'teamMembers'; teamId: string }
  | { kind: 'teamInvitations'; teamId: string }
  | { kind: 'permissions'; teamId: string; recursive?: boolean }
  | { kind: 'contactChannels' }
  | { kind: 'sessions' }
  | { kind: 'project' }
  | { kind: 'admin.ownedProjects' }
  | { kind: 'admin.project'; projectId?: string }
  | { kind: 'admin.apiKeys'; projectId?: string }
  | { kind: 'admin.emailTemplates'; projectId?: string }
  | { kind: 'admin.permissionDefinitions'; projectId?: string }
  | { kind: 'admin.metrics'; projectId?: string }
  | { kind: 'admin.sentEmails'; projectId?: string }
  /** Live broker state rather than service data. */
  | { kind: 'session' }
  | { kind: 'adminSession' }
  | { kind: 'connectivity' }
  | { kind: 'status' };

export type QueryKind = QuerySpec['kind'];
export type LiveKind = 'session' | 'adminSession' | 'connectivity' | 'status';
export type QueryScope = 'user' | 'admin' | 'project' | 'live';

const scopes: Record<QueryKind, QueryScope> = {
  currentUser: 'user',
  teams: 'user',
  team: 'user',
  teamMembers: 'user',
  teamInvitations: 'user',
  permissions: 'user',
  contactChannels: 'user',
  sessions: 'user',
  project: 'project',
  'admin.ownedProjects': 'admin',
  'admin.project': 'admin',
  'admin.apiKeys': 'admin',
  'admin.emailTemplates': 'admin',
  'admin.permissionDefinitions': 'admin',
  'admin.metrics': 'admin',
  'admin.sentEmails': 'admin',
  session: 'live',
  adminSession: 'live',
  connectivity: 'live',
  status: 'live',
};

export function scopeOf(spec: QuerySpec): QueryScope {
  return scopes[spec.kind];
}

export function isLive(spec: QuerySpec): spec is Extract<QuerySpec, { kind: LiveKind }> {
  return scopes[spec.kind] === 'live';
}

/** Checks an untrusted query (it comes over RPC) and returns a clean copy. */
export function parseQuerySpec(value: unknown): QuerySpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError('query', 'A query must be an object with a kind.');
  const q = value as Record<string, unknown>;
  const kind = q.kind;
  if (typeof kind !== 'string' || !Object.prototype.hasOwnProperty.call(scopes, kind)) {
    throw new InvalidArgumentError('query.kind', `Unknown query kind ${JSON.stringify(kind)}; expected one of ${Object.keys(scopes).join(', ')}.`);
  }
  const allowed: Record<string, string[]> = { team: ['teamId'], teamMembers: ['teamId'], teamInvitations: ['teamId'], permissions: ['teamId', 'recursive'] };
  const fields = allowed[kind] ?? (kind.startsWith('admin.') && kind !== 'admin.ownedProjects' ? ['projectId'] : []);
  for (const key of Object.keys(q)) {
    if (key !== 'kind' && !fields.includes(key)) throw new InvalidArgumentError(`query.${key}`, `A ${kind} query has no "${key}".`);
  }
  if (fields.includes('teamId') && !isUuid(q.teamId)) throw new InvalidArgumentError('query.teamId', `A ${kind} query needs a teamId (UUID).`);
  if (q.recursive !== undefined && typeof q.recursive !== 'boolean') throw new InvalidArgumentError('query.recursive', 'recursive must be a boolean.');
  if (q.projectId !== undefined && (typeof q.projectId !== 'string' || q.projectId === '')) throw new InvalidArgumentError('query.projectId', 'projectId must be a non-empty string.');
  return { ...q } as QuerySpec;
}

/** The part of a cache key that names the query (without its scope). */
export function queryName(spec: QuerySpec): string {
  const { kind, ...params } = spec as { kind: string } & Record<string, unknown>;
  const sorted = Object.keys(params)
    .sort()
    .filter((k) => params[k] !== undefined)
    .map((k) => `${k}=${String(params[k])}`);
  return sorted.length === 0 ? kind : `${kind}?${sorted.join('&')}`;
}
