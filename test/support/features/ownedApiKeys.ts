/**
 * The API keys users and teams hold for their own integrations (`/user-api-keys`, `/team-api-keys`, the server's
 * `check`), as scenarios over a target (see ../scenarioKit.ts): the whole key shown once, lists with its last four
 * characters, revocation, `$manage_api_keys` for a team's, and the project's `allow_user_api_keys` /
 * `allow_team_api_keys`.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { HttpStatusError } from '../../../protocol/errors/errors.js';
import type { TeamApiKeyModel, UserApiKeyModel } from '../../../protocol/models.js';
import {
  brokerFor,
  clientTransport,
  ensureProjectSettings,
  failureOf,
  knownCodeOf,
  PASSWORD,
  serverApp,
  serviceCodeOf,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

/** The key format the service writes (and secret scanners know): `sk_`/`pk_`, …, the `574ck4u7h` marker, a CRC. */
const KEY = /^(sk|pk)_[0-9a-z]+574ck4u7h[0-9a-f]{8}$/;

async function keysAllowed(target: ServiceTarget): Promise<void> {
  await ensureProjectSettings(target, { allow_user_api_keys: true, allow_team_api_keys: true });
}

/** A signed-in user (a session made by the server) with a verified e-mail and a password. */
async function someone(target: ServiceTarget): Promise<{ userId: string; email: string; accessToken: string }> {
  const server = serverApp(target);
  const email = uniqueEmail('keys');
  const user = await server.createUser({
    primaryEmail: email,
    primaryEmailVerified: true,
    primaryEmailAuthEnabled: true,
    password: PASSWORD,
  });
  const { accessToken } = await server.createSession({ userId: user.id });
  return { userId: user.id, email, accessToken };
}

/** A user makes a key (shown whole this once), lists it by its last four characters, and revokes it for good. */
export async function userKeyShownOnceListedAndRevoked(target: ServiceTarget): Promise<void> {
  await keysAllowed(target);
  const user = await someone(target);
  const client = clientTransport(target, user.accessToken);
  const created = await endpoints.createUserApiKey(client, {
    user_id: 'me',
    description: 'CI deploys',
    expires_at_millis: null,
  });
  expect(created).toEqual({
    id: expect.any(String),
    description: 'CI deploys',
    is_public: false,
    created_at_millis: expect.any(Number),
    type: 'user',
    user_id: user.userId,
    value: expect.stringMatching(KEY),
  });
  expect(created.value.startsWith('sk_')).toBe(true);
  const listed = { ...created, value: { last_four: created.value.slice(-4) } };
  expect(await endpoints.listUserApiKeys(client, 'me')).toEqual([listed]);

  // The server learns whose key it is.
  expect(await serverApp(target).checkUserApiKey(created.value)).toEqual({
    id: created.id,
    description: 'CI deploys',
    isPublic: false,
    createdAtMillis: created.created_at_millis,
    type: 'user',
    userId: user.userId,
    value: { lastFour: created.value.slice(-4) },
  });

  const revoked = await endpoints.updateUserApiKey(client, 'me', created.id, { revoked: true });
  expect(revoked).toEqual({ ...listed, manually_revoked_at_millis: expect.any(Number) });
  // A second revocation keeps the first time.
  expect(await endpoints.updateUserApiKey(client, 'me', created.id, { revoked: true })).toEqual(revoked);
  expect(await endpoints.listUserApiKeys(client, 'me')).toEqual([revoked]);
  expect(serviceCodeOf(await failureOf(serverApp(target).checkUserApiKey(created.value)))).toBe('API_KEY_REVOKED');
}

/** Public and expiring keys, the list newest first, and the server's check of expired, unknown and team keys. */
export async function userKeyKindsAndChecks(target: ServiceTarget): Promise<void> {
  await keysAllowed(target);
  const user = await someone(target);
  const client = clientTransport(target, user.accessToken);
  const expired = await endpoints.createUserApiKey(client, {
    user_id: 'me',
    description: 'already expired',
    expires_at_millis: Date.now() - 60_000,
  });
  const later = await endpoints.createUserApiKey(client, {
    user_id: user.userId,
    description: 'public',
    expires_at_millis: Date.now() + 3_600_000,
    is_public: true,
  });
  expect(later.value.startsWith('pk_')).toBe(true);
  expect(later.is_public).toBe(true);
  expect((await endpoints.listUserApiKeys(client, 'me')).map((k) => k.description)).toEqual([
    'public',
    'already expired',
  ]);
  const server = serverApp(target);
  expect(serviceCodeOf(await failureOf(server.checkUserApiKey(expired.value)))).toBe('API_KEY_EXPIRED');
  expect(knownCodeOf(await failureOf(server.checkUserApiKey(`${later.value}x`)))).toBe('API_KEY_NOT_FOUND');
  expect(serviceCodeOf(await failureOf(server.checkTeamApiKey(later.value)))).toBe('WRONG_API_KEY_TYPE');
}

