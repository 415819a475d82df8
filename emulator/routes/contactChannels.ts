import { createKnownError } from '../../protocol/errors/create.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import type { AuthContext } from '../auth/authenticate.js';
import { redeemCode } from '../codes.js';
import { requireAccess, requireUserBySchema, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { code45, email, obj, strictEmail, url, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { ContactChannelRecord, ProjectRecord } from '../state/model.js';
import { own } from '../state/store.js';
import { authChannelByEmail, channelsOf, findUser, primaryChannel, sameEmail } from '../state/users.js';
import { contactChannelView } from '../views.js';
import { sendVerificationEmail, trustPolicy } from './password.js';

const type = () => yup.string().oneOf(['email'] as const);
const createFields = {
  user_id: userIdOrMe().defined(),
  type: type().defined(),
  value: email().defined(),
  used_for_auth: yup.boolean().defined(),
  is_primary: yup.boolean(),
};
const updateFields = { type: type(), value: email(), used_for_auth: yup.boolean(), is_primary: yup.boolean() };
const schemas = {
  create: {
    client: obj(createFields).defined(),
    server: obj({ ...createFields, is_verified: yup.boolean() }).defined(),
  },
  update: {
    client: obj(updateFields).defined(),
    server: obj({ ...updateFields, is_verified: yup.boolean() }).defined(),
  },
};
type ChannelUpdate = yup.InferType<typeof schemas.update.server>;
const params = obj({ user_id: userIdOrMe().defined(), contact_channel_id: uuid().defined() }).defined();

/** Clients act only on themselves; each endpoint words the refusal differently (§5.5). */
function requireSelf(auth: AuthContext, userId: string | undefined, refusal: StatusError): void {
  if (auth.type !== 'client') return;
  if (auth.user === null) throw createKnownError('CANNOT_GET_OWN_USER_WITHOUT_USER');
  if (userId !== auth.user.id) throw refusal;
}

function channelOf(p: ProjectRecord, userId: string, channelId: string): ContactChannelRecord | undefined {
  const channel = own(p.contact_channels, channelId);
  return channel?.user_id === userId ? channel : undefined;
}

/** Moves the user's primary flag here; the user's primary_email follows (it is read from the flag). */
function makePrimary(p: ProjectRecord, channel: ContactChannelRecord): void {
  for (const other of channelsOf(p, channel.user_id)) if (other.type === channel.type) other.is_primary = false;
  channel.is_primary = true;
}

function requireNoDuplicate(p: ProjectRecord, userId: string, value: string, exceptId?: string): void {
  if (channelsOf(p, userId).some((c) => c.id !== exceptId && c.type === 'email' && sameEmail(c.value, value))) {
    throw new StatusError(400, 'Contact channel already exists');
  }
}

/** Contact channels (§5.5, §6.5). */
export function registerContactChannelRoutes(router: Router): void {
  registerContactChannelCrudRoutes(router);
  registerContactChannelVerificationRoutes(router);
}

/** A user's contact channels: create, list, read, update, delete. */
function registerContactChannelCrudRoutes(router: Router): void {
  router.add('POST', '/contact-channels', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: auth.type === 'client' ? schemas.create.client : schemas.create.server });
    const p = auth.project;
    const userId = resolveUserId(auth, body.user_id);
    requireSelf(auth, userId, new StatusError(403, 'Client can only create contact channels for their own user.'));
    // Upstream fails with a 500 (a foreign key) for a missing user; USER_NOT_FOUND says why.
    if (!findUser(p, userId)) throw createKnownError('USER_NOT_FOUND');
    requireNoDuplicate(p, userId, body.value);
    if (body.used_for_auth && authChannelByEmail(p, body.value)) {
      throw createKnownError('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', {
        type: 'email',
        contact_channel_value: body.value,
      });
    }
    const isVerified = 'is_verified' in body && body.is_verified === true;
    const channel: ContactChannelRecord = {
      id: crypto.randomUUID(),
      user_id: userId,
      type: 'email',
      value: body.value,
      is_primary: false,
      is_verified: isVerified,
      used_for_auth: body.used_for_auth,
      created_at_millis: req.now,
    };
    p.contact_channels[channel.id] = channel;
    if (body.is_primary === true) makePrimary(p, channel);
    return json(contactChannelView(channel), 201);
  });

  router.add('GET', '/contact-channels', (req) => {
    const auth = requireAccess(req);
    const { query } = validate(req, { query: obj({ user_id: userIdOrMe(), contact_channel_id: uuid() }).defined() });
    const userId = query.user_id === undefined ? undefined : resolveUserId(auth, query.user_id);
    requireSelf(auth, userId, new StatusError(403, 'Client can only list contact channels for their own user.'));
    const items = Object.values(auth.project.contact_channels)
      .filter(
        (c) =>
          (userId === undefined || c.user_id === userId) &&
          (query.contact_channel_id === undefined || c.id === query.contact_channel_id),
      )
      .sort((a, b) => a.created_at_millis - b.created_at_millis)
      .map(contactChannelView);
    return json({ items, is_paginated: false });
  });

  router.add('GET', '/contact-channels/:user_id/:contact_channel_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params });
    const userId = resolveUserId(auth, v.params.user_id);
    requireSelf(auth, userId, new StatusError(403, 'Client can only read contact channels for their own user.'));
    const channel = channelOf(auth.project, userId, v.params.contact_channel_id);
    if (!channel) throw new StatusError(404, 'Contact channel not found.');
    return json(contactChannelView(channel));
  });

  router.add('PATCH', '/contact-channels/:user_id/:contact_channel_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params, body: auth.type === 'client' ? schemas.update.client : schemas.update.server });
    const body = v.body as ChannelUpdate;
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    requireSelf(auth, userId, new StatusError(403, 'Client can only update contact channels for their own user.'));
    const channel = channelOf(p, userId, v.params.contact_channel_id);
    if (!channel) throw new StatusError(400, 'Contact channel not found');
    const value = body.value ?? channel.value;
    if (body.used_for_auth === true) {
      const holder = authChannelByEmail(p, value);
      if (holder && holder.id !== channel.id)
        throw createKnownError('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE', {
          type: 'email',
          contact_channel_value: null,
        });
    }
    // Upstream fails with a 500 (a unique key) when the new value duplicates another channel of the user.
    if (body.value !== undefined) requireNoDuplicate(p, userId, body.value, channel.id);
    if (body.is_primary === true) makePrimary(p, channel);
    if (body.is_primary === false) channel.is_primary = false;
    if (body.value !== undefined) channel.value = body.value;
    // Sending a value without is_verified resets verification.
    if (body.is_verified !== undefined) channel.is_verified = body.is_verified;
    else if (body.value !== undefined) channel.is_verified = false;
    if (body.used_for_auth !== undefined) channel.used_for_auth = body.used_for_auth;
    return json(contactChannelView(channel));
  });

  router.add('DELETE', '/contact-channels/:user_id/:contact_channel_id', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params });
    const userId = resolveUserId(auth, v.params.user_id);
    requireSelf(auth, userId, new StatusError(403, 'Client can only delete contact channels for their own user.'));
    const channel = channelOf(auth.project, userId, v.params.contact_channel_id);
    if (!channel) throw new StatusError(400, 'Contact channel not found');
    delete auth.project.contact_channels[channel.id];
    return success();
  });
}

