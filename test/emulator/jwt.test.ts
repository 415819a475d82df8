import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { refreshAccessToken } from '../../protocol/tokenGrant.js';
import { advanceClock, api, expectKnownError, expectPlainError, signUp } from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
/**
 * Today's issuer: the service's API URL and the project (v2.7's was https://access-token.jwt-signature.stack-auth.com).
 */
const issuerOf = (url: string, projectId: string) => `${url}/api/v1/projects/${projectId}`;

const asClient = (accessToken: string) => api(emulator(), 'GET', '/users/me', { accessToken });

function tamper(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('access tokens', () => {
  it("verify against the project JWKS with the service's claims today (snake_case; v2.7's branchId and refreshTokenId gone)", async () => {
    const em = emulator();
    const user = await signUp(em);
    const jwks = createRemoteJWKSet(new URL(`${em.url}/api/v1/projects/${em.projects.demo.id}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(user.access_token, jwks, {
      issuer: issuerOf(em.url, em.projects.demo.id),
      audience: em.projects.demo.id,
      algorithms: ['ES256'],
      currentDate: new Date(decodeJwt(user.access_token).iat! * 1000),
    });
    const sessionId = payload.refresh_token_id as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const record = em.env.store.project(em.projects.demo.id)!.users[user.user_id]!;
    expect(payload).toEqual({
      iss: issuerOf(em.url, em.projects.demo.id),
      aud: em.projects.demo.id,
      sub: user.user_id,
      iat: expect.any(Number),
      exp: expect.any(Number),
      // What @stackframe/js 2.8.41 and later require (our client reads none of them).
      project_id: em.projects.demo.id,
      branch_id: 'main',
      refresh_token_id: sessionId,
      role: 'authenticated',
      name: null,
      email: user.email,
      email_verified: false,
      selected_team_id: record.selected_team_id,
      signed_up_at: Math.floor(record.signed_up_at_millis / 1000),
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
    });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(Object.keys(protectedHeader).sort()).toEqual(['alg', 'kid']);
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) });
  });

  it('carry the user as they are when the token is made', async () => {
    const em = emulator();
    const user = await signUp(em);
    const client = transportFor(em, 'client', { accessToken: user.access_token });
    await endpoints.updateCurrentUser(client, { display_name: 'Renamed' });
    const keys = em.projects.demo;
    const { access_token } = await refreshAccessToken(
      { baseUrl: em.url, projectId: keys.id, publishableClientKey: keys.publishableClientKey },
      user.refresh_token,
    );
    expect(decodeJwt(access_token)).toMatchObject({
      name: 'Renamed',
      email: user.email,
      refresh_token_id: decodeJwt(user.access_token).refresh_token_id,
    });
  });

  it('the JWKS has two ES256 P-256 keys, the first signing; unknown projects are a plain 404', async () => {
    const em = emulator();
    const jwks = await endpoints.getProjectJwks(em.url, em.projects.demo.id);
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[1]).toMatchObject({ kty: 'EC', alg: 'ES256', crv: 'P-256' });
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'x', 'y']);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', alg: 'ES256', crv: 'P-256' });
    const user = await signUp(em);
    expect(decodeProtectedHeader(user.access_token).kid).toBe(jwks.keys[0]!.kid);
    expectPlainError(
      await api(em, 'GET', '/projects/00000000-0000-4000-8000-000000000000/.well-known/jwks.json', { access: null }),
      404,
      'Project not found',
    );
  });

  it('refuses alg none, another key, tampered claims and garbage as UNPARSABLE_ACCESS_TOKEN', async () => {
    const em = emulator();
    const user = await signUp(em);
    const claims = decodeJwt(user.access_token);
    const unsecured = new UnsecuredJWT({ ...claims }).encode();
    expectKnownError(await asClient(unsecured), 'UNPARSABLE_ACCESS_TOKEN', 401);

    // Same kid and claims, signed with a key the project never published.
    const { privateKey } = await generateKeyPair('ES256');
    const kid = decodeProtectedHeader(user.access_token).kid!;
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
    expectKnownError(await asClient(forged), 'UNPARSABLE_ACCESS_TOKEN', 401);

    expectKnownError(
      await asClient(tamper(user.access_token, (c) => (c.sub = '00000000-0000-4000-8000-000000000000'))),
      'UNPARSABLE_ACCESS_TOKEN',
      401,
    );
    expectKnownError(
      await asClient(tamper(user.access_token, (c) => (c.exp = (c.exp as number) + 3600))),
      'UNPARSABLE_ACCESS_TOKEN',
      401,
    );
    expectKnownError(await asClient('not.a.token'), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expectKnownError(await asClient(''), 'UNPARSABLE_ACCESS_TOKEN', 401);
    // The untouched token still works.
    expect((await asClient(user.access_token)).status).toBe(200);
  });

  it('refuses another project’s token with INVALID_PROJECT_FOR_ACCESS_TOKEN', async () => {
    const em = emulator();
    const admin = await endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: 'admin@authbroker.dev',
      password: 'admin-password',
    });
    expectKnownError(await asClient(admin.access_token), 'INVALID_PROJECT_FOR_ACCESS_TOKEN', 401);
    // Checked even without an access type, as long as a project id is given.
    const noType = await api(em, 'GET', '', {
      access: null,
      accessToken: admin.access_token,
      headers: { 'x-stack-project-id': em.projects.demo.id },
    });
    expectKnownError(noType, 'INVALID_PROJECT_FOR_ACCESS_TOKEN', 401);
    // Without a project id the token is not looked at.
    expect((await api(em, 'GET', '', { access: null, accessToken: 'garbage' })).status).toBe(200);
  });

  it('expires after 10 minutes of emulator time with ACCESS_TOKEN_EXPIRED', async () => {
    const em = emulator();
    const user = await signUp(em);
    const exp = decodeJwt(user.access_token).exp!;
    await advanceClock(em, 10 * 60 * 1000 + 1000);
    const expired = await asClient(user.access_token);
    expectKnownError(expired, 'ACCESS_TOKEN_EXPIRED', 401);
    const body = expired.body as { details: { expired_at_millis: number }; error: string };
    expect(body.details.expired_at_millis).toBe(exp * 1000);
    expect(body.error).toBe(
      `Access token has expired. Please refresh it and try again. (The access token expired at ${new Date(exp * 1000).toISOString()}.)`,
    );
  });

  it('a token of a deleted user is valid but names no user', async () => {
    const em = emulator();
    const user = await signUp(em);
    await api(em, 'DELETE', `/users/${user.user_id}`, { access: 'server' });
    expectKnownError(await asClient(user.access_token), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
  });
});
