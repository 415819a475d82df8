import { createKnownError } from '../../protocol/errors/create.js';
import type { AccessType, Json } from '../../protocol/resources/common.js';
import type { AuthContext } from '../auth/authenticate.js';
import { requireAccess, resolveUserId, SERVER } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { anyJson, email, nonEmpty, obj, url, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { isAnonymous, upgradeAnonymousUser } from '../state/anonymous.js';
import { restrictedReasonOf } from '../state/restriction.js';
import {
  normalizeEmail,
  preparePrimaryEmailWrite,
  requireEmailFlags,
  requireEmailFreeForAuth,
} from '../state/primaryEmail.js';
import { newOAuthAccount } from '../state/oauthAccounts.js';
import { writeAdminRestriction, type AdminRestrictionWrite } from '../state/restriction.js';
import { findMembership } from '../state/teams.js';
import { revokeSessionsOfUser } from '../state/sessions.js';
import { channelsOf, createUser, deleteUser, findUser, primaryChannel } from '../state/users.js';
import { serverUserView, userView } from '../views.js';
import { hashPassword } from '../crypto.js';
import { MAX_PASSWORD } from './password.js';

/** Client images must be inline (PROTOCOL.md §4.1): a data-URL image or bare base64. */
const BASE64_IMAGE = /^data:image\/(png|jpg|jpeg|gif|bmp|webp);base64,[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9+/]+={0,2}$/;
const STANDARD_BASE64 = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MAX_IMAGE_URL_LENGTH = 1_000_000;

export function isBase64Image(value: string): boolean {
  return BASE64_IMAGE.test(value);
}

/** Clients may only upload inline images; servers may set any URL. Checked in the handler, after the schema. */
export function requireClientImage(auth: AuthContext, value: string | null | undefined): void {
  if (auth.type === 'client' && value && !isBase64Image(value)) throw new StatusError(400, 'Invalid profile image URL');
}

/** A profile image URL or null: the service's URL rules and a length cap. */
export const imageUrl = () => url().nullable().max(MAX_IMAGE_URL_LENGTH);

const base64 = () =>
  yup
    .string()
    .nullable()
    .test('base64', '${path} is not valid base64', (v) => v === undefined || v === null || STANDARD_BASE64.test(v));

/** An ISO country code, trimmed and upper-cased first, as the service normalises it. */
const countryCode = () =>
  yup
    .string()
    .nullable()
    .transform((value: unknown) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
    .test('country-code', '${path} must be a 2-letter country code', (v) => v == null || /^[A-Z]{2}$/.test(v));
const riskScore = () => yup.number().integer().min(0).max(100).defined();
const riskScores = () => obj({ sign_up: obj({ bot: riskScore(), free_trial_abuse: riskScore() }).defined() });

const clientFields = {
  display_name: yup.string().nullable(),
  profile_image_url: imageUrl(),
  client_metadata: anyJson(),
  otp_auth_enabled: yup.boolean(),
  passkey_auth_enabled: yup.boolean(),
  totp_secret_base64: base64(),
};
const serverFields = {
  ...clientFields,
  client_read_only_metadata: anyJson(),
  server_metadata: anyJson(),
  primary_email: nonEmpty(email()).nullable(),
  primary_email_verified: yup.boolean(),
  primary_email_auth_enabled: yup.boolean(),
  password: yup.string().max(MAX_PASSWORD).nullable(),
  password_hash: nonEmpty(yup.string()),
  country_code: countryCode(),
  risk_scores: riskScores(),
  restricted_by_admin: yup.boolean(),
  restricted_by_admin_reason: yup.string().nullable(),
  restricted_by_admin_private_details: yup.string().nullable(),
};

/** The service's rule: a reason or private details of a restriction only with `restricted_by_admin: true` beside them. */
function withAdminRestrictionRule<S extends yup.AnyObjectSchema>(schema: S): S {
  return schema.test('restricted_by_admin_consistency', 'restricted_by_admin', function (value: AdminRestrictionWrite) {
    if (value === undefined || value.restricted_by_admin === true) return true;
    for (const field of ['restricted_by_admin_reason', 'restricted_by_admin_private_details'] as const)
      if (value[field] != null)
        return this.createError({ message: `${field} must be null when restricted_by_admin is not true` });
    return true;
  }) as S;
}

export const clientUpdateSchema = obj({
  ...clientFields,
  primary_email: serverFields.primary_email,
  selected_team_id: uuid().nullable(),
}).defined();
export const serverUpdateSchema = withAdminRestrictionRule(
  obj({
    ...serverFields,
    selected_team_id: uuid().nullable(),
    // An anonymous user may be made a regular one; never the other way.
    is_anonymous: yup.boolean().oneOf([false]),
  }).defined(),
);
export const serverCreateSchema = withAdminRestrictionRule(
  obj({
    ...serverFields,
    is_anonymous: yup.boolean(),
    oauth_providers: yup.array(
      obj({ id: yup.string().defined(), account_id: yup.string().defined(), email: email().nullable() }).defined(),
    ),
  }).defined(),
);

export type ServerUserWrite = yup.InferType<typeof serverUpdateSchema>;
export type ServerUserCreateBody = yup.InferType<typeof serverCreateSchema>;

const usersQuery = obj({
  limit: yup.number().integer().min(1),
  cursor: uuid(),
  order_by: yup.string().oneOf(['signed_up_at']),
  desc: yup.string().oneOf(['true', 'false']),
  query: yup.string(),
  team_id: uuid(),
  // Anonymous users are left out unless asked for (newer than PROTOCOL.md), restricted ones too (include_anonymous
  // brings both; include_restricted only the restricted users who are not anonymous).
  include_anonymous: yup.string().oneOf(['true', 'false']),
  only_anonymous: yup.string().oneOf(['true', 'false']),
  include_restricted: yup.string().oneOf(['true', 'false']),
}).defined();

/** Oldest first, ties by id, as the service orders (signed_up_at, id). */
function compareUsers(a: UserRecord, b: UserRecord): number {
  if (a.signed_up_at_millis !== b.signed_up_at_millis) return a.signed_up_at_millis - b.signed_up_at_millis;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function matchesQuery(p: ProjectRecord, u: UserRecord, query: string): boolean {
  const needle = query.toLowerCase();
  // The id only matches exactly, after dropping characters an id cannot contain.
  const idCandidate = query.replace(/[^a-zA-Z0-9\-_.]/g, '');
  if (idCandidate !== '' && idCandidate.toLowerCase() === u.id) return true;
  if (u.display_name !== null && u.display_name.toLowerCase().includes(needle)) return true;
  return channelsOf(p, u.id).some((c) => c.value.toLowerCase().includes(needle));
}

function readUser(p: ProjectRecord, userId: string): UserRecord {
  const user = findUser(p, userId);
  if (!user) throw createKnownError('USER_NOT_FOUND');
  return user;
}

function updateSchemaFor(type: AccessType) {
  return type === 'client' ? clientUpdateSchema : serverUpdateSchema;
}

/** Users (PROTOCOL.md §5.3). */
export function registerUserRoutes(router: Router): void {
  router.add('GET', '/users/me', (req) => {
    const auth = requireAccess(req);
    validate(req, {});
    if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
    return json(userView(auth.project, auth.user, auth.type));
  });

  router.add('PATCH', '/users/me', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: updateSchemaFor(auth.type) });
    requireClientImage(auth, body.profile_image_url);
    if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
    const user = await updateUserRecord(req, auth.project, auth.user.id, body as ServerUserWrite);
    return json(userView(auth.project, user, auth.type));
  });

  router.add('DELETE', '/users/me', (req) => {
    const auth = requireAccess(req);
    validate(req, {});
    if (auth.type === 'client' && !auth.project.config.client_user_deletion_enabled) {
      throw new StatusError(400, 'Client user deletion is not enabled for this project');
    }
    if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
    deleteUser(auth.project, auth.user.id);
    return success();
  });

  router.add('GET', '/users', (req) => listUsers(req));

  router.add('POST', '/users', async (req) => {
    const auth = requireAccess(req, SERVER);
    const { body } = validate(req, { body: serverCreateSchema });
    const user = await createUserFromBody(req, auth.project, body);
    // The service answers with the user as it was before its personal team was made (reads show the team).
    return json({ ...serverUserView(auth.project, user), selected_team_id: null, selected_team: null }, 201);
  });

  const params = obj({ user_id: userIdOrMe().defined() }).defined();
  router.add('GET', '/users/:user_id', (req) => {
    const auth = requireAccess(req, SERVER);
    // The service checks one query schema, the list's, for every operation: `?include_anonymous=true` reads too.
    const v = validate(req, { params, query: usersQuery });
    return json(serverUserView(auth.project, readUser(auth.project, resolveUserId(auth, v.params.user_id))));
  });

  router.add('PATCH', '/users/:user_id', async (req) => {
    const auth = requireAccess(req, SERVER);
    const v = validate(req, { params, body: serverUpdateSchema });
    const user = await updateUserRecord(req, auth.project, resolveUserId(auth, v.params.user_id), v.body);
    return json(serverUserView(auth.project, user));
  });

  router.add('DELETE', '/users/:user_id', (req) => {
    const auth = requireAccess(req, SERVER);
    const v = validate(req, { params });
    const user = readUser(auth.project, resolveUserId(auth, v.params.user_id));
    deleteUser(auth.project, user.id);
    return success();
  });
}

