import { createKnownError } from '../../protocol/errors/create.js';
import type { AccessType } from '../../protocol/resources/common.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { schemaError } from './validate.js';
import type { ApiRequest } from './types.js';

const order: AccessType[] = ['client', 'server', 'admin'];

/** The request's auth, which must be one of `allowed` (ACCESS_TYPE_REQUIRED / INSUFFICIENT_ACCESS_TYPE). */
export function requireAccess(req: ApiRequest, allowed: readonly AccessType[] = order): AuthContext {
  const auth = req.auth;
  if (auth === null) throw createKnownError('ACCESS_TYPE_REQUIRED');
  if (!allowed.includes(auth.type)) {
    throw createKnownError('INSUFFICIENT_ACCESS_TYPE', {
      actual_access_type: auth.type,
      allowed_access_types: order.filter((t) => allowed.includes(t)),
    });
  }
  return auth;
}

export const SERVER: readonly AccessType[] = ['server', 'admin'];
export const ADMIN: readonly AccessType[] = ['admin'];

/** Endpoints that check the user in code (USER_AUTHENTICATION_REQUIRED). */
export function requireUser(auth: AuthContext): UserRecord {
  if (auth.user === null) throw createKnownError('USER_AUTHENTICATION_REQUIRED');
  return auth.user;
}

/** Endpoints that declare the user in their schema (SCHEMA_ERROR `auth.user must be defined`). */
export function requireUserBySchema(req: ApiRequest, auth: AuthContext): UserRecord {
  if (auth.user === null) throw schemaError(req, ['auth.user must be defined']);
  return auth.user;
}

/** `me` → the caller's id (CANNOT_GET_OWN_USER_WITHOUT_USER without one). */
export function resolveUserId(auth: AuthContext, userId: string): string {
  if (userId !== 'me') return userId;
  if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
  return auth.user.id;
}

export function isClient(auth: AuthContext): boolean {
  return auth.type === 'client';
}

export function projectOf(auth: AuthContext): ProjectRecord {
  return auth.project;
}
