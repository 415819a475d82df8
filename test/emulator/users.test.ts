import { hashSync } from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import type { ServerUserCreate } from '../../protocol/resources/user.js';
import type { RunningEmulator } from '../../emulator/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const BCRYPT = '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

const plain = (status: number, body: string) => ({ code: 'HTTP_STATUS_ERROR', status, body });
const known = (code: string, status?: number) => (status === undefined ? { code } : { code, status });

/** A user created by the server, with a client transport signed in as them. */
async function newUser(em: RunningEmulator, input: ServerUserCreate = {}) {
  const server = transportFor(em, 'server');
  const user = await endpoints.createUser(server, {
    primary_email: uniqueEmail(),
    primary_email_auth_enabled: true,
    ...input,
  });
  const tokens = await endpoints.createSession(server, { user_id: user.id });
  return {
    user,
    tokens,
    client: transportFor(em, 'client', { accessToken: tokens.access_token }),
    server: transportFor(em, 'server', { accessToken: tokens.access_token }),
  };
}

function demo(em: RunningEmulator) {
  return em.env.store.project(em.projects.demo.id)!;
}

async function withConfig<T>(
  em: RunningEmulator,
  patch: Partial<ReturnType<typeof demo>['config']>,
  run: () => Promise<T>,
): Promise<T> {
  const config = demo(em).config;
  const saved = { ...config };
  Object.assign(config, patch);
  try {
    return await run();
  } finally {
    Object.assign(config, saved);
  }
}

describe('GET/PATCH/DELETE /users/me', () => {
  it('answers the view of the access type', async () => {
    const em = emulator();
    const { client, server, user } = await newUser(em, { server_metadata: { secret: 1 } });
    const asClient = (await endpoints.getCurrentUser(client))!;
    expect(asClient.id).toBe(user.id);
    expect(asClient).not.toHaveProperty('server_metadata');
    expect(asClient).not.toHaveProperty('primary_email_auth_enabled');
    expect(asClient).not.toHaveProperty('last_active_at_millis');
    const asServer = (await endpoints.getCurrentUser(server))!;
    expect(asServer).toMatchObject({ server_metadata: { secret: 1 }, primary_email_auth_enabled: true });
    expect(await endpoints.getCurrentUser(transportFor(em, 'client'))).toBeNull();
  });

  it('applies the client write shape and refuses server fields', async () => {
    const em = emulator();
    const { client } = await newUser(em, { display_name: 'Before' });
    const updated = await endpoints.updateCurrentUser(client, {
      display_name: '',
      client_metadata: { theme: 'dark' },
      profile_image_url: PNG,
    });
    expect(updated).toMatchObject({ display_name: null, client_metadata: { theme: 'dark' }, profile_image_url: PNG });
    await expect(endpoints.updateCurrentUser(client, { server_metadata: {} } as never)).rejects.toMatchObject({
      code: 'SCHEMA_ERROR',
      message: expect.stringContaining('body contains unknown properties: server_metadata'),
    });
    await expect(
      endpoints.updateCurrentUser(client, { profile_image_url: 'https://example.com/a.png' }),
    ).rejects.toMatchObject(plain(400, 'Invalid profile image URL'));
    await expect(endpoints.updateCurrentUser(client, { passkey_auth_enabled: true })).rejects.toMatchObject(
      plain(400, 'Cannot manually enable passkey auth, it is enabled iff there is a passkey auth method'),
    );
    expect((await endpoints.updateCurrentUser(client, { passkey_auth_enabled: false })).passkey_auth_enabled).toBe(
      false,
    );
  });

  it('sets and clears the TOTP secret (standard base64 only)', async () => {
    const em = emulator();
    const { client } = await newUser(em);
    await expect(endpoints.updateCurrentUser(client, { totp_secret_base64: 'not base64!' })).rejects.toMatchObject({
      code: 'SCHEMA_ERROR',
      message: expect.stringContaining('body.totp_secret_base64 is not valid base64'),
    });
    expect(
      (await endpoints.updateCurrentUser(client, { totp_secret_base64: 'SGVsbG8gd29ybGQh' })).requires_totp_mfa,
    ).toBe(true);
    expect((await endpoints.updateCurrentUser(client, { totp_secret_base64: null })).requires_totp_mfa).toBe(false);
  });

  it('selects only a team the user belongs to', async () => {
    const em = emulator();
    const { client, user } = await newUser(em);
    const server = transportFor(em, 'server');
    const other = await endpoints.createTeam(server, { display_name: 'Not mine' });
    await expect(endpoints.updateCurrentUser(client, { selected_team_id: other.id })).rejects.toMatchObject(
      known('TEAM_MEMBERSHIP_NOT_FOUND', 404),
    );
    const mine = await endpoints.createTeam(server, { display_name: 'Mine', creator_user_id: user.id });
    const selected = await endpoints.updateCurrentUser(client, { selected_team_id: mine.id });
    expect(selected.selected_team_id).toBe(mine.id);
    expect(selected.selected_team).toMatchObject({ id: mine.id, display_name: 'Mine' });
    expect(selected.selected_team).not.toHaveProperty('server_metadata');
  });

  it('deletes the user for clients only when the project allows it', async () => {
    const em = emulator();
    const { client } = await newUser(em);
    await withConfig(em, { client_user_deletion_enabled: false }, async () => {
      await expect(endpoints.deleteCurrentUser(client)).rejects.toMatchObject(
        plain(400, 'Client user deletion is not enabled for this project'),
      );
    });
    await expect(endpoints.deleteCurrentUser(client)).resolves.toEqual({ success: true });
    // The access token is still valid but names no user any more.
    expect(await endpoints.getCurrentUser(client)).toBeNull();
    await expect(endpoints.deleteCurrentUser(client)).rejects.toMatchObject(
      known('CANNOT_GET_OWN_USER_WITHOUT_USER', 400),
    );
  });
});

