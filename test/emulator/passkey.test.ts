import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { endpoints, PASSKEY_RP_ID_PLACEHOLDER } from '../../protocol/index.js';
import type { Json } from '../../protocol/resources/common.js';
import {
  advanceClock,
  api,
  demoProject,
  expectKnownError,
  signUp,
  userTransport,
  withDemoConfig,
} from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const LOCAL_ORIGIN = 'http://localhost:5173';

// --- A tiny CBOR encoder: just what an attestation object and a COSE key need. -------------------
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
}
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (data: Uint8Array | string) => Buffer.from(data).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const counterBytes = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);

/** A software authenticator: one P-256 credential, attestation `none`. */
class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly coseKey: Buffer;
  private counter = 0;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    this.coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  register(challenge: string, origin: string, rpId = new URL(origin).hostname): Json {
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge, origin, crossOrigin: false });
    const idLength = Buffer.from([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]),
      counterBytes(this.counter),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.coseKey,
    ]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  authenticate(challenge: string, origin: string, options: { rpId?: string; corruptSignature?: boolean } = {}): Json {
    this.counter += 1;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge, origin, crossOrigin: false });
    const authData = Buffer.concat([
      sha256(options.rpId ?? new URL(origin).hostname),
      Buffer.from([0x05]),
      counterBytes(this.counter),
    ]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    if (options.corruptSignature)
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0xff, signature.length - 1);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}

/** A signed-up user with a registered passkey. */
async function userWithPasskey(origin = LOCAL_ORIGIN) {
  const em = emulator();
  const user = await signUp(em);
  const asUser = userTransport(em, user);
  const authenticator = new SoftAuthenticator();
  const { options_json, code } = await endpoints.initiatePasskeyRegistration(asUser);
  const registered = await endpoints.registerPasskey(asUser, {
    credential: authenticator.register(options_json.challenge, origin),
    code,
  });
  expect(registered).toEqual({ user_handle: authenticator.id });
  return { user, authenticator };
}

async function signInChallenge() {
  return endpoints.initiatePasskeyAuthentication(transportFor(emulator(), 'client'));
}

const signIn = (authentication_response: Json, code: string) =>
  api(emulator(), 'POST', '/auth/passkey/sign-in', { body: { authentication_response, code } });

