import { createKnownError } from '../../protocol/errors/create.js';
import { oauthProviderIds } from '../../protocol/resources/project.js';
import type { ServerUserOAuthProvider, UserOAuthProvider } from '../../protocol/resources/oauthProvider.js';
import type { AuthContext } from '../auth/authenticate.js';
import { serviceErrors, StatusError } from '../errors.js';
import { requireAccess, resolveUserId, SERVER } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { email, obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { OAuthAccountRecord, ProjectRecord, UserRecord } from '../state/model.js';
import {
  allowsConnectedAccounts,
  allowsSignIn,
  findOAuthAccount,
  newOAuthAccount,
  oauthAccountId,
} from '../state/oauthAccounts.js';
import { listedProviders } from '../state/projects.js';
import { findUser } from '../state/users.js';

/**
 * A user's OAuth providers (`/oauth-providers`): the provider accounts linked to them, each allowed or not to sign
 * them in and to give the app provider tokens (connected accounts). Clients list, change and remove their own; the
 * server also links accounts and changes their account id or e-mail.
 */

/** The provider's kind (`github`…): a configured provider's, else a known provider's own id; null hides the account. */
function providerType(p: ProjectRecord, providerId: string): string | null {
  if (listedProviders(p.config).some((o) => o.id === providerId)) return providerId;
  return (oauthProviderIds as readonly string[]).includes(providerId) ? providerId : null;
}

function view(
  p: ProjectRecord,
  user: UserRecord,
  a: OAuthAccountRecord,
  access: AuthContext['type'],
): UserOAuthProvider | ServerUserOAuthProvider | null {
  const type = providerType(p, a.provider_id);
  if (type === null) return null;
  const client: UserOAuthProvider = {
    user_id: user.id,
    id: oauthAccountId(user, a),
    ...(a.email === null ? {} : { email: a.email }),
    provider_config_id: a.provider_id,
    type,
    allow_sign_in: allowsSignIn(a),
    allow_connected_accounts: allowsConnectedAccounts(a),
  };
  return access === 'client' ? client : { ...client, account_id: a.account_id };
}

/** The user a call names; a client may name only itself, with the service's sentence for each verb. */
function namedUser(auth: AuthContext, userId: string | undefined, verb: 'read' | 'list' | 'update' | 'delete'): string {
  if (auth.type === 'client') {
    if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
    const id = userId === undefined ? undefined : resolveUserId(auth, userId);
    if (id !== auth.user.id) throw new StatusError(403, `Client can only ${verb} OAuth providers for their own user.`);
    return id;
  }
  if (userId === undefined) throw new StatusError(400, 'user_id is required');
  return resolveUserId(auth, userId);
}

function existingUser(p: ProjectRecord, userId: string): UserRecord {
  const user = findUser(p, userId);
  if (!user) throw createKnownError('USER_NOT_FOUND');
  return user;
}

function existingAccount(user: UserRecord, id: string): OAuthAccountRecord {
  const account = findOAuthAccount(user, id);
  if (!account) throw new StatusError(404, `OAuth provider ${id} for user ${user.id} not found`);
  // From here on the account may change: its id is written down first (see oauthAccountId).
  account.id = id;
  return account;
}

/**
 * The service's rules for a new or changed account: one signing-in account per provider and user, one account per
 * provider account id and user, and a provider account signs in only one user. As the service checks the last, a
 * change that turns sign-in on without naming an account id is refused while any other account of the project signs
 * in (its query then filters on no account id at all).
 */
function checkAccount(
  p: ProjectRecord,
  user: UserRecord,
  candidate: { id: string | null; provider_id: string; account_id: string | undefined; allow_sign_in: boolean },
): void {
  const others = (u: UserRecord) => u.oauth_accounts.filter((a) => a.id === undefined || a.id !== candidate.id);
  const mine = others(user).filter((a) => a.provider_id === candidate.provider_id);
  if (candidate.allow_sign_in && mine.some(allowsSignIn))
    throw new StatusError(400, 'The same provider type with sign-in enabled already exists for this user.');
  if (candidate.account_id !== undefined && mine.some((a) => a.account_id === candidate.account_id))
    throw new StatusError(400, 'The same provider type with the same account ID already exists for this user.');
  const signsInElsewhere = Object.values(p.users).some((u) =>
    others(u).some(
      (a) => allowsSignIn(a) && (candidate.account_id === undefined || a.account_id === candidate.account_id),
    ),
  );
  if (candidate.allow_sign_in && signsInElsewhere) throw serviceErrors.oauthProviderAccountIdAlreadyUsedForSignIn();
}

const flags = { allow_sign_in: yup.boolean(), allow_connected_accounts: yup.boolean() };
const clientUpdate = obj(flags).defined();
const serverUpdate = obj({ ...flags, email: email(), account_id: yup.string() }).defined();
const pathParams = obj({ user_id: userIdOrMe().defined(), provider_id: uuid().defined() }).defined();

/** `/oauth-providers` (newer than PROTOCOL.md), as the service serves them. */
export function registerOAuthProviderRoutes(router: Router): void {
  router.add('GET', '/oauth-providers', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ user_id: userIdOrMe() }).defined() });
    const p = auth.project;
    const userId =
      auth.type === 'client' || query.user_id !== undefined ? namedUser(auth, query.user_id, 'list') : undefined;
    const users = userId === undefined ? Object.values(p.users) : [existingUser(p, userId)];
    const items = users
      .flatMap((user) =>
        user.oauth_accounts.map((a, index) => ({
          user,
          a,
          at: a.created_at_millis ?? user.signed_up_at_millis,
          index,
        })),
      )
      .sort((x, y) => x.at - y.at || x.index - y.index)
      .flatMap(({ user, a }) => view(p, user, a, auth.type) ?? []);
    return json({ items, is_paginated: false });
  });

  router.add('POST', '/oauth-providers', (req) => {
    const auth = requireAccess(req, SERVER);
    const { body } = validate(req, {
      body: obj({
        user_id: userIdOrMe().defined(),
        provider_config_id: yup.string().defined(),
        email: email(),
        allow_sign_in: yup.boolean().defined(),
        allow_connected_accounts: yup.boolean().defined(),
        account_id: yup.string().defined(),
      }).defined(),
    });
    const p = auth.project;
    if (!listedProviders(p.config).some((o) => o.id === body.provider_config_id))
      throw new StatusError(404, `OAuth provider ${body.provider_config_id} not found or not configured`);
    const user = existingUser(p, resolveUserId(auth, body.user_id));
    checkAccount(p, user, { id: null, provider_id: body.provider_config_id, ...body });
    const account = newOAuthAccount(
      {
        provider_id: body.provider_config_id,
        account_id: body.account_id,
        email: body.email ?? null,
        allow_sign_in: body.allow_sign_in,
        allow_connected_accounts: body.allow_connected_accounts,
      },
      req.now,
    );
    user.oauth_accounts.push(account);
    return json(view(p, user, account, auth.type), 201);
  });

  router.add('GET', '/oauth-providers/:user_id/:provider_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: pathParams });
    const user = existingUser(auth.project, namedUser(auth, params.user_id, 'read'));
    const account = findOAuthAccount(user, params.provider_id);
    const found = account === undefined ? null : view(auth.project, user, account, auth.type);
    if (found === null)
      throw new StatusError(404, `OAuth provider ${params.provider_id} for user ${user.id} not found`);
    return json(found);
  });

  router.add('PATCH', '/oauth-providers/:user_id/:provider_id', (req) => {
    const auth = requireAccess(req);
    const { params, body } = validate(req, {
      params: pathParams,
      body: auth.type === 'client' ? clientUpdate : serverUpdate,
    });
    const p = auth.project;
    const user = existingUser(p, namedUser(auth, params.user_id, 'update'));
    const account = existingAccount(user, params.provider_id);
    const update = body as yup.InferType<typeof serverUpdate>;
    checkAccount(p, user, {
      id: account.id ?? null,
      provider_id: account.provider_id,
      account_id: update.account_id,
      allow_sign_in: update.allow_sign_in ?? false,
    });
    if (update.allow_sign_in !== undefined) account.allow_sign_in = update.allow_sign_in;
    if (update.allow_connected_accounts !== undefined)
      account.allow_connected_accounts = update.allow_connected_accounts;
    if (update.email !== undefined) account.email = update.email;
    if (update.account_id !== undefined && update.account_id !== account.account_id) {
      account.account_id = update.account_id;
      // Provider tokens belong to the old provider account.
      account.tokens = [];
    }
    return json(view(p, user, account, auth.type));
  });

  router.add('DELETE', '/oauth-providers/:user_id/:provider_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: pathParams });
    const user = existingUser(auth.project, namedUser(auth, params.user_id, 'delete'));
    const account = existingAccount(user, params.provider_id);
    user.oauth_accounts = user.oauth_accounts.filter((a) => a !== account);
    return success();
  });
}
