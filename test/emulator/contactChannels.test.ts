import { describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const CALLBACK = 'http://localhost:5173/handler/email-verification';
const plain = (status: number, body: string) => ({ code: 'HTTP_STATUS_ERROR', status, body });

async function newUser(em: RunningEmulator, input: { verified?: boolean } = {}) {
  const server = transportFor(em, 'server');
  const email = uniqueEmail('cc');
  const user = await endpoints.createUser(server, {
    primary_email: email,
    primary_email_auth_enabled: true,
    primary_email_verified: input.verified ?? false,
  });
  const { access_token } = await endpoints.createSession(server, { user_id: user.id });
  const [primary] = await endpoints.listContactChannels(server, { userId: user.id });
  return { user, email, primary: primary!, client: transportFor(em, 'client', { accessToken: access_token }) };
}

/** The verification code of the newest e-mail to `to`. */
async function mailedCode(em: RunningEmulator, to: string): Promise<string> {
  const { items } = await devRequest<{ items: Array<{ subject: string; link: string | null }> }>(
    em,
    'GET',
    `/emulator/mailbox?to=${encodeURIComponent(to)}`,
  );
  const mail = items.at(-1)!;
  expect(mail.subject).toBe('Verify your email at Authbroker Demo');
  return new URL(mail.link!).searchParams.get('code')!;
}

describe('verification', () => {
  it('verifies the e-mail of a password sign-up from the mailed link', async () => {
    const em = emulator();
    const anonymous = transportFor(em, 'client');
    const email = uniqueEmail('signup');
    const { access_token } = await endpoints.signUpWithPassword(anonymous, {
      email,
      password: 'long enough',
      verification_callback_url: CALLBACK,
    });
    const client = transportFor(em, 'client', { accessToken: access_token });
    expect((await endpoints.getCurrentUser(client))!.primary_email_verified).toBe(false);
    const code = await mailedCode(em, email);
    expect(await endpoints.checkContactChannelVerificationCode(anonymous, code)).toEqual({ is_code_valid: true });
    expect(await endpoints.verifyContactChannel(anonymous, code)).toEqual({ success: true });
    expect((await endpoints.getCurrentUser(client))!.primary_email_verified).toBe(true);
    await expect(endpoints.verifyContactChannel(anonymous, code)).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_ALREADY_USED',
      status: 409,
    });
    await expect(
      endpoints.sendPrimaryEmailVerificationCode(client, { email, callback_url: CALLBACK }),
    ).rejects.toMatchObject({ code: 'EMAIL_ALREADY_VERIFIED', status: 409 });
  });

  it('sends per-channel codes with the documented errors', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const a = await newUser(em);
    const b = await newUser(em);
    await expect(
      endpoints.sendContactChannelVerificationCode(a.client, b.user.id, b.primary.id, CALLBACK),
    ).rejects.toMatchObject(plain(400, 'Can only send verification code for your own user'));
    const ghost = crypto.randomUUID();
    await expect(
      endpoints.sendContactChannelVerificationCode(server, ghost, a.primary.id, CALLBACK),
    ).rejects.toMatchObject({
      code: 'USER_ID_DOES_NOT_EXIST',
      status: 400,
      details: { user_id: ghost },
    });
    await expect(
      endpoints.sendContactChannelVerificationCode(a.client, 'me', b.primary.id, CALLBACK),
    ).rejects.toMatchObject(plain(404, 'Contact channel not found'));
    await expect(
      endpoints.sendContactChannelVerificationCode(a.client, 'me', a.primary.id, 'https://evil.example.com/verify'),
    ).rejects.toMatchObject({
      code: 'REDIRECT_URL_NOT_WHITELISTED',
    });
    await endpoints.sendContactChannelVerificationCode(a.client, 'me', a.primary.id, CALLBACK);
    await endpoints.verifyContactChannel(transportFor(em, 'server'), await mailedCode(em, a.email));
    expect((await endpoints.getContactChannel(a.client, 'me', a.primary.id)).is_verified).toBe(true);
    await expect(
      endpoints.sendContactChannelVerificationCode(a.client, 'me', a.primary.id, CALLBACK),
    ).rejects.toMatchObject({ code: 'EMAIL_ALREADY_VERIFIED' });
  });

  it('sends the legacy primary-e-mail code only for the primary e-mail of a signed-in user', async () => {
    const em = emulator();
    const { client, email } = await newUser(em);
    await expect(
      endpoints.sendPrimaryEmailVerificationCode(transportFor(em, 'client'), { email, callback_url: CALLBACK }),
    ).rejects.toMatchObject({
      code: 'SCHEMA_ERROR',
      message: expect.stringContaining('auth.user must be defined'),
    });
    const other = uniqueEmail();
    await expect(
      endpoints.sendPrimaryEmailVerificationCode(client, { email: other, callback_url: CALLBACK }),
    ).rejects.toMatchObject({
      code: 'EMAIL_IS_NOT_PRIMARY_EMAIL',
      details: { email: other, primary_email: email },
    });
    await expect(
      endpoints.sendPrimaryEmailVerificationCode(client, { email, callback_url: CALLBACK }),
    ).resolves.toEqual({ success: true });
    await endpoints.verifyContactChannel(client, await mailedCode(em, email));
    expect((await endpoints.getCurrentUser(client))!.primary_email_verified).toBe(true);
  });

  it('refuses to verify a channel whose value changed or that was deleted since the code was sent', async () => {
    const em = emulator();
    const { client, email, primary } = await newUser(em);
    await endpoints.sendContactChannelVerificationCode(client, 'me', primary.id, CALLBACK);
    const code = await mailedCode(em, email);
    await endpoints.updateContactChannel(client, 'me', primary.id, { value: uniqueEmail('changed') });
    const gone = plain(400, 'Contact channel not found. Was your contact channel deleted?');
    await expect(endpoints.verifyContactChannel(client, code)).rejects.toMatchObject(gone);
    const extra = await endpoints.createContactChannel(client, {
      user_id: 'me',
      type: 'email',
      value: uniqueEmail('extra'),
      used_for_auth: false,
    });
    await endpoints.sendContactChannelVerificationCode(client, 'me', extra.id, CALLBACK);
    const second = await mailedCode(em, extra.value);
    await endpoints.deleteContactChannel(client, 'me', extra.id);
    await expect(endpoints.verifyContactChannel(client, second)).rejects.toMatchObject(gone);
  });
});

