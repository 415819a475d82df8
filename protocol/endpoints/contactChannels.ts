import { requireNonEmptyString, requireObject, requireUrl, requireUserId, requireUuid, seg } from '../args.js';
import type { CodeCheckResponse, ListResponse, SuccessResponse } from '../resources/common.js';
import type { ContactChannel, ContactChannelCreate, ContactChannelUpdate } from '../resources/contactChannel.js';
import type { Transport } from '../transport.js';

function channelPath(userId: string, channelId: string): string {
  return `/contact-channels/${seg(requireUserId(userId))}/${requireUuid(channelId, 'channelId')}`;
}

/** Adds an e-mail address to a user. */
export function createContactChannel(t: Transport, input: ContactChannelCreate): Promise<ContactChannel> {
  const body = requireObject(input, 'input');
  requireUserId(body.user_id, 'user_id');
  requireNonEmptyString(body.value, 'value');
  return t.request({ method: 'POST', path: '/contact-channels', body });
}

/** Sorted by creation. Clients must filter by themselves (`me`). */
export async function listContactChannels(
  t: Transport,
  options: { userId?: string; channelId?: string } = {},
): Promise<ContactChannel[]> {
  const user_id = options.userId === undefined ? undefined : requireUserId(options.userId);
  const contact_channel_id = options.channelId === undefined ? undefined : requireUuid(options.channelId, 'channelId');
  return (
    await t.request<ListResponse<ContactChannel>>({
      method: 'GET',
      path: '/contact-channels',
      query: { user_id, contact_channel_id },
    })
  ).items;
}

/** One contact channel of a user. */
export function getContactChannel(t: Transport, userId: string, channelId: string): Promise<ContactChannel> {
  return t.request({ method: 'GET', path: channelPath(userId, channelId) });
}

/** Changing `value` without `is_verified` resets verification; `is_primary: true` moves the primary flag here. */
export function updateContactChannel(
  t: Transport,
  userId: string,
  channelId: string,
  update: ContactChannelUpdate,
): Promise<ContactChannel> {
  return t.request({ method: 'PATCH', path: channelPath(userId, channelId), body: requireObject(update, 'update') });
}

/** Removes a contact channel from a user. */
export function deleteContactChannel(t: Transport, userId: string, channelId: string): Promise<SuccessResponse> {
  return t.request({ method: 'DELETE', path: channelPath(userId, channelId) });
}

/** E-mails a verification link (`callback_url?code=…`) for one channel. */
export function sendContactChannelVerificationCode(
  t: Transport,
  userId: string,
  channelId: string,
  callbackUrl: string,
): Promise<SuccessResponse> {
  return t.request({
    method: 'POST',
    path: `${channelPath(userId, channelId)}/send-verification-code`,
    body: { callback_url: requireUrl(callbackUrl, 'callbackUrl') },
  });
}

/** The older form for the signed-in user's primary e-mail; `email` must equal it. */
export function sendPrimaryEmailVerificationCode(
  t: Transport,
  input: { email: string; callback_url: string },
): Promise<SuccessResponse> {
  requireObject(input, 'input');
  return t.request({
    method: 'POST',
    path: '/contact-channels/send-verification-code',
    body: {
      email: requireNonEmptyString(input.email, 'email'),
      callback_url: requireUrl(input.callback_url, 'callback_url'),
    },
  });
}

/** Marks the channel verified; no signed-in user is needed. */
export function verifyContactChannel(t: Transport, code: string): Promise<SuccessResponse> {
  return t.request({
    method: 'POST',
    path: '/contact-channels/verify',
    body: { code: requireNonEmptyString(code, 'code') },
  });
}

/** Whether an e-mail verification code may still be used (without using it). */
export function checkContactChannelVerificationCode(t: Transport, code: string): Promise<CodeCheckResponse> {
  return t.request({
    method: 'POST',
    path: '/contact-channels/verify/check-code',
    body: { code: requireNonEmptyString(code, 'code') },
  });
}
