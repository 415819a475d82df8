import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signInWithPassword, signUpAnonymously } from '../../protocol/endpoints/auth.js';
import { HttpStatusError, InvalidArgumentError, NetworkError } from '../../protocol/errors/errors.js';
import { isKnownError, KnownError } from '../../protocol/errors/knownError.js';
import { systemClock, type Clock } from '../../protocol/retry.js';
import { createServerApp } from '../../protocol/server.js';
import { signWithKey } from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

function demoApp(options: { clock?: Clock; fetch?: typeof fetch; baseUrl?: string } = {}) {
  const { demo } = emulator().projects;
  return createServerApp({
    baseUrl: options.baseUrl ?? emulator().url,
    projectId: demo.id,
    secretServerKey: demo.secretServerKey,
    ...options,
  });
}

async function demoUserToken(): Promise<{ accessToken: string; userId: string }> {
  const em = emulator();
  const { access_token, user_id } = await signInWithPassword(transportFor(em, 'client'), {
    email: em.demoUser!.email,
    password: em.demoUser!.password,
  });
  return { accessToken: access_token, userId: user_id };
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A clock `aheadMillis` in the future of the emulator's. */
function clockAhead(aheadMillis: number): Clock {
  return {
    ...systemClock,
    now: () => emulator().env.clock.now() + aheadMillis,
    sleep: async () => undefined,
    random: () => 0.5,
  };
}

describe('verifyAccessToken (authbroker/server)', () => {
  it('accepts a valid token of the project and says whose it is', async () => {
    const { accessToken, userId } = await demoUserToken();
    const verified = await demoApp().verifyAccessToken(accessToken);
    expect(verified.userId).toBe(userId);
    expect(verified.projectId).toBe(emulator().projects.demo.id);
    expect(verified.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(verified.expiresAtMillis).toBeGreaterThan(emulator().env.clock.now());
    expect([verified.isAnonymous, verified.isRestricted]).toEqual([false, false]);
  });

  it('refuses an expired token with ACCESS_TOKEN_EXPIRED and when it expired', async () => {
    const { accessToken } = await demoUserToken();
    const error = await rejectionOf(demoApp({ clock: clockAhead(11 * 60 * 1000) }).verifyAccessToken(accessToken));
    expect(isKnownError(error, 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(isKnownError(error, 'INVALID_ACCESS_TOKEN')).toBe(true);
    const details = (error as KnownError<'ACCESS_TOKEN_EXPIRED'>).details;
    expect(details.expired_at_millis).toBeGreaterThan(emulator().env.clock.now());
    expect((error as KnownError).status).toBe(401);
  });

  it("refuses another project's token with INVALID_PROJECT_FOR_ACCESS_TOKEN", async () => {
    const em = emulator();
    const { access_token } = await signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: em.adminUser.email,
      password: em.adminUser.password,
    });
    const error = await rejectionOf(demoApp().verifyAccessToken(access_token));
    expect(isKnownError(error, 'INVALID_PROJECT_FOR_ACCESS_TOKEN')).toBe(true);
  });

  it("refuses an anonymous user's token (audience <project>:anon) with ANONYMOUS_AUTHENTICATION_NOT_ALLOWED, as the service does without the allow header", async () => {
    const anonymous = await signUpAnonymously(transportFor(emulator(), 'client'));
    const error = await rejectionOf(demoApp().verifyAccessToken(anonymous.access_token));
    expect(isKnownError(error, 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED')).toBe(true);
  });

  it("accepts an anonymous user's token when allowed, with the anonymous users' keys (fetched only then), and says so", async () => {
    const anonymous = await signUpAnonymously(transportFor(emulator(), 'client'));
    const fetched: string[] = [];
    const app = demoApp({ fetch: (url, init) => (fetched.push(String(url)), fetch(url, init)) });
    const verified = await app.verifyAccessToken(anonymous.access_token, { allowAnonymous: true });
    expect(verified).toMatchObject({ userId: anonymous.user_id, isAnonymous: true, isRestricted: true });
    expect(fetched.map((url) => new URL(url).search)).toEqual(['?include_anonymous=true']);
    // An ordinary token goes on being checked against the plain key set.
    const { accessToken } = await demoUserToken();
    expect((await app.verifyAccessToken(accessToken, { allowAnonymous: true })).isAnonymous).toBe(false);
    expect(fetched.map((url) => new URL(url).search)).toEqual(['?include_anonymous=true', '']);
    // Restricted users may be allowed alone; anonymous ones are not then.
    expect(
      isKnownError(
        await rejectionOf(app.verifyAccessToken(anonymous.access_token, { allowRestricted: true })),
        'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED',
      ),
    ).toBe(true);
  });

  it("a token claiming the project's own audience, signed with the anonymous users' key, is refused even when they are allowed", async () => {
    const { accessToken } = await demoUserToken();
    const { anonymous } = emulator().env.store.project(emulator().projects.demo.id)!.audience_keys;
    const forged = await signWithKey(decodeJwt(accessToken), anonymous);
    for (const allow of [{}, { allowAnonymous: true }])
      expect(
        isKnownError(await rejectionOf(demoApp().verifyAccessToken(forged, allow)), 'UNPARSABLE_ACCESS_TOKEN'),
      ).toBe(true);
  });

  it("a restricted user's token (audience <project>:restricted) is refused with RESTRICTED_USER_NOT_ALLOWED and its reason, accepted when allowed", async () => {
    // The emulator makes no restricted users: the token is signed here with the project's restricted key, as the
    // service signs theirs.
    const { accessToken, userId } = await demoUserToken();
    const projectId = emulator().projects.demo.id;
    const { restricted } = emulator().env.store.project(projectId)!.audience_keys;
    const claims = decodeJwt(accessToken);
    const reason = { type: 'email_not_verified' };
    const token = await signWithKey(
      {
        ...claims,
        aud: `${projectId}:restricted`,
        iss: String(claims.iss).replace('/projects/', '/projects-restricted-users/'),
        is_restricted: true,
        restricted_reason: reason,
      },
      restricted,
    );
    const refusal = await rejectionOf(demoApp().verifyAccessToken(token));
    expect(isKnownError(refusal, 'RESTRICTED_USER_NOT_ALLOWED')).toBe(true);
    expect((refusal as KnownError).details).toMatchObject({ restricted_reason: reason });
    expect(await demoApp().verifyAccessToken(token, { allowRestricted: true })).toMatchObject({
      userId,
      isAnonymous: false,
      isRestricted: true,
    });
    // Its claims must say it is restricted, as the service requires.
    const unsaid = await signWithKey(
      {
        ...claims,
        aud: `${projectId}:restricted`,
        iss: String(claims.iss).replace('/projects/', '/projects-restricted-users/'),
      },
      restricted,
    );
    expect(
      isKnownError(
        await rejectionOf(demoApp().verifyAccessToken(unsaid, { allowRestricted: true })),
        'UNPARSABLE_ACCESS_TOKEN',
      ),
    ).toBe(true);
  });

  it('refuses an allowance that is not an object of booleans with InvalidArgumentError', async () => {
    const { accessToken } = await demoUserToken();
    await expect(demoApp().verifyAccessToken(accessToken, { allowAnonymous: 'yes' } as never)).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(demoApp().verifyAccessToken(accessToken, 'all' as never)).rejects.toThrow(/allow must be an object/);
  });

  it.each([
    ['garbage', () => Promise.resolve('garbage')],
    ['three dots of nothing', () => Promise.resolve('a.b.c')],
    [
      'a token with a forged signature',
      async () => {
        const [header, payload, signature] = (await demoUserToken()).accessToken.split('.');
        return `${header}.${payload}.${signature!.slice(0, -4)}${signature!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
      },
    ],
    [
      'a token whose claims were changed',
      async () => {
        const [header, payload, signature] = (await demoUserToken()).accessToken.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
        const forged = Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString(
          'base64url',
        );
        return `${header}.${forged}.${signature}`;
      },
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const payload = Buffer.from(
          JSON.stringify({
            sub: 'x',
            aud: emulator().projects.demo.id,
            iss: 'https://access-token.jwt-signature.stack-auth.com',
            exp: 9e9,
          }),
        ).toString('base64url');
        return `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
      },
    ],
  ])('refuses %s with UNPARSABLE_ACCESS_TOKEN', async (_name, token) => {
    const error = await rejectionOf(demoApp().verifyAccessToken(await token()));
    expect(error).toBeInstanceOf(KnownError);
    expect(isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN')).toBe(true);
    expect((error as Error).message).toBe('Access token is not parsable.');
  });

  it('says when the keys cannot be fetched, rather than blaming the token', async () => {
    const { accessToken } = await demoUserToken();
    const unreachable = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    expect(await rejectionOf(demoApp({ fetch: unreachable }).verifyAccessToken(accessToken))).toBeInstanceOf(
      NetworkError,
    );
    const wrongPlace = await rejectionOf(
      demoApp({ baseUrl: `${emulator().url}/nowhere` }).verifyAccessToken(accessToken),
    );
    expect(wrongPlace).toBeInstanceOf(HttpStatusError);
    expect((wrongPlace as HttpStatusError).status).toBe(404);
  });
});
