import { createKnownError } from '../../protocol/errors/create.js';
import type { AccessType } from '../../protocol/resources/common.js';
import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../crypto.js';
import { StatusError } from '../errors.js';
import type { ApiKeyRecord, ProjectRecord, UserRecord } from '../state/model.js';
import type { Store } from '../state/store.js';
import { own } from '../state/store.js';
import { verifyAccessToken } from './jwt.js';

export interface AuthContext {
  type: AccessType;
  project: ProjectRecord;
  /** The user of `x-stack-access-token`, when it names one that exists. */
  user: UserRecord | null;
  /** The `refreshTokenId` claim: the session the access token belongs to. */
  sessionId: string | null;
}

export type Headers = Readonly<Record<string, string | undefined>>;

type KeyKind = 'publishable_client_key' | 'secret_server_key' | 'super_secret_admin_key';

/** Whether some live key set of the project holds `secret` as a key of this kind. Checks every set. */
export function keyIsValid(p: ProjectRecord, kind: KeyKind, secret: string, now: number): boolean {
  // Hashes of equal length, compared in constant time: timing tells nothing of the secret.
  const hash = Buffer.from(sha256Hex(secret), 'hex');
  let valid = false;
  for (const set of p.api_keys) {
    const stored = set[kind];
    const live = set.manually_revoked_at_millis === null && set.expires_at_millis > now;
    // No early exit: the time taken does not depend on which set (if any) matched.
    if (stored !== null && timingSafeEqual(Buffer.from(stored.hash, 'hex'), hash) && live) valid = true;
  }
  return valid;
}

export function liveKeySets(p: ProjectRecord, now: number): ApiKeyRecord[] {
  return p.api_keys.filter((k) => k.manually_revoked_at_millis === null && k.expires_at_millis > now);
}

function isAccessType(value: string): value is AccessType {
  return value === 'client' || value === 'server' || value === 'admin';
}

/**
 * Resolves who is calling, in the order the service checks today (the 2026-04 backend; PROTOCOL.md
 * §1.4 describes v2.7's, which looked the project up after the keys). Null: an unauthenticated request.
 */
