import { requireNonEmptyString, requireObject, requireString, requireUserId, requireUuid } from '../args.js';
import { InvalidArgumentError } from '../errors/errors.js';
import type { ListResponse } from '../resources/common.js';
import type {
  CreatedOwnedApiKey,
  OwnedApiKeyUpdate,
  TeamApiKey,
  TeamApiKeyCreate,
  UserApiKey,
  UserApiKeyCreate,
} from '../resources/ownedApiKey.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/**
 * The API keys users and teams hold for their own integrations (`/user-api-keys`, `/team-api-keys`), when the project
 * allows them (`allow_user_api_keys`, `allow_team_api_keys`; otherwise a plain 400). Clients manage their own user's
 * keys, and a team's with `$manage_api_keys` in it (else API_KEY_NOT_FOUND). The whole key is in the create answer
 * only; later reads carry its last four characters.
 */

function checkedCreate<I extends { description: string; expires_at_millis: number | null; is_public?: boolean }>(
  input: I,
): I {
  const body = requireObject(input, 'input') as unknown as I;
  requireString(body.description, 'description');
  if (body.expires_at_millis !== null && !Number.isFinite(body.expires_at_millis))
    throw new InvalidArgumentError('expires_at_millis', 'expires_at_millis must be a time in milliseconds, or null.');
  return body;
}

function checkedUpdate(update: OwnedApiKeyUpdate): OwnedApiKeyUpdate {
  const body = requireObject(update, 'update') as OwnedApiKeyUpdate;
  if (body.revoked !== undefined && body.revoked !== true)
    throw new InvalidArgumentError('revoked', 'revoked can only be true: a revoked key stays revoked.');
  return body;
}

/** Makes a key for a user (`me`, or any user with server access); the answer's `value` is the whole key, this once. */
export function createUserApiKey(t: Transport, input: UserApiKeyCreate): Promise<CreatedOwnedApiKey<UserApiKey>> {
  const body = checkedCreate(input);
  requireUserId(body.user_id, 'user_id');
  return t.request({ method: 'POST', path: '/user-api-keys', body });
}

/** A user's keys, newest first, revoked and expired ones included. */
export async function listUserApiKeys(t: Transport, userId: string): Promise<UserApiKey[]> {
  const user_id = requireUserId(userId);
  return (await t.request<ListResponse<UserApiKey>>({ method: 'GET', path: '/user-api-keys', query: { user_id } }))
    .items;
}

/** Renames a user's key, or revokes it for good (`{ revoked: true }`). */
export function updateUserApiKey(
  t: Transport,
  userId: string,
  apiKeyId: string,
  update: OwnedApiKeyUpdate,
): Promise<UserApiKey> {
  return t.request({
    method: 'PATCH',
    path: `/user-api-keys/${requireUuid(apiKeyId, 'apiKeyId')}`,
    query: { user_id: requireUserId(userId) },
    body: checkedUpdate(update),
  });
}

/** Makes a key for a team; the answer's `value` is the whole key, this once. */
export function createTeamApiKey(t: Transport, input: TeamApiKeyCreate): Promise<CreatedOwnedApiKey<TeamApiKey>> {
  const body = checkedCreate(input);
  requireUuid(body.team_id, 'team_id');
  return t.request({ method: 'POST', path: '/team-api-keys', body });
}

/** A team's keys, newest first. */
export async function listTeamApiKeys(t: Transport, teamId: string): Promise<TeamApiKey[]> {
  const team_id = requireUuid(teamId, 'teamId');
  return (await t.request<ListResponse<TeamApiKey>>({ method: 'GET', path: '/team-api-keys', query: { team_id } }))
    .items;
}

/** Renames a team's key, or revokes it for good. */
export function updateTeamApiKey(
  t: Transport,
  teamId: string,
  apiKeyId: string,
  update: OwnedApiKeyUpdate,
): Promise<TeamApiKey> {
  return t.request({
    method: 'PATCH',
    path: `/team-api-keys/${requireUuid(apiKeyId, 'apiKeyId')}`,
    query: { team_id: requireUuid(teamId, 'teamId') },
    body: checkedUpdate(update),
  });
}

/**
 * Whose key this is (server only): the key, or API_KEY_NOT_FOUND, API_KEY_REVOKED, API_KEY_EXPIRED, or
 * WRONG_API_KEY_TYPE for a team's key checked as a user's (and the other way).
 */
export function checkUserApiKey(t: Transport<ServerAccess>, apiKey: string): Promise<UserApiKey> {
  return t.request({
    method: 'POST',
    path: '/user-api-keys/check',
    body: { api_key: requireNonEmptyString(apiKey, 'apiKey') },
  });
}

/** {@link checkUserApiKey} for a team's key. */
export function checkTeamApiKey(t: Transport<ServerAccess>, apiKey: string): Promise<TeamApiKey> {
  return t.request({
    method: 'POST',
    path: '/team-api-keys/check',
    body: { api_key: requireNonEmptyString(apiKey, 'apiKey') },
  });
}
