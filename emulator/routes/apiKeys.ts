import { createKnownError } from '../../protocol/errors/create.js';
import type { ApiKeySetWithSecrets } from '../../protocol/resources/admin.js';
import { ADMIN, requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest } from '../http/types.js';
import { obj, uuid, validate, yup } from '../http/validate.js';
import type { ApiKeyRecord, ProjectRecord } from '../state/model.js';
import { createApiKeyRecord, newKeySecret, type KeyKind } from '../state/projects.js';
import { apiKeyView } from '../views.js';

const kinds: ReadonlyArray<{
  kind: KeyKind;
  flag: 'has_publishable_client_key' | 'has_secret_server_key' | 'has_super_secret_admin_key';
}> = [
  { kind: 'publishable_client_key', flag: 'has_publishable_client_key' },
  { kind: 'secret_server_key', flag: 'has_secret_server_key' },
  { kind: 'super_secret_admin_key', flag: 'has_super_secret_admin_key' },
];

function findKeySet(req: ApiRequest, p: ProjectRecord): ApiKeyRecord {
  const { params } = validate(req, { params: obj({ api_key_id: uuid().defined() }).defined() });
  const set = p.api_keys.find((k) => k.id === params.api_key_id);
  if (!set) throw createKnownError('API_KEY_NOT_FOUND');
  return set;
}

/** API key sets of the current project (PROTOCOL.md §4.10, §5.8). Only hashes are ever stored. */
export function registerApiKeyRoutes(router: Router): void {
  router.add('GET', '/internal/api-keys', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    // Newest first; sets created in the same millisecond keep "last created first".
    const items = auth.project.api_keys
      .map((set, index) => ({ set, index }))
      .sort((a, b) => b.set.created_at_millis - a.set.created_at_millis || b.index - a.index)
      .map(({ set }) => apiKeyView(set));
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/internal/api-keys', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, {
      body: obj({
        description: yup.string().defined(),
        expires_at_millis: yup.number().defined(),
        has_publishable_client_key: yup.boolean().defined(),
        has_secret_server_key: yup.boolean().defined(),
        has_super_secret_admin_key: yup.boolean().defined(),
      }).defined(),
    });
    const secrets: Partial<Record<KeyKind, string>> = {};
    for (const { kind, flag } of kinds) if (body[flag]) secrets[kind] = newKeySecret(kind);
    const set = createApiKeyRecord(
      { description: body.description, expires_at_millis: body.expires_at_millis, secrets },
      req.now,
    );
    auth.project.api_keys.push(set);
    const created: ApiKeySetWithSecrets = {
      id: set.id,
      description: set.description,
      created_at_millis: set.created_at_millis,
      expires_at_millis: set.expires_at_millis,
      ...secrets,
    };
    // A custom route upstream, hence 200 rather than the 201 of CRUD creates.
    return json(created, 200);
  });

  router.add('GET', '/internal/api-keys/:api_key_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    return json(apiKeyView(findKeySet(req, auth.project)));
  });

  router.add('PATCH', '/internal/api-keys/:api_key_id', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, {
      params: obj({ api_key_id: uuid().defined() }).defined(),
      body: obj({ description: yup.string(), revoked: yup.boolean().oneOf([true]) }).defined(),
    });
    const set = findKeySet(req, auth.project);
    if (body.description !== undefined) set.description = body.description;
    // Revocation is one-way and keeps its first time; keyIsValid refuses the set from now on.
    if (body.revoked === true && set.manually_revoked_at_millis === null) set.manually_revoked_at_millis = req.now;
    return json(apiKeyView(set));
  });
}
