import { createKnownError } from '../../protocol/errors/create.js';
import type { AuthContext } from '../auth/authenticate.js';
import { serviceErrors, StatusError } from '../errors.js';
import { requireAccess, resolveUserId, SERVER } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { OwnedApiKeyRecord, ProjectRecord } from '../state/model.js';
import {
  createOwnedApiKey,
  findOwnedApiKey,
  findOwnedApiKeyBySecret,
  ownedApiKeysOf,
  type ApiKeyOwner,
} from '../state/ownedApiKeys.js';
import { findTeam, hasPermission } from '../state/teams.js';
import { findUser } from '../state/users.js';
import { ownedApiKeyView } from '../views.js';

type KeyType = 'user' | 'team';

/** The project's switch for this kind of key: a plain 400 when off, before anything else is looked at. */
function requireEnabled(p: ProjectRecord, type: KeyType): void {
  const enabled = type === 'user' ? p.config.allow_user_api_keys : p.config.allow_team_api_keys;
  if (enabled !== true)
    throw new StatusError(400, `${type === 'user' ? 'User' : 'Team'} API keys are not enabled for this project.`);
}

/**
 * Whether the caller may manage this owner's keys. Server and admin access may manage anyone's; a client only its own
 * user's, or a team's where it holds `$manage_api_keys` (else the key "is not found", so that a team's existence does not
 * leak).
 */
function requireMayManage(auth: AuthContext, owner: ApiKeyOwner): void {
  if (auth.type !== 'client') return;
  if (auth.user === null) throw createKnownError('USER_AUTHENTICATION_REQUIRED');
  if (owner.type === 'user') {
    if (owner.user_id !== auth.user.id) throw new StatusError(403, 'Client can only manage their own api keys');
  } else if (!hasPermission(auth.project, owner.team_id, auth.user.id, '$manage_api_keys')) {
    throw createKnownError('API_KEY_NOT_FOUND');
  }
}

/** Server access names any owner: one that does not exist is refused as such (the service fails on it). */
function requireOwnerExists(p: ProjectRecord, owner: ApiKeyOwner): void {
  if (owner.type === 'user' && !findUser(p, owner.user_id)) throw createKnownError('USER_NOT_FOUND');
  if (owner.type === 'team' && !findTeam(p, owner.team_id))
    throw createKnownError('TEAM_NOT_FOUND', { team_id: owner.team_id });
}

/** A key of this endpoint's type by id (a key of the other type is not found here). */
function requireKey(p: ProjectRecord, type: KeyType, id: string): OwnedApiKeyRecord {
  const key = findOwnedApiKey(p, id);
  if (!key || key.owner.type !== type) throw createKnownError('API_KEY_NOT_FOUND');
  return key;
}

interface CreateBody {
  description: string;
  expires_at_millis: number | null;
  is_public?: boolean;
  user_id?: string;
  team_id?: string;
}

/** The create call's body: the owner is `user_id` (may be `me`) or `team_id`, never both. */
function createBody(type: KeyType): yup.AnySchema {
  return obj({
    description: yup.string().defined(),
    expires_at_millis: yup.number().nullable().defined(),
    is_public: yup.boolean(),
    ...(type === 'user' ? { user_id: userIdOrMe().defined() } : { team_id: yup.string().defined() }),
  }).defined();
}

interface OwnerQuery {
  user_id?: string;
  team_id?: string;
}

/** The owner query (`user_id` may be `me`; `team_id` is required on every team call, as the service's schema has it). */
function ownerQuery(type: KeyType): yup.AnySchema {
  return type === 'user' ? obj({ user_id: userIdOrMe() }).defined() : obj({ team_id: uuid().defined() }).defined();
}

function ownerFromQuery(auth: AuthContext, type: KeyType, query: OwnerQuery): ApiKeyOwner {
  if (type === 'team') return { type, team_id: query.team_id ?? '' };
  if (query.user_id === undefined)
    throw createKnownError('SCHEMA_ERROR', { message: 'user_id is required for user API keys' });
  return { type, user_id: resolveUserId(auth, query.user_id) };
}

