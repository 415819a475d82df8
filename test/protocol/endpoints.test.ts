import { describe, expect, it } from 'vitest';
import * as endpoints from '../../protocol/endpoints/index.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { systemClock, type Clock } from '../../protocol/retry.js';
import { createAdminApp, createServerApp } from '../../protocol/server.js';
import { createTransport, type Transport } from '../../protocol/transport.js';

const BASE = 'https://api.example.test';
const PROJECT = '6b1c2f0e-3a7d-4e55-9a41-0c2d5e8f9b10';
const USER = '0f8e2d7c-1b3a-4c5d-8e9f-a0b1c2d3e4f5';
const clock: Clock = {
  ...systemClock,
  now: () => 0,
  random: () => 0,
  sleep: async () => undefined,
};

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

function recordingFetch(reply: unknown = { ok: true }) {
  const sent: Sent[] = [];
  const fn = (async (input: string | URL | Request, init: RequestInit = {}) => {
    sent.push({
      url: String(input),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
    });
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fn, sent };
}

function serverTransport(reply?: unknown): { t: Transport<'server'>; sent: Sent[] } {
  const { fn, sent } = recordingFetch(reply);
  return {
    t: createTransport({
      baseUrl: BASE,
      projectId: PROJECT,
      accessType: 'server',
      secretServerKey: 'ssk_1',
      fetch: fn,
      clock,
    }),
    sent,
  };
}

/** Runs `call` and returns what it threw, whether synchronously or as a rejection. */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('arguments are checked before anything is sent', () => {
  const cases: Array<[string, (t: Transport<'server'>) => unknown, string]> = [
    ['getUser with a non-UUID', (t) => endpoints.getUser(t, 'not-a-uuid'), 'userId'],
    ['getUser with an empty id', (t) => endpoints.getUser(t, ''), 'userId'],
    ['updateUser without an update', (t) => endpoints.updateUser(t, USER, null as never), 'update'],
    ['getTeam with a non-UUID', (t) => endpoints.getTeam(t, 'team-1'), 'teamId'],
    ['addTeamMember with a bad user', (t) => endpoints.addTeamMember(t, USER, 'someone'), 'userId'],
    ['listUsers with limit 0', (t) => endpoints.listUsers(t, { limit: 0 }), 'query.limit'],
    ['listUsers with a bad cursor', (t) => endpoints.listUsers(t, { cursor: 'next' }), 'query.cursor'],
    ['deleteSession with a bad session id', (t) => endpoints.deleteSession(t, 'abc', 'me'), 'sessionId'],
    ['createSession with a bad user', (t) => endpoints.createSession(t, { user_id: 'x' }), 'user_id'],
    ['listSessions with a bad user', (t) => endpoints.listSessions(t, 'you'), 'userId'],
    [
      'signUpWithPassword with a relative callback',
      (t) =>
        endpoints.signUpWithPassword(t, {
          email: 'a@b.test',
          password: 'long enough',
          verification_callback_url: '/verify',
        }),
      'verification_callback_url',
    ],
    ['signUpWithPassword without input', (t) => endpoints.signUpWithPassword(t, undefined as never), 'input'],
    [
      'signInWithPassword with an empty email',
      (t) => endpoints.signInWithPassword(t, { email: ' ', password: 'x' }),
      'email',
    ],
  ];

  it.each(cases)('%s → InvalidArgumentError', async (_name, call, argument) => {
    const { t, sent } = serverTransport();
    const error = await failureOf(() => call(t));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect(sent).toHaveLength(0);
  });

  it('signUpWithPassword with a short password → PASSWORD_TOO_SHORT', async () => {
    const { t, sent } = serverTransport();
    const error = await failureOf(() =>
      endpoints.signUpWithPassword(t, {
        email: 'a@b.test',
        password: 'short',
        verification_callback_url: 'https://app.test/verify',
      }),
    );
    expect(isKnownError(error, 'PASSWORD_TOO_SHORT')).toBe(true);
    expect((error as Error).message).toBe('Password too short. Minimum length is 8.');
    expect(sent).toHaveLength(0);
  });

  it('resetPassword and updatePassword with a long password → PASSWORD_TOO_LONG', async () => {
    const { t, sent } = serverTransport();
    expect(
      isKnownError(
        await failureOf(() => endpoints.resetPassword(t, { code: 'c'.repeat(45), password: 'x'.repeat(71) })),
        'PASSWORD_TOO_LONG',
      ),
    ).toBe(true);
    expect(
      isKnownError(
        await failureOf(() => endpoints.updatePassword(t, { old_password: 'old', new_password: 'x'.repeat(71) })),
        'PASSWORD_TOO_LONG',
      ),
    ).toBe(true);
    expect(sent).toHaveLength(0);
  });
});

describe('valid calls go out as specified', () => {
  it('getUser accepts a UUID or me', async () => {
    const { t, sent } = serverTransport({ id: USER });
    await expect(endpoints.getUser(t, USER)).resolves.toEqual({ id: USER });
    await endpoints.getUser(t, 'me');
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      `GET ${BASE}/api/v1/users/${USER}`,
      `GET ${BASE}/api/v1/users/me`,
    ]);
    expect(sent[0]!.headers.get('x-stack-access-type')).toBe('server');
    expect(sent[0]!.headers.get('x-stack-secret-server-key')).toBe('ssk_1');
  });

  it('signUpWithPassword posts exactly the fields', async () => {
    const { t, sent } = serverTransport({ user_id: USER, access_token: 'a', refresh_token: 'r' });
    const input = { email: 'a@b.test', password: 'long enough', verification_callback_url: 'https://app.test/verify' };
    await endpoints.signUpWithPassword(t, input);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: `${BASE}/api/v1/auth/password/sign-up`, body: input });
    expect(sent[0]!.headers.get('content-type')).toBe('application/json');
  });

  it('listUsers sends its query and skips what is unset', async () => {
    const { t, sent } = serverTransport({ items: [], is_paginated: true, pagination: { next_cursor: null } });
    await endpoints.listUsers(t, { limit: 2, desc: true });
    expect(sent[0]!.url).toBe(`${BASE}/api/v1/users?limit=2&desc=true`);
  });

  it('deleteSession sends the required user_id', async () => {
    const { t, sent } = serverTransport({ success: true });
    await endpoints.deleteSession(t, USER, 'me');
    expect(sent[0]).toMatchObject({ method: 'DELETE', url: `${BASE}/api/v1/auth/sessions/${USER}?user_id=me` });
  });
});

