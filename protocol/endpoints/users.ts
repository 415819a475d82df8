import {
  optionalObject,
  requireObject,
  requirePositiveInteger,
  requireString,
  requireUserId,
  requireUuid,
  seg,
} from '../args.js';
import type { AccessType, PaginatedListResponse, SuccessResponse } from '../resources/common.js';
import type {
  ClientUserUpdate,
  ListUsersQuery,
  ServerUser,
  ServerUserCreate,
  ServerUserUpdate,
} from '../resources/user.js';
import type { ServerAccess, UserFor } from '../resources/views.js';
import { isKnownError } from '../errors/knownError.js';
import { InvalidArgumentError } from '../errors/errors.js';
import type { Transport } from '../transport.js';

/**
 * A service older than anonymous users (2.7) does not send `is_anonymous`: its users are not
 * anonymous, and the field says so, so that every user has the same shape (tabs keep a copy of it).
 */
function withAnonymousFlag<U extends { is_anonymous: boolean }>(user: U): U {
  return typeof user.is_anonymous === 'boolean' ? user : { ...user, is_anonymous: false };
}

/** The signed-in user, or null when there is none (the service says CANNOT_GET_OWN_USER_WITHOUT_USER). */
export async function getCurrentUser<A extends AccessType>(t: Transport<A>): Promise<UserFor<A> | null> {
  try {
    return withAnonymousFlag(await t.request<UserFor<A>>({ method: 'GET', path: '/users/me' }));
  } catch (error) {
    if (isKnownError(error, 'CANNOT_GET_OWN_USER_WITHOUT_USER')) return null;
    throw error;
  }
}

/** Clients send the client write shape; servers may send the server one. */
export async function updateCurrentUser<A extends AccessType>(
  t: Transport<A>,
  update: A extends 'client' ? ClientUserUpdate : ServerUserUpdate,
): Promise<UserFor<A>> {
  return withAnonymousFlag(
    await t.request<UserFor<A>>({ method: 'PATCH', path: '/users/me', body: requireObject(update, 'update') }),
  );
}

/** Clients need the project's client_user_deletion_enabled. */
export function deleteCurrentUser(t: Transport): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: '/users/me' });
}

/** One page of users, oldest first unless `desc`; `pagination.next_cursor` fetches the next page. */
export function listUsers(
  t: Transport<ServerAccess>,
  query: ListUsersQuery = {},
): Promise<PaginatedListResponse<ServerUser>> {
  const q = optionalObject(query, 'query') ?? {};
  if (q.limit !== undefined) requirePositiveInteger(q.limit, 'query.limit');
  if (q.cursor !== undefined) requireUuid(q.cursor, 'query.cursor');
  if (q.team_id !== undefined) requireUuid(q.team_id, 'query.team_id');
  if (q.query !== undefined) requireString(q.query, 'query.query');
  if (q.order_by !== undefined && q.order_by !== 'signed_up_at')
    throw new InvalidArgumentError('query.order_by', 'query.order_by can only be "signed_up_at".');
  if (q.desc !== undefined && typeof q.desc !== 'boolean')
    throw new InvalidArgumentError('query.desc', 'query.desc must be a boolean.');
  if (q.include_anonymous !== undefined && typeof q.include_anonymous !== 'boolean')
    throw new InvalidArgumentError('query.include_anonymous', 'query.include_anonymous must be a boolean.');
  return t.request({
    method: 'GET',
    path: '/users',
    query: {
      limit: query.limit,
      cursor: query.cursor,
      order_by: query.order_by,
      desc: query.desc,
      query: query.query,
      team_id: query.team_id,
      include_anonymous: query.include_anonymous,
    },
  });
}

/** Walks every page of `listUsers`. */
export async function* iterateUsers(
  t: Transport<ServerAccess>,
  query: Omit<ListUsersQuery, 'cursor'> = {},
): AsyncGenerator<ServerUser> {
  let cursor: string | undefined;
  do {
    const page = await listUsers(t, { ...query, ...(cursor === undefined ? {} : { cursor }) });
    yield* page.items;
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** Creates a user (server access). */
export function createUser(t: Transport<ServerAccess>, input: ServerUserCreate): Promise<ServerUser> {
  return t.request({ method: 'POST', path: '/users', body: requireObject(input, 'input') });
}

/** One user by id (server access). */
export function getUser(t: Transport<ServerAccess>, userId: string): Promise<ServerUser> {
  return t.request({ method: 'GET', path: `/users/${seg(requireUserId(userId))}` });
}

/** Setting or removing `password` revokes every session of the user. */
export function updateUser(t: Transport<ServerAccess>, userId: string, update: ServerUserUpdate): Promise<ServerUser> {
  return t.request({
    method: 'PATCH',
    path: `/users/${seg(requireUserId(userId))}`,
    body: requireObject(update, 'update'),
  });
}

/** Removes the user with their sessions, memberships and contact channels. */
export function deleteUser(t: Transport<ServerAccess>, userId: string): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: `/users/${seg(requireUserId(userId))}` });
}