/** Clients manage only their own user's keys, and a team's only with `$manage_api_keys` in it. */
export async function keysOfOthersAndTeams(target: ServiceTarget): Promise<void> {
  await keysAllowed(target);
  const admin = await someone(target);
  const member = await someone(target);
  const server = serverApp(target);
  const team = await server.createTeam({ displayName: 'Keyholders', creatorUserId: admin.userId });
  await server.addTeamMember(team.id, member.userId);

  const other = await failureOf(
    endpoints.createUserApiKey(clientTransport(target, member.accessToken), {
      user_id: admin.userId,
      description: 'not mine',
      expires_at_millis: null,
    }),
  );
  expect([(other as HttpStatusError).status, String((other as HttpStatusError).body)]).toEqual([
    403,
    'Client can only manage their own api keys',
  ]);

  // The creator holds team_admin, with $manage_api_keys; a plain member does not (and learns nothing of the keys).
  const asAdmin = clientTransport(target, admin.accessToken);
  const created = await endpoints.createTeamApiKey(asAdmin, {
    team_id: team.id,
    description: 'team integration',
    expires_at_millis: null,
  });
  expect(created).toMatchObject({ type: 'team', team_id: team.id, value: expect.stringMatching(KEY) });
  expect((await endpoints.listTeamApiKeys(asAdmin, team.id)).map((k) => k.id)).toEqual([created.id]);
  const asMember = clientTransport(target, member.accessToken);
  expect(knownCodeOf(await failureOf(endpoints.listTeamApiKeys(asMember, team.id)))).toBe('API_KEY_NOT_FOUND');
  expect(
    knownCodeOf(
      await failureOf(
        endpoints.createTeamApiKey(asMember, { team_id: team.id, description: 'no', expires_at_millis: null }),
      ),
    ),
  ).toBe('API_KEY_NOT_FOUND');
  expect((await server.checkTeamApiKey(created.value)).teamId).toBe(team.id);
  expect(
    (await endpoints.updateTeamApiKey(asAdmin, team.id, created.id, { revoked: true })).manually_revoked_at_millis,
  ).toEqual(expect.any(Number));
  expect(serviceCodeOf(await failureOf(server.checkTeamApiKey(created.value)))).toBe('API_KEY_REVOKED');
}

/** The project's switches: with user API keys off, every user-key call is refused (and team keys stay on). */
export async function keysFollowTheProjectSwitches(target: ServiceTarget): Promise<void> {
  await keysAllowed(target);
  const user = await someone(target);
  const client = clientTransport(target, user.accessToken);
  await ensureProjectSettings(target, { allow_user_api_keys: false });
  try {
    const refused = await failureOf(
      endpoints.createUserApiKey(client, { user_id: 'me', description: 'off', expires_at_millis: null }),
    );
    expect([(refused as HttpStatusError).status, String((refused as HttpStatusError).body)]).toEqual([
      400,
      'User API keys are not enabled for this project.',
    ]);
    expect((await failureOf(endpoints.listUserApiKeys(client, 'me'))).message).toMatch(/not enabled/);
  } finally {
    await ensureProjectSettings(target, { allow_user_api_keys: true });
  }
  expect(await endpoints.listUserApiKeys(client, 'me')).toEqual([]);
}

/**
 * Through the broker: the userApiKeys and teamApiKeys queries in two tabs; the key's whole value reaches the tab that
 * made it, and the lists (every tab's) hold only its last four characters.
 */
export async function brokerManagesApiKeys(target: ServiceTarget): Promise<void> {
  await keysAllowed(target);
  const user = await someone(target);
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [tab, other] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    expect(await tab.api.read({ kind: 'userApiKeys' })).toEqual([]);
    await tab.api.signInWithPassword({ email: user.email, password: PASSWORD });
    await other.subscribe('keys', { kind: 'userApiKeys' });
    await other.waitFor('keys', (s) => Array.isArray(s.data), 30_000);

    const created = await tab.api.createUserApiKey({ description: 'from the broker', expiresAtMillis: null });
    expect(created.value).toMatch(KEY);
    const listed = await other.waitFor(
      'keys',
      (s) => ((s.data as UserApiKeyModel[] | undefined) ?? []).length === 1,
      30_000,
    );
    expect(listed.data).toEqual([{ ...created, value: { lastFour: created.value.slice(-4) } }]);
    expect(JSON.stringify(listed.data)).not.toContain(created.value);

    await tab.api.revokeUserApiKey(created.id);
    await other.waitFor(
      'keys',
      (s) => (s.data as UserApiKeyModel[] | undefined)?.[0]?.manuallyRevokedAtMillis !== undefined,
      30_000,
    );

    const team = await tab.api.createTeam({ displayName: 'Broker keys' });
    await other.subscribe('teamKeys', { kind: 'teamApiKeys', teamId: team.id });
    const teamKey = await tab.api.createTeamApiKey(team.id, {
      description: 'team key',
      expiresAtMillis: Date.now() + 3_600_000,
      isPublic: true,
    });
    expect(teamKey).toMatchObject({ type: 'team', teamId: team.id, isPublic: true });
    await other.waitFor(
      'teamKeys',
      (s) => ((s.data as TeamApiKeyModel[] | undefined) ?? []).some((k) => k.id === teamKey.id),
      30_000,
    );
    expect((await tab.api.revokeTeamApiKey(team.id, teamKey.id)).manuallyRevokedAtMillis).toEqual(expect.any(Number));
  } finally {
    close();
  }
}