/** `GET /users`: filtered, ordered, then cut at the cursor (inclusive) and the limit. */
function listUsers(req: ApiRequest) {
  const auth = requireAccess(req, SERVER);
  const { query } = validate(req, { query: usersQuery });
  const p = auth.project;
  const onlyAnonymous = query.only_anonymous === 'true';
  const includeAnonymous = query.include_anonymous === 'true';
  const includeRestricted = query.include_restricted === 'true' || includeAnonymous;
  if (onlyAnonymous && !includeAnonymous)
    throw new StatusError(400, 'only_anonymous=true requires include_anonymous=true');
  const desc = query.desc === 'true';
  const order = (a: UserRecord, b: UserRecord) => (desc ? compareUsers(b, a) : compareUsers(a, b));
  let users = Object.values(p.users)
    .filter((u) => (onlyAnonymous ? u.is_anonymous === true : includeAnonymous || u.is_anonymous !== true))
    // Restricted users (an unverified e-mail where the project requires one) only when asked for.
    .filter((u) => includeRestricted || u.is_anonymous === true || restrictedReasonOf(p, u) === null)
    .filter((u) => query.team_id === undefined || findMembership(p, query.team_id, u.id) !== undefined)
    .filter((u) => query.query === undefined || query.query === '' || matchesQuery(p, u, query.query))
    .sort(order);
  if (query.cursor !== undefined) {
    // Like the service's database cursor: a position in the ordering, even if the cursor user is filtered out.
    const cursorUser = findUser(p, query.cursor);
    users = cursorUser === undefined ? [] : users.filter((u) => order(u, cursorUser) >= 0);
  }
  const page = query.limit === undefined ? users : users.slice(0, query.limit);
  const next = query.limit !== undefined && users.length > query.limit ? users[query.limit]!.id : null;
  return json({ items: page.map((u) => serverUserView(p, u)), is_paginated: true, pagination: { next_cursor: next } });
}