/** Reads and updates take the owner query too, unused but for `me`, which needs a user. */
function resolveQueriedUser(auth: AuthContext, query: OwnerQuery): void {
  if (query.user_id !== undefined) resolveUserId(auth, query.user_id);
}

function registerFor(router: Router, type: KeyType): void {
  const base = `/${type}-api-keys`;

  router.add('POST', base, (req) => {
    const auth = requireAccess(req);
    const body = validate(req, { body: createBody(type) }).body as CreateBody;
    const owner: ApiKeyOwner =
      type === 'user'
        ? { type, user_id: resolveUserId(auth, body.user_id ?? '') }
        : { type, team_id: body.team_id ?? '' };
    requireEnabled(auth.project, type);
    requireMayManage(auth, owner);
    requireOwnerExists(auth.project, owner);
    const { record, secret } = createOwnedApiKey(
      auth.project,
      {
        owner,
        description: body.description,
        expires_at_millis: body.expires_at_millis ?? null,
        is_public: body.is_public ?? false,
      },
      req.now,
    );
    // A custom route upstream: 200, not the 201 of CRUD creates.
    return json(ownedApiKeyView(record, secret));
  });

  router.add('GET', base, (req) => {
    const auth = requireAccess(req);
    const query = validate(req, { query: ownerQuery(type) }).query as OwnerQuery;
    resolveQueriedUser(auth, query);
    requireEnabled(auth.project, type);
    const owner = ownerFromQuery(auth, type, query);
    requireMayManage(auth, owner);
    return json({ items: ownedApiKeysOf(auth.project, owner).map((k) => ownedApiKeyView(k)), is_paginated: false });
  });

  router.add('GET', `${base}/:api_key_id`, (req) => {
    const auth = requireAccess(req);
    const { params, query } = validate(req, {
      params: obj({ api_key_id: uuid().defined() }).defined(),
      query: ownerQuery(type),
    });
    resolveQueriedUser(auth, query as OwnerQuery);
    requireEnabled(auth.project, type);
    const key = requireKey(auth.project, type, params.api_key_id);
    requireMayManage(auth, key.owner);
    return json(ownedApiKeyView(key));
  });

  router.add('PATCH', `${base}/:api_key_id`, (req) => {
    const auth = requireAccess(req);
    const { params, query, body } = validate(req, {
      params: obj({ api_key_id: uuid().defined() }).defined(),
      query: ownerQuery(type),
      body: obj({ description: yup.string(), revoked: yup.boolean().oneOf([true]) }).defined(),
    });
    resolveQueriedUser(auth, query as OwnerQuery);
    requireEnabled(auth.project, type);
    const key = requireKey(auth.project, type, params.api_key_id);
    requireMayManage(auth, key.owner);
    if (body.description !== undefined) key.description = body.description;
    // Revocation is one-way and keeps its first time.
    if (body.revoked === true && key.manually_revoked_at_millis === null) key.manually_revoked_at_millis = req.now;
    return json(ownedApiKeyView(key));
  });

  router.add('POST', `${base}/check`, (req) => {
    const auth = requireAccess(req, SERVER);
    const { body } = validate(req, { body: obj({ api_key: yup.string().defined() }).defined() });
    requireEnabled(auth.project, type);
    const key = findOwnedApiKeyBySecret(auth.project, body.api_key);
    if (!key) throw createKnownError('API_KEY_NOT_FOUND');
    if (key.owner.type !== type) throw serviceErrors.wrongApiKeyType(type, key.owner.type);
    if (key.manually_revoked_at_millis !== null) throw serviceErrors.apiKeyRevoked();
    if (key.expires_at_millis !== null && key.expires_at_millis < req.now) throw serviceErrors.apiKeyExpired();
    return json(ownedApiKeyView(key));
  });
}

/** Users' and teams' own API keys (`/user-api-keys`, `/team-api-keys`), as the service serves them. */
export function registerOwnedApiKeyRoutes(router: Router): void {
  registerFor(router, 'user');
  registerFor(router, 'team');
}