describe('POST /users and /users/{id}', () => {
  it('creates a user (201, server view, e-mail not verified unless said)', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const response = await fetch(`${em.url}/api/v1/users`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-stack-project-id': em.projects.demo.id,
        'x-stack-access-type': 'server',
        'x-stack-secret-server-key': em.projects.demo.secretServerKey,
      },
      body: JSON.stringify({
        primary_email: email,
        primary_email_auth_enabled: true,
        display_name: 'New',
        client_read_only_metadata: [1, 2],
      }),
    });
    expect(response.status).toBe(201);
    const user = (await response.json()) as Record<string, unknown>;
    expect(user).toMatchObject({
      primary_email: email,
      primary_email_verified: false,
      primary_email_auth_enabled: true,
      display_name: 'New',
      client_read_only_metadata: [1, 2],
      has_password: false,
      selected_team: null,
    });
    expect(user.last_active_at_millis).toBe(user.signed_up_at_millis);
  });

  it('keeps auth-enabled e-mails unique but lets others share them', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const email = uniqueEmail();
    await endpoints.createUser(server, { primary_email: email, primary_email_auth_enabled: true });
    await expect(
      endpoints.createUser(server, { primary_email: email.toUpperCase(), primary_email_auth_enabled: true }),
    ).rejects.toMatchObject(known('USER_EMAIL_ALREADY_EXISTS', 409));
    const sharing = await endpoints.createUser(server, { primary_email: email });
    expect(sharing.primary_email_auth_enabled).toBe(false);
    await expect(endpoints.createUser(server, { primary_email_auth_enabled: true })).rejects.toMatchObject(
      plain(400, 'primary_email_auth_enabled cannot be true without primary_email'),
    );
    await expect(endpoints.createUser(server, { primary_email_verified: true })).rejects.toMatchObject(
      plain(400, 'primary_email_verified cannot be true without primary_email'),
    );
  });

  it('answers USER_NOT_FOUND for unknown ids and refuses clients', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const missing = crypto.randomUUID();
    await expect(endpoints.getUser(server, missing)).rejects.toMatchObject(known('USER_NOT_FOUND', 404));
    await expect(endpoints.updateUser(server, missing, { display_name: 'x' })).rejects.toMatchObject(
      known('USER_NOT_FOUND', 404),
    );
    await expect(endpoints.deleteUser(server, missing)).rejects.toMatchObject(known('USER_NOT_FOUND', 404));
    await expect(endpoints.getUser(transportFor(em, 'client') as never, missing)).rejects.toMatchObject(
      known('INSUFFICIENT_ACCESS_TYPE', 401),
    );
  });

  it('deletes a user with its channels, sessions and memberships', async () => {
    const em = emulator();
    const { user, tokens } = await newUser(em);
    const server = transportFor(em, 'server');
    const team = await endpoints.createTeam(server, { display_name: 'T', creator_user_id: user.id });
    await endpoints.deleteUser(server, user.id);
    await expect(endpoints.getUser(server, user.id)).rejects.toMatchObject(known('USER_NOT_FOUND'));
    expect(await endpoints.listTeamMemberProfiles(server, { teamId: team.id })).toEqual([]);
    expect(Object.values(demo(em).contact_channels).some((c) => c.user_id === user.id)).toBe(false);
    const tokenOptions = {
      baseUrl: em.url,
      projectId: em.projects.demo.id,
      publishableClientKey: em.projects.demo.publishableClientKey,
    };
    await expect(refreshAccessToken(tokenOptions, tokens.refresh_token)).rejects.toMatchObject(
      known('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'),
    );
  });

  it('creates a personal team when the project says so, and selects it (as the service does since v2.7)', async () => {
    const em = emulator();
    await withConfig(em, { create_team_on_sign_up: true }, async () => {
      const server = transportFor(em, 'server');
      const named = await endpoints.createUser(server, { display_name: 'Ada' });
      const byEmail = await endpoints.createUser(server, { primary_email: 'grace@example.com' });
      const anonymous = await endpoints.createUser(server, {});
      expect((await endpoints.listTeams(server, { userId: named.id })).map((t) => t.display_name)).toEqual([
        "Ada's Team",
      ]);
      expect((await endpoints.listTeams(server, { userId: byEmail.id })).map((t) => t.display_name)).toEqual([
        "grace@example.com's Team",
      ]);
      const [team] = await endpoints.listTeams(server, { userId: anonymous.id });
      expect(team?.display_name).toBe('Personal Team');
      // The create answer is the user before its team was made, as the service answers; a read has it selected.
      expect(anonymous.selected_team_id).toBeNull();
      expect((await endpoints.getUser(server, anonymous.id)).selected_team_id).toBe(team!.id);
      const permissions = await endpoints.listTeamPermissions(server, { user_id: anonymous.id, team_id: team!.id });
      expect(permissions.map((p) => p.id)).toEqual(['team_admin']);
    });
  });

  it('refuses OTP on creation without magic links, ignores it on update', async () => {
    const em = emulator();
    const { user } = await newUser(em);
    await withConfig(em, { magic_link_enabled: false }, async () => {
      const server = transportFor(em, 'server');
      await expect(endpoints.createUser(server, { otp_auth_enabled: true })).rejects.toMatchObject(
        plain(400, 'OTP auth not enabled in the project'),
      );
      expect((await endpoints.updateUser(server, user.id, { otp_auth_enabled: true })).otp_auth_enabled).toBe(false);
    });
    expect(
      (await endpoints.updateUser(transportFor(em, 'server'), user.id, { otp_auth_enabled: true })).otp_auth_enabled,
    ).toBe(true);
  });
});

