/**
 * `verifyRequest` of authbroker/server: a request to the app's own server, with its token in any
 * form a Stack client sends one, checked against the emulator's keys. The official SDK's own header
 * is read, and the SDK's server reads ours.
 */
import { describe, expect, it } from 'vitest';
import { StackClientApp, StackServerApp } from 'stackframe-js-newest';
import { authHeadersFor } from '../../protocol/authHeaders.js';
import { signInWithPassword } from '../../protocol/endpoints/auth.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { accessTokenOfRequest } from '../../protocol/server.js';
import { demoServerApp, transportFor, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

async function demoUser(): Promise<{ accessToken: string; refreshToken: string; userId: string }> {
  const em = emulator();
  const answer = await signInWithPassword(transportFor(em, 'client'), {
    email: em.demoUser!.email,
    password: em.demoUser!.password,
  });
  return { accessToken: answer.access_token, refreshToken: answer.refresh_token, userId: answer.user_id };
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function unparsable(headers: Record<string, string | string[]>): string {
  try {
    accessTokenOfRequest({ headers });
  } catch (error) {
    return isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN') ? error.message : `another error: ${String(error)}`;
  }
  return 'accepted';
}

describe('verifyRequest', () => {
  it('reads the token from every form a Stack client sends, and checks it', async () => {
    const { accessToken, refreshToken, userId } = await demoUser();
    const app = demoServerApp(emulator());
    const json = JSON.stringify({ accessToken, refreshToken });
    const forms: Array<[string, Record<string, string>]> = [
      ["authbroker's getAuthHeaders()", { ...authHeadersFor(accessToken) }],
      ["the SDK's getAuthHeaders()", { 'X-Stack-Auth': json }],
      ["the SDK's getAuthorizationHeader()", { authorization: `Bearer stackauth_${base64(json)}` }],
      ['a bare bearer token', { Authorization: `Bearer ${accessToken}` }],
      ['x-stack-access-token', { 'x-stack-access-token': accessToken }],
    ];
    for (const [form, headers] of forms) {
      expect({ form, user: (await app.verifyRequest({ headers }))?.userId }).toEqual({ form, user: userId });
      expect({ form, user: (await app.verifyRequest(new Request('http://app.test/', { headers })))?.userId }).toEqual({
        form,
        user: userId,
      });
    }
  });

  it('is null for a request without a user, and refuses what it cannot read', async () => {
    const app = demoServerApp(emulator());
    expect(await app.verifyRequest({ headers: {} })).toBeNull();
    expect(await app.verifyRequest({ headers: authHeadersFor(null) })).toBeNull();
    expect(await app.verifyRequest(new Request('http://app.test/'))).toBeNull();

    expect(unparsable({ 'x-stack-auth': 'not json' })).toMatch(/x-stack-auth header is not JSON/);
    expect(unparsable({ 'x-stack-auth': '"a string"' })).toMatch(/not a JSON object/);
    expect(unparsable({ 'x-stack-auth': '{"accessToken":42}' })).toMatch(/accessToken is not a string/);
    expect(unparsable({ 'x-stack-auth': `{"accessToken":"${'a'.repeat(40_000)}"}` })).toMatch(/characters long/);
    expect(unparsable({ authorization: 'Basic dXNlcjpwYXNz' })).toMatch(/not a Bearer credential/);
    expect(unparsable({ authorization: 'Bearer stackauth_%%%' })).toMatch(/not base64/);
    expect(unparsable({ 'x-stack-auth': ['{"accessToken":"a"}', '{"accessToken":"b"}'] })).toMatch(/more than once/);
    // A token that is read but is no token of the project is refused as verifyAccessToken refuses it.
    await expect(app.verifyRequest({ headers: { authorization: 'Bearer not-a-jwt' } })).rejects.toSatisfy((error) =>
      isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN'),
    );
  });

  it("the official SDK's header is read here, and its server reads ours", async () => {
    const em = emulator();
    const keys = em.projects.demo;
    const options = { baseUrl: em.url, projectId: keys.id, publishableClientKey: keys.publishableClientKey };
    const sdkClient = new StackClientApp({ ...options, tokenStore: 'memory' });
    await sdkClient.signInWithCredential({ email: em.demoUser!.email, password: em.demoUser!.password });
    const sdkHeaders = await sdkClient.getAuthHeaders();
    const verified = await demoServerApp(em).verifyRequest({ headers: sdkHeaders });
    const sdkUser = await sdkClient.getUser();
    expect(verified?.userId).toBe(sdkUser?.id);

    const { accessToken, userId } = await demoUser();
    const sdkServer = new StackServerApp({ ...options, secretServerKey: keys.secretServerKey, tokenStore: 'memory' });
    const read = await sdkServer.getUser({ tokenStore: { headers: authHeadersFor(accessToken) } });
    expect(read?.id).toBe(userId);
  });
});