describe('createServerApp / createAdminApp', () => {
  const base = { baseUrl: BASE, projectId: PROJECT };

  it.each([
    ['a missing key', { ...base }, 'secretServerKey'],
    ['an empty key', { ...base, secretServerKey: '' }, 'secretServerKey'],
    ['a non-http baseUrl', { ...base, baseUrl: 'ftp://api.example.test', secretServerKey: 'ssk' }, 'baseUrl'],
    ['an unparsable baseUrl', { ...base, baseUrl: 'api.example.test', secretServerKey: 'ssk' }, 'baseUrl'],
    ['an empty baseUrl', { ...base, baseUrl: '', secretServerKey: 'ssk' }, 'baseUrl'],
    ['a missing projectId', { baseUrl: BASE, secretServerKey: 'ssk' }, 'projectId'],
  ])('createServerApp refuses %s', (_name, options, argument) => {
    const error = (() => {
      try {
        createServerApp(options as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe(argument);
  });

  it('createServerApp sends the secret key and forUser adds the user token', async () => {
    const { fn, sent } = recordingFetch({ id: USER });
    const app = createServerApp({ ...base, secretServerKey: 'ssk_live', fetch: fn, clock });
    await app.getUser(USER);
    await app.forUser('user.jwt').getCurrentUser();
    expect(sent.map((s) => s.headers.get('x-stack-secret-server-key'))).toEqual(['ssk_live', 'ssk_live']);
    expect(sent.map((s) => s.headers.get('x-stack-access-token'))).toEqual([null, 'user.jwt']);
    expect(sent[1]!.url).toBe(`${BASE}/api/v1/users/me`);
    expect(() => app.forUser('undefined')).toThrow(InvalidArgumentError);
  });

  it('createAdminApp needs a credential and refuses a stringified undefined token', () => {
    expect(() => createAdminApp(base as never)).toThrow(InvalidArgumentError);
    expect(() => createAdminApp({ ...base, adminAccessToken: 'undefined' })).toThrow(InvalidArgumentError);
    expect(() => createAdminApp({ ...base, superSecretAdminKey: '' })).toThrow(InvalidArgumentError);
  });

  it('createAdminApp with an admin access token sends it instead of a key', async () => {
    const { fn, sent } = recordingFetch({ items: [], is_paginated: false });
    const app = createAdminApp({ ...base, adminAccessToken: 'admin.jwt', fetch: fn, clock });
    await app.listApiKeys();
    expect(sent[0]!.headers.get('x-stack-access-type')).toBe('admin');
    expect(sent[0]!.headers.get('x-stack-admin-access-token')).toBe('admin.jwt');
    expect(sent[0]!.headers.has('x-stack-super-secret-admin-key')).toBe(false);
  });
});