describe('passwords', () => {
  it('hashes a password and revokes every session when it changes', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const email = uniqueEmail();
    const user = await endpoints.createUser(server, {
      primary_email: email,
      primary_email_auth_enabled: true,
      password: 'first password',
    });
    expect(user.has_password).toBe(true);
    expect(demo(em).users[user.id]!.password_hash).toMatch(/^scrypt\$/);
    const client = transportFor(em, 'client');
    const a = await endpoints.signInWithPassword(client, { email, password: 'first password' });
    const b = await endpoints.createSession(server, { user_id: user.id });
    await endpoints.updateUser(server, user.id, { password: 'second password' });
    const tokenOptions = {
      baseUrl: em.url,
      projectId: em.projects.demo.id,
      publishableClientKey: em.projects.demo.publishableClientKey,
    };
    for (const refresh of [a.refresh_token, b.refresh_token]) {
      await expect(refreshAccessToken(tokenOptions, refresh)).rejects.toMatchObject(
        known('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'),
      );
    }
    await expect(endpoints.signInWithPassword(client, { email, password: 'first password' })).rejects.toMatchObject(
      known('EMAIL_PASSWORD_MISMATCH'),
    );
    await endpoints.signInWithPassword(client, { email, password: 'second password' });
    const removed = await endpoints.updateUser(server, user.id, { password: null });
    expect(removed).toMatchObject({ has_password: false, auth_with_email: false });
  });

  it('validates password and password_hash', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    await expect(
      endpoints.createUser(server, { primary_email: uniqueEmail(), password: 'x'.repeat(71) }),
    ).rejects.toMatchObject({ code: 'SCHEMA_ERROR' });
    await expect(
      endpoints.createUser(server, { primary_email: uniqueEmail(), password: 'abc', password_hash: BCRYPT }),
    ).rejects.toMatchObject(plain(400, 'Cannot set both password and password_hash at the same time.'));
    const invalid = plain(400, "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.");
    await expect(
      endpoints.createUser(server, { primary_email: uniqueEmail(), password_hash: 'plain' }),
    ).rejects.toMatchObject(invalid);
    await expect(
      endpoints.createUser(server, { primary_email: uniqueEmail(), password_hash: BCRYPT.replace('$10$', '$17$') }),
    ).rejects.toMatchObject(invalid);
    await expect(endpoints.createUser(server, { password: 'no e-mail here' })).rejects.toMatchObject({
      code: 'HTTP_STATUS_ERROR',
      status: 400,
    });
  });

  it('signs an imported bcrypt user in with the original password ($2a$, $2b$, $2y$)', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const client = transportFor(em, 'client');
    // PHP's documentation example (made by crypt_blowfish, not by the library the emulator uses), and
    // the same password hashed as $2a$ and $2b$ (bcrypt's three prefixes differ only in old bugs).
    const php = '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a';
    for (const hash of [
      php,
      hashSync('rasmuslerdorf', 4).replace(/^\$2.\$/, '$2a$'),
      hashSync('rasmuslerdorf', 4).replace(/^\$2.\$/, '$2b$'),
    ]) {
      const email = uniqueEmail();
      const user = await endpoints.createUser(server, {
        primary_email: email,
        primary_email_auth_enabled: true,
        password_hash: hash,
      });
      expect(user.has_password).toBe(true);
      expect(demo(em).users[user.id]!.password_hash).toBe(hash);
      await expect(endpoints.signInWithPassword(client, { email, password: 'rasmuslerdorf!' })).rejects.toMatchObject(
        known('EMAIL_PASSWORD_MISMATCH'),
      );
      const tokens = await endpoints.signInWithPassword(client, { email, password: 'rasmuslerdorf' });
      expect(tokens.user_id).toBe(user.id);
      // Changing the password checks the old one against the imported hash, then stores the emulator's own.
      const signedIn = transportFor(em, 'client', { accessToken: tokens.access_token });
      await endpoints.updatePassword(signedIn, { old_password: 'rasmuslerdorf', new_password: 'a brand new password' });
      expect(demo(em).users[user.id]!.password_hash).toMatch(/^scrypt\$/);
      await endpoints.signInWithPassword(client, { email, password: 'a brand new password' });
    }
    // A hash set later by PATCH works the same way.
    const later = await endpoints.createUser(server, {
      primary_email: uniqueEmail(),
      primary_email_auth_enabled: true,
      password: 'emulator hashed',
    });
    await endpoints.updateUser(server, later.id, { password_hash: php });
    await endpoints.signInWithPassword(client, { email: later.primary_email!, password: 'rasmuslerdorf' });
  });
});