describe('passkey registration', () => {
  it('offers the exact creation options, with the placeholder RP id', async () => {
    const em = emulator();
    const user = await signUp(em);
    const { options_json, code } = await endpoints.initiatePasskeyRegistration(userTransport(em, user));
    expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
    expect(options_json).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      rp: { name: 'Authbroker Demo', id: PASSKEY_RP_ID_PLACEHOLDER },
      user: { id: b64url(user.user_id), name: user.email, displayName: user.email },
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      timeout: 60000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      extensions: { credProps: true },
    });
  });

  it('registers a software authenticator from localhost and enables passkey sign-in', async () => {
    const em = emulator();
    const { user } = await userWithPasskey();
    expect((await endpoints.getCurrentUser(userTransport(em, user)))?.passkey_auth_enabled).toBe(true);
  });

  it('refuses an origin that is neither localhost nor exactly a trusted domain', async () => {
    const em = emulator();
    const user = await signUp(em);
    const asUser = userTransport(em, user);
    const register = async (origin: string) => {
      const { options_json, code } = await endpoints.initiatePasskeyRegistration(asUser);
      return api(em, 'POST', '/auth/passkey/register', {
        accessToken: user.access_token,
        body: { credential: new SoftAuthenticator().register(options_json.challenge, origin), code },
      });
    };
    const evil = await register('https://evil.example.com');
    expectKnownError(evil, 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect((evil.body as { error: string }).error).toBe(
      'Passkey registration failed because the origin is not allowed',
    );
    await withDemoConfig(
      em,
      { domains: [{ domain: 'https://app.example.com', handler_path: '/handler' }] },
      async () => {
        expect((await register('https://app.example.com')).status).toBe(200);
        expectKnownError(await register('https://app.example.com:8443'), 'PASSKEY_AUTHENTICATION_FAILED', 400);
      },
    );
    await withDemoConfig(em, { allow_localhost: false }, async () => {
      const local = await register(LOCAL_ORIGIN);
      expect((local.body as { error: string }).error).toBe(
        'Passkey registration failed because localhost is not allowed',
      );
    });
  });

  it('answers its errors: no user, used or foreign code, failed verification, disabled', async () => {
    const em = emulator();
    expectKnownError(
      await api(em, 'POST', '/auth/passkey/initiate-passkey-registration', { body: {} }),
      'SCHEMA_ERROR',
      400,
    );
    const user = await signUp(em);
    const asUser = userTransport(em, user);
    const { options_json, code } = await endpoints.initiatePasskeyRegistration(asUser);
    const credential = new SoftAuthenticator().register(options_json.challenge, LOCAL_ORIGIN);
    // Upstream answers a 500 without a user; the emulator names what is missing (the code is spent).
    expectKnownError(
      await api(em, 'POST', '/auth/passkey/register', { body: { credential, code } }),
      'USER_AUTHENTICATION_REQUIRED',
      401,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/passkey/register', { accessToken: user.access_token, body: { credential, code } }),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
    const other = await endpoints.initiatePasskeyRegistration(asUser);
    const mismatch = await api(em, 'POST', '/auth/passkey/register', {
      accessToken: user.access_token,
      body: { credential, code: other.code },
    });
    expectKnownError(mismatch, 'PASSKEY_REGISTRATION_FAILED', 400);
    const late = await endpoints.initiatePasskeyRegistration(asUser);
    await advanceClock(em, 66_000);
    const expired = await api(em, 'POST', '/auth/passkey/register', {
      accessToken: user.access_token,
      body: {
        credential: new SoftAuthenticator().register(late.options_json.challenge, LOCAL_ORIGIN),
        code: late.code,
      },
    });
    expectKnownError(expired, 'VERIFICATION_CODE_EXPIRED', 400);
    const fresh = await signUp(em);
    await withDemoConfig(em, { passkey_enabled: false }, async () => {
      expectKnownError(
        await api(em, 'POST', '/auth/passkey/initiate-passkey-registration', {
          accessToken: fresh.access_token,
          body: {},
        }),
        'PASSKEY_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });
});

describe('passkey sign-in', () => {
  it('offers the exact request options and signs in, updating the counter', async () => {
    const em = emulator();
    const { user, authenticator } = await userWithPasskey();
    const { options_json, code } = await signInChallenge();
    expect(options_json).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      allowCredentials: [],
      timeout: 60000,
      userVerification: 'preferred',
      rpId: PASSKEY_RP_ID_PLACEHOLDER,
    });
    const result = await endpoints.signInWithPasskey(transportFor(em, 'client'), {
      authentication_response: authenticator.authenticate(options_json.challenge, LOCAL_ORIGIN),
      code,
    });
    expect(result).toMatchObject({ user_id: user.user_id, is_new_user: false });
    expect(Object.keys(result).sort()).toEqual(['access_token', 'is_new_user', 'refresh_token', 'user_id']);
    expect(demoProject(em).users[user.user_id]!.passkey!.counter).toBe(1);
    const second = await signInChallenge();
    expect(
      (await signIn(authenticator.authenticate(second.options_json.challenge, LOCAL_ORIGIN), second.code)).status,
    ).toBe(200);
    expect(demoProject(em).users[user.user_id]!.passkey!.counter).toBe(2);
    // The challenge is single-use.
    expectKnownError(
      await signIn(authenticator.authenticate(second.options_json.challenge, LOCAL_ORIGIN), second.code),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
  });

  it('an unknown credential is PASSKEY_AUTHENTICATION_FAILED "Passkey not found"', async () => {
    const { options_json, code } = await signInChallenge();
    const response = await signIn(new SoftAuthenticator().authenticate(options_json.challenge, LOCAL_ORIGIN), code);
    expectKnownError(response, 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect((response.body as { error: string }).error).toBe('Passkey not found');
  });

  it('refuses a bad signature, a foreign challenge and a wrong origin', async () => {
    const em = emulator();
    const { authenticator } = await userWithPasskey();
    const first = await signInChallenge();
    const bad = await signIn(
      authenticator.authenticate(first.options_json.challenge, LOCAL_ORIGIN, { corruptSignature: true }),
      first.code,
    );
    expectKnownError(bad, 'PASSKEY_AUTHENTICATION_FAILED', 400);
    const [a, b] = [await signInChallenge(), await signInChallenge()];
    expectKnownError(
      await signIn(authenticator.authenticate(a.options_json.challenge, LOCAL_ORIGIN), b.code),
      'PASSKEY_AUTHENTICATION_FAILED',
      400,
    );
    const c = await signInChallenge();
    const evil = await signIn(authenticator.authenticate(c.options_json.challenge, 'https://evil.example.com'), c.code);
    expect((evil.body as { error: string }).error).toBe(
      'Passkey authentication failed because the origin is not allowed',
    );
    await withDemoConfig(em, { allow_localhost: false }, async () => {
      const d = await signInChallenge();
      const local = await signIn(authenticator.authenticate(d.options_json.challenge, LOCAL_ORIGIN), d.code);
      expect((local.body as { error: string }).error).toBe(
        'Passkey authentication failed because localhost is not allowed',
      );
    });
  });

  it('a passkey registered on a trusted domain signs in there', async () => {
    const em = emulator();
    await withDemoConfig(
      em,
      { domains: [{ domain: 'https://app.example.com', handler_path: '/handler' }] },
      async () => {
        const { user, authenticator } = await userWithPasskey('https://app.example.com');
        const { options_json, code } = await signInChallenge();
        const result = await signIn(
          authenticator.authenticate(options_json.challenge, 'https://app.example.com'),
          code,
        );
        expect(result.body).toMatchObject({ user_id: user.user_id, is_new_user: false });
        // Signed for another RP id than the origin's hostname: refused.
        const again = await signInChallenge();
        expectKnownError(
          await signIn(
            authenticator.authenticate(again.options_json.challenge, 'https://app.example.com', {
              rpId: 'example.com',
            }),
            again.code,
          ),
          'PASSKEY_AUTHENTICATION_FAILED',
          400,
        );
      },
    );
  });

  it('re-registering replaces the passkey; TOTP users must pass the second factor', async () => {
    const em = emulator();
    const { user, authenticator: old } = await userWithPasskey();
    const asUser = userTransport(em, user);
    const replacement = new SoftAuthenticator();
    const reg = await endpoints.initiatePasskeyRegistration(asUser);
    await endpoints.registerPasskey(asUser, {
      credential: replacement.register(reg.options_json.challenge, LOCAL_ORIGIN),
      code: reg.code,
    });
    const stale = await signInChallenge();
    expect(
      (
        (await signIn(old.authenticate(stale.options_json.challenge, LOCAL_ORIGIN), stale.code)).body as {
          error: string;
        }
      ).error,
    ).toBe('Passkey not found');
    await endpoints.updateCurrentUser(asUser, { totp_secret_base64: randomBytes(20).toString('base64') });
    const gated = await signInChallenge();
    const response = await signIn(replacement.authenticate(gated.options_json.challenge, LOCAL_ORIGIN), gated.code);
    expectKnownError(response, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400);
    expect((response.body as { details: { attempt_code: string } }).details.attempt_code).toHaveLength(45);
  });

  it('sign-in challenges expire after 65 seconds; disabled passkeys are refused', async () => {
    const em = emulator();
    const { authenticator } = await userWithPasskey();
    const { options_json, code } = await signInChallenge();
    await advanceClock(em, 66_000);
    expectKnownError(
      await signIn(authenticator.authenticate(options_json.challenge, LOCAL_ORIGIN), code),
      'VERIFICATION_CODE_EXPIRED',
      400,
    );
    await withDemoConfig(em, { passkey_enabled: false }, async () => {
      expectKnownError(
        await api(em, 'POST', '/auth/passkey/initiate-passkey-authentication', { body: {} }),
        'PASSKEY_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });
});