// ---------------------------------------------------------------------------------------------
// Write rules of §4.1, shared by POST /users, PATCH /users/{id} and PATCH /users/me.
// Each write does its only await (password hashing) first, then checks everything and only then
// mutates, in one synchronous block: a failed check never leaves half a change behind.

const BCRYPT_HASH = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;

/**
 * Imported bcrypt hashes are accepted by shape (cost 4–16) and stored as given; sign-in checks
 * the original password against them (`verifyPassword`).
 */
function isBcryptHash(hash: string): boolean {
  const match = BCRYPT_HASH.exec(hash);
  const cost = Number(match?.[1]);
  return match !== null && cost >= 4 && cost <= 16;
}

/** undefined: unchanged; null: remove the password. */
async function passwordHashFrom(body: {
  password?: string | null | undefined;
  password_hash?: string | undefined;
}): Promise<string | null | undefined> {
  if (body.password !== undefined) {
    if (body.password_hash !== undefined)
      throw new StatusError(400, 'Cannot set both password and password_hash at the same time.');
    return body.password === null ? null : await hashPassword(body.password);
  }
  if (body.password_hash === undefined) return undefined;
  if (!isBcryptHash(body.password_hash))
    throw new StatusError(400, "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.");
  return body.password_hash;
}

function requirePasswordAllowed(p: ProjectRecord, hasPrimaryEmail: boolean): void {
  // Upstream fails with a 500 (an assertion) here; a plain 400 says what is wrong.
  if (!hasPrimaryEmail) throw new StatusError(400, 'Cannot set a password for a user without a primary e-mail.');
  if (!p.config.credential_enabled) throw new StatusError(400, 'Password auth not enabled in the project');
}