describe('primary e-mail updates', () => {
  it('changes the primary e-mail as the service does: flags kept unless given, old addresses kept as others', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const first = uniqueEmail();
    const user = await endpoints.createUser(server, { primary_email: first, primary_email_verified: true });
    // The flag alone switches sign-in with the address on.
    expect(
      (await endpoints.updateUser(server, user.id, { primary_email_auth_enabled: true })).primary_email_auth_enabled,
    ).toBe(true);
    // A new address is unverified; the sign-in flag carries over unless given.
    const second = uniqueEmail();
    const changed = await endpoints.updateUser(server, user.id, { primary_email: second });
    expect(changed).toMatchObject({
      primary_email: second,
      primary_email_auth_enabled: true,
      primary_email_verified: false,
    });
    const off = await endpoints.updateUser(server, user.id, {
      primary_email: uniqueEmail(),
      primary_email_auth_enabled: false,
    });
    expect(off.primary_email_auth_enabled).toBe(false);
    // Back to the first address: its channel is promoted again, verification and all.
    const back = await endpoints.updateUser(server, user.id, { primary_email: first });
    expect(back).toMatchObject({ primary_email: first, primary_email_verified: true });
    const removed = await endpoints.updateUser(server, user.id, { primary_email: null });
    expect(removed).toMatchObject({
      primary_email: null,
      primary_email_verified: false,
      primary_email_auth_enabled: false,
    });
    // Removing the primary address demotes it; nothing is deleted.
    const channels = await endpoints.listContactChannels(server, { userId: user.id });
    expect(channels).toHaveLength(3);
    expect(channels.every((c) => !c.is_primary)).toBe(true);
  });

  it('refuses an e-mail another account signs in with, only when it changes', async () => {
    const em = emulator();
    const server = transportFor(em, 'server');
    const taken = uniqueEmail();
    await endpoints.createUser(server, { primary_email: taken, primary_email_auth_enabled: true });
    const user = await endpoints.createUser(server, { primary_email: uniqueEmail(), primary_email_auth_enabled: true });
    await expect(endpoints.updateUser(server, user.id, { primary_email: taken })).rejects.toMatchObject(
      known('USER_EMAIL_ALREADY_EXISTS', 409),
    );
    await expect(
      endpoints.updateUser(server, user.id, { primary_email: user.primary_email!, display_name: 'Same' }),
    ).resolves.toMatchObject({ display_name: 'Same' });
    const plainUser = await endpoints.createUser(server, {});
    await expect(endpoints.updateUser(server, plainUser.id, { primary_email_verified: true })).rejects.toMatchObject(
      plain(400, 'primary_email_verified cannot be true without primary_email'),
    );
  });
});