describe('contact channel CRUD', () => {
  it('creates channels for yourself (201) and refuses duplicates and taken auth e-mails', async () => {
    const em = emulator();
    const a = await newUser(em);
    const b = await newUser(em);
    const value = uniqueEmail('second');
    const response = await fetch(`${em.url}/api/v1/contact-channels`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-stack-project-id': em.projects.demo.id,
        'x-stack-access-type': 'client',
        'x-stack-publishable-client-key': em.projects.demo.publishableClientKey,
        'x-stack-access-token': (await endpoints.createSession(transportFor(em, 'server'), { user_id: a.user.id }))
          .access_token,
      },
      body: JSON.stringify({ user_id: 'me', type: 'email', value, used_for_auth: false }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({
      id: expect.any(String),
      user_id: a.user.id,
      type: 'email',
      value,
      is_primary: false,
      is_verified: false,
      used_for_auth: false,
    });
    await expect(
      endpoints.createContactChannel(a.client, {
        user_id: b.user.id,
        type: 'email',
        value: uniqueEmail(),
        used_for_auth: false,
      }),
    ).rejects.toMatchObject(plain(403, 'Client can only create contact channels for their own user.'));
    await expect(
      endpoints.createContactChannel(a.client, { user_id: 'me', type: 'email', value, used_for_auth: false }),
    ).rejects.toMatchObject(plain(400, 'Contact channel already exists'));
    await expect(
      endpoints.createContactChannel(a.client, { user_id: 'me', type: 'email', value: b.email, used_for_auth: true }),
    ).rejects.toMatchObject({
      code: 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
      status: 409,
      details: { type: 'email', contact_channel_value: b.email },
      // The service's sentence, quotes and parentheses as it writes them.
      message: `This email "(${b.email})" is already used for authentication by another account.`,
    });
    // Not used for auth, anyone may have it.
    await endpoints.createContactChannel(a.client, {
      user_id: 'me',
      type: 'email',
      value: b.email,
      used_for_auth: false,
    });
    await expect(
      endpoints.createContactChannel(a.client, {
        user_id: 'me',
        type: 'email',
        value: uniqueEmail(),
        used_for_auth: false,
        is_verified: true,
      }),
    ).rejects.toMatchObject({
      code: 'SCHEMA_ERROR',
    });
    const verified = await endpoints.createContactChannel(transportFor(em, 'server'), {
      user_id: a.user.id,
      type: 'email',
      value: uniqueEmail(),
      used_for_auth: false,
      is_verified: true,
    });
    expect(verified.is_verified).toBe(true);
  });

  it('moves the primary flag, and the user primary e-mail follows', async () => {
    const em = emulator();
    const { client, primary } = await newUser(em);
    const value = uniqueEmail('newprimary');
    const created = await endpoints.createContactChannel(client, {
      user_id: 'me',
      type: 'email',
      value,
      used_for_auth: true,
      is_primary: true,
    });
    expect(created.is_primary).toBe(true);
    expect((await endpoints.getContactChannel(client, 'me', primary.id)).is_primary).toBe(false);
    expect((await endpoints.getCurrentUser(client))!.primary_email).toBe(value);
    await endpoints.updateContactChannel(client, 'me', primary.id, { is_primary: true });
    expect((await endpoints.getCurrentUser(client))!.primary_email).toBe(primary.value);
    const channels = await endpoints.listContactChannels(client, { userId: 'me' });
    expect(channels.map((c) => [c.id, c.is_primary])).toEqual([
      [primary.id, true],
      [created.id, false],
    ]);
    await endpoints.deleteContactChannel(client, 'me', primary.id);
    expect((await endpoints.getCurrentUser(client))!.primary_email).toBeNull();
  });

  it('updates channels: a new value resets verification, auth conflicts are refused', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const a = await newUser(em, { verified: true });
    const b = await newUser(em);
    expect(a.primary.is_verified).toBe(true);
    const changed = await endpoints.updateContactChannel(a.client, 'me', a.primary.id, { value: uniqueEmail('reset') });
    expect(changed.is_verified).toBe(false);
    expect(
      (
        await endpoints.updateContactChannel(server, a.user.id, a.primary.id, {
          value: uniqueEmail('kept'),
          is_verified: true,
        })
      ).is_verified,
    ).toBe(true);
    const extra = await endpoints.createContactChannel(a.client, {
      user_id: 'me',
      type: 'email',
      value: b.email,
      used_for_auth: false,
    });
    await expect(
      endpoints.updateContactChannel(a.client, 'me', extra.id, { used_for_auth: true }),
    ).rejects.toMatchObject({
      code: 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
      details: { type: 'email', contact_channel_value: null },
      // Without the address the service leaves two spaces.
      message: 'This email  is already used for authentication by another account.',
    });
    await expect(
      endpoints.updateContactChannel(a.client, 'me', a.primary.id, { is_verified: true } as never),
    ).rejects.toMatchObject({ code: 'SCHEMA_ERROR' });
    await expect(
      endpoints.updateContactChannel(a.client, b.user.id, b.primary.id, { used_for_auth: false }),
    ).rejects.toMatchObject(plain(403, 'Client can only update contact channels for their own user.'));
    await expect(
      endpoints.updateContactChannel(a.client, 'me', b.primary.id, { used_for_auth: false }),
    ).rejects.toMatchObject(plain(400, 'Contact channel not found'));
  });

  it('reads, lists and deletes with the documented texts and statuses', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const a = await newUser(em);
    const b = await newUser(em);
    await expect(endpoints.getContactChannel(a.client, b.user.id, b.primary.id)).rejects.toMatchObject(
      plain(403, 'Client can only read contact channels for their own user.'),
    );
    await expect(endpoints.getContactChannel(a.client, 'me', b.primary.id)).rejects.toMatchObject(
      plain(404, 'Contact channel not found.'),
    );
    await expect(endpoints.listContactChannels(a.client)).rejects.toMatchObject(
      plain(403, 'Client can only list contact channels for their own user.'),
    );
    await expect(endpoints.listContactChannels(transportFor(em, 'client'), { userId: 'me' })).rejects.toMatchObject({
      code: 'CANNOT_GET_OWN_USER_WITHOUT_USER',
    });
    expect((await endpoints.listContactChannels(server, { channelId: b.primary.id })).map((c) => c.user_id)).toEqual([
      b.user.id,
    ]);
    await expect(endpoints.deleteContactChannel(a.client, b.user.id, b.primary.id)).rejects.toMatchObject(
      plain(403, 'Client can only delete contact channels for their own user.'),
    );
    await expect(endpoints.deleteContactChannel(a.client, 'me', b.primary.id)).rejects.toMatchObject(
      plain(400, 'Contact channel not found'),
    );
    await expect(endpoints.deleteContactChannel(server, b.user.id, b.primary.id)).resolves.toEqual({ success: true });
    expect(await endpoints.listContactChannels(server, { userId: b.user.id })).toEqual([]);
  });
});