/** Verifying a contact channel: sending the code, checking it, using it. */
function registerContactChannelVerificationRoutes(router: Router): void {
  router.add('POST', '/contact-channels/:user_id/:contact_channel_id/send-verification-code', (req) => {
    const auth = requireAccess(req);
    const v = validate(req, { params, body: obj({ callback_url: url().defined() }).defined() });
    const p = auth.project;
    const userId = resolveUserId(auth, v.params.user_id);
    requireSelf(auth, userId, new StatusError(400, 'Can only send verification code for your own user'));
    if (auth.type !== 'client' && !findUser(p, userId))
      throw createKnownError('USER_ID_DOES_NOT_EXIST', { user_id: userId });
    const channel = channelOf(p, userId, v.params.contact_channel_id);
    if (!channel || channel.type !== 'email') throw new StatusError(404, 'Contact channel not found');
    if (channel.is_verified) throw createKnownError('EMAIL_ALREADY_VERIFIED');
    if (!isTrustedRedirectUrl(v.body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    sendVerificationEmail(req, p, userId, channel.id, channel.value, v.body.callback_url);
    return success();
  });

  router.add('POST', '/contact-channels/send-verification-code', (req) => {
    const auth = requireAccess(req);
    // The route declares the user in its schema, and auth failures come before body failures.
    const user = requireUserBySchema(req, auth);
    const { body } = validate(req, {
      body: obj({ email: strictEmail().defined(), callback_url: url().defined() }).defined(),
    });
    const p = auth.project;
    const primary = primaryChannel(p, user.id);
    if (primary?.value !== body.email)
      throw createKnownError('EMAIL_IS_NOT_PRIMARY_EMAIL', {
        email: body.email,
        primary_email: primary?.value ?? null,
      });
    if (primary.is_verified) throw createKnownError('EMAIL_ALREADY_VERIFIED');
    if (!isTrustedRedirectUrl(body.callback_url, trustPolicy(p)))
      throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
    sendVerificationEmail(req, p, user.id, primary.id, primary.value, body.callback_url);
    return success();
  });

  router.add('POST', '/contact-channels/verify', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
    const p = auth.project;
    const code = redeemCode(p, 'contact_channel_verification', body.code, req.now, 'use');
    // The channel is found by user and value, so a channel whose value changed since is not verified.
    const channel = channelsOf(p, String(code.data.user_id)).find(
      (c) => c.type === 'email' && c.value === code.data.email,
    );
    if (!channel) throw new StatusError(400, 'Contact channel not found. Was your contact channel deleted?');
    channel.is_verified = true;
    return success();
  });

  router.add(
    'POST',
    '/contact-channels/verify/check-code',
    (req) => {
      const auth = requireAccess(req);
      const { body } = validate(req, { body: obj({ code: code45().defined() }).defined() });
      redeemCode(auth.project, 'contact_channel_verification', body.code, req.now, 'check');
      return json({ is_code_valid: true });
    },
    { write: true },
  );
}