export async function authenticate(headers: Headers, store: Store, now: number): Promise<AuthContext | null> {
  const projectId = headers['x-stack-project-id'];
  const accessToken = headers['x-stack-access-token'];
  const accessType = headers['x-stack-access-type'];
  const publishableKey = headers['x-stack-publishable-client-key'];
  const secretKey = headers['x-stack-secret-server-key'];
  const adminKey = headers['x-stack-super-secret-admin-key'];
  const adminAccessToken = headers['x-stack-admin-access-token'];
  const overrideKey = headers['x-stack-development-override-key'];

  // 1. The access token, whenever a project id names where to look.
  let tokenUser: { projectId: string; userId: string; sessionId: string | null } | null = null;
  if (projectId !== undefined && accessToken !== undefined) {
    const check = await verifyAccessToken(store, accessToken, now);
    if (!check.ok && check.reason === 'expired')
      throw createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: check.expiredAtMillis });
    if (!check.ok) throw createKnownError('UNPARSABLE_ACCESS_TOKEN');
    if (check.projectId !== projectId) throw createKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN');
    // An anonymous user's token only counts when the caller says it expects one (the SDKs always do).
    const allowAnonymous = headers['x-stack-allow-anonymous-user'] === 'true';
    if (check.anonymous && !allowAnonymous) throw createKnownError('ANONYMOUS_AUTHENTICATION_NOT_ALLOWED');
    // So does a restricted user's (allowing anonymous users allows restricted ones too).
    if (
      !check.anonymous &&
      check.restricted !== null &&
      !allowAnonymous &&
      headers['x-stack-allow-restricted-user'] !== 'true'
    )
      throw createKnownError('RESTRICTED_USER_NOT_ALLOWED', { restricted_reason: { ...check.restricted } });
    tokenUser = { projectId: check.projectId, userId: check.userId, sessionId: check.sessionId };
  }

  // 2–5. The access type and the project id.
  if (accessType === undefined) {
    if ([publishableKey, secretKey, adminKey, adminAccessToken].some((h) => h !== undefined))
      throw createKnownError('PROJECT_KEY_WITHOUT_ACCESS_TYPE');
    return null;
  }
  if (!isAccessType(accessType)) throw createKnownError('INVALID_ACCESS_TYPE', { accessType });
  if (projectId === undefined) throw createKnownError('ACCESS_TYPE_WITHOUT_PROJECT_ID', { request_type: accessType });

  // The project before any key: an unknown id says so, whatever the keys (the service's order today).
  const project = store.project(projectId);
  if (!project) throw createKnownError('CURRENT_PROJECT_NOT_FOUND', { project_id: projectId });

  const now_ = now;
  if (overrideKey !== undefined) {
    // 6. The dev-only override key: the internal project's super secret admin key.
    const internal = store.project('internal');
    if (!internal || !keyIsValid(internal, 'super_secret_admin_key', overrideKey, now_))
      throw new StatusError(401, 'Invalid development key override');
  } else if (adminAccessToken !== undefined) {
    // 7. An admin access token replaces the key check for any access type.
    const check = await verifyAccessToken(store, adminAccessToken, now_);
    if (!check.ok && check.reason === 'expired')
      throw createKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', { expired_at_millis: check.expiredAtMillis });
    // An anonymous user of the internal project owns no project (the service refuses such tokens here).
    if (!check.ok || check.restricted !== null) throw createKnownError('UNPARSABLE_ADMIN_ACCESS_TOKEN');
    if (check.projectId !== 'internal') throw createKnownError('ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    const internal = store.project('internal');
    const admin = internal ? own(internal.users, check.userId) : undefined;
    if (!admin) {
      throw new StatusError(
        401,
        'The user associated with the admin access token is no longer valid. Please refresh the admin access token and try again.',
      );
    }
    const managed = (admin.server_metadata as { managedProjectIds?: unknown } | null)?.managedProjectIds;
    if (!Array.isArray(managed) || !managed.includes(projectId))
      throw createKnownError('ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
  } else {
    // 8. The key of the access type (keys of other types are ignored).
    const check = (
      kind: KeyKind,
      value: string | undefined,
      missing: 'CLIENT_AUTHENTICATION_REQUIRED' | 'SERVER_AUTHENTICATION_REQUIRED' | 'ADMIN_AUTHENTICATION_REQUIRED',
    ) => {
      if (value === undefined || value === '') throw createKnownError(missing);
      if (!keyIsValid(project, kind, value, now_)) {
        const code =
          kind === 'publishable_client_key'
            ? 'INVALID_PUBLISHABLE_CLIENT_KEY'
            : kind === 'secret_server_key'
              ? 'INVALID_SECRET_SERVER_KEY'
              : 'INVALID_SUPER_SECRET_ADMIN_KEY';
        throw createKnownError(code, { project_id: projectId });
      }
    };
    if (accessType === 'client') {
      // Client access without a key is allowed unless the project requires one.
      if (publishableKey === undefined || publishableKey === '') {
        if (project.config.require_publishable_client_key)
          throw createKnownError('PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT', { project_id: projectId });
      } else {
        check('publishable_client_key', publishableKey, 'CLIENT_AUTHENTICATION_REQUIRED');
      }
    } else if (accessType === 'server') check('secret_server_key', secretKey, 'SERVER_AUTHENTICATION_REQUIRED');
    else check('super_secret_admin_key', adminKey, 'ADMIN_AUTHENTICATION_REQUIRED');
  }

  // Whether a guest's token is accepted was decided from the token itself (its claim), above, as the service does.
  const user = tokenUser ? (own(project.users, tokenUser.userId) ?? null) : null;
  return { type: accessType, project, user, sessionId: tokenUser?.sessionId ?? null };
}