export async function createUserFromBody(
  req: ApiRequest,
  p: ProjectRecord,
  body: ServerUserCreateBody,
): Promise<UserRecord> {
  const passwordHash = await passwordHashFrom(body);
  const primaryEmail = body.primary_email ? normalizeEmail(body.primary_email) : null;
  requireEmailFlags(primaryEmail, body.primary_email_auth_enabled === true, body.primary_email_verified === true);
  if (primaryEmail !== null && body.primary_email_auth_enabled === true) requireEmailFreeForAuth(p, primaryEmail);
  const accounts = (body.oauth_providers ?? []).map((a) =>
    newOAuthAccount({ provider_id: a.id, account_id: a.account_id, email: a.email ?? null }, req.now),
  );
  for (const account of accounts) {
    if (!p.config.oauth_providers.some((o) => o.id === account.provider_id))
      throw new StatusError(400, `OAuth provider ${account.provider_id} not found`);
    const linked = Object.values(p.users).some((u) =>
      u.oauth_accounts.some((a) => a.provider_id === account.provider_id && a.account_id === account.account_id),
    );
    if (linked) throw createKnownError('OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER');
  }
  if (passwordHash) requirePasswordAllowed(p, primaryEmail !== null);
  if (body.otp_auth_enabled === true && !p.config.magic_link_enabled)
    throw new StatusError(400, 'OTP auth not enabled in the project');
  const user = createUser(
    p,
    {
      display_name: body.display_name ?? null,
      profile_image_url: body.profile_image_url ?? null,
      client_metadata: (body.client_metadata ?? null) as Json,
      client_read_only_metadata: (body.client_read_only_metadata ?? null) as Json,
      server_metadata: (body.server_metadata ?? null) as Json,
      primary_email: primaryEmail,
      primary_email_verified: body.primary_email_verified ?? false,
      primary_email_auth_enabled: body.primary_email_auth_enabled ?? false,
      password_hash: passwordHash ?? null,
      otp_auth_enabled: body.otp_auth_enabled ?? false,
      totp_secret_base64: body.totp_secret_base64 ?? null,
      oauth_accounts: accounts,
      is_anonymous: body.is_anonymous === true,
      country_code: body.country_code ?? null,
      ...(body.risk_scores ? { risk_scores: body.risk_scores.sign_up } : {}),
    },
    req.now,
  );
  writeAdminRestriction(user, body);
  return user;
}

export async function updateUserRecord(
  req: ApiRequest,
  p: ProjectRecord,
  userId: string,
  body: ServerUserWrite,
): Promise<UserRecord> {
  const passwordHash = await passwordHashFrom(body);
  const user = readUser(p, userId);
  if (body.selected_team_id != null && !findMembership(p, body.selected_team_id, user.id)) {
    throw createKnownError('TEAM_MEMBERSHIP_NOT_FOUND', { team_id: body.selected_team_id, user_id: user.id });
  }
  const old = primaryChannel(p, user.id);
  const writeEmail = preparePrimaryEmailWrite(p, user.id, body, req.now);
  if (body.passkey_auth_enabled === true)
    throw new StatusError(400, 'Cannot manually enable passkey auth, it is enabled iff there is a passkey auth method');
  if (passwordHash && user.password_hash === null)
    requirePasswordAllowed(p, body.primary_email === undefined ? old !== undefined : body.primary_email !== null);

  writeEmail();
  // Enabling OTP in a project without magic links is silently ignored on update.
  if (body.otp_auth_enabled !== undefined && (!body.otp_auth_enabled || p.config.magic_link_enabled))
    user.otp_auth_enabled = body.otp_auth_enabled;
  if (body.passkey_auth_enabled === false) user.passkey = null;
  if (passwordHash !== undefined) {
    user.password_hash = passwordHash;
    revokeSessionsOfUser(p, user.id);
  }
  if (body.totp_secret_base64 !== undefined) user.totp_secret_base64 = body.totp_secret_base64;
  if (body.selected_team_id !== undefined) user.selected_team_id = body.selected_team_id;
  if (body.display_name !== undefined) user.display_name = body.display_name || null;
  if (body.profile_image_url !== undefined) user.profile_image_url = body.profile_image_url;
  if (body.client_metadata !== undefined) user.client_metadata = body.client_metadata as Json;
  if (body.client_read_only_metadata !== undefined)
    user.client_read_only_metadata = body.client_read_only_metadata as Json;
  if (body.server_metadata !== undefined) user.server_metadata = body.server_metadata as Json;
  if (body.country_code !== undefined) user.country_code = body.country_code;
  if (body.risk_scores !== undefined) user.risk_scores = { ...body.risk_scores.sign_up };
  writeAdminRestriction(user, body);
  if (body.is_anonymous === false && isAnonymous(user))
    upgradeAnonymousUser(p, user, body.display_name ?? null, body.primary_email ?? null, req.now);
  return user;
}
