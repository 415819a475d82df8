import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBrokerClient, isKnownError, KnownError, passkeysAvailable } from '../../client/index.js';
import { describeError } from '../../client/messages.js';
import { usePasskeysAvailable } from '../../client/react/index.js';
import { PASSKEY_RP_ID_PLACEHOLDER } from '../../protocol/resources/passkey.js';
import type { Json } from '../../protocol/resources/common.js';
import { useEmulator } from '../support/emulator.js';
import { createUser, demoOptions, newClient, resetBrowser } from './react/helpers.js';

/** Which modules were loaded, and the browser ceremonies the test plays. */
const loaded = vi.hoisted(() => ({ passkeysModule: 0, webAuthnLibrary: 0 }));
const ceremonies = vi.hoisted(() => ({ startRegistration: vi.fn(), startAuthentication: vi.fn() }));

vi.mock('@simplewebauthn/browser', () => {
  loaded.webAuthnLibrary += 1;
  return { startRegistration: ceremonies.startRegistration, startAuthentication: ceremonies.startAuthentication };
});
vi.mock('../../client/passkeys/passkeys.js', async (importOriginal) => {
  loaded.passkeysModule += 1;
  return importOriginal();
});

const emulator = useEmulator();
beforeEach(() => {
  ceremonies.startRegistration.mockReset();
  ceremonies.startAuthentication.mockReset();
  // jsdom has no WebAuthn; these tests play a browser that has (the ceremonies above stand in for it).
  vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
});
afterEach(resetBrowser);

// A software authenticator (attestation "none", one P-256 key), so the emulator verifies for real.
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
const head = (major: number, n: number) =>
  n < 24
    ? Buffer.from([(major << 5) | n])
    : n < 256
      ? Buffer.from([(major << 5) | 24, n])
      : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  // Not `instanceof Uint8Array`: jsdom's Uint8Array is not Node's, which Buffer extends.
  if (!(value instanceof Map)) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}
const b64url = (data: Uint8Array | string) => Buffer.from(data).toString('base64url');
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();

class SoftAuthenticator {
  private readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly coseKey: Buffer;
  private counter = 0;
  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    this.privateKey = privateKey;
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
  register(challenge: string, rpId: string): Json {
    const id = b64url(this.credentialId);
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge,
      origin: location.origin,
      crossOrigin: false,
    });
    const counter = Buffer.alloc(4);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]),
      counter,
      Buffer.alloc(16),
      Buffer.from([0, this.credentialId.length]),
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
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }
  authenticate(challenge: string, rpId: string): Json {
    this.counter += 1;
    const id = b64url(this.credentialId);
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.get',
      challenge,
      origin: location.origin,
      crossOrigin: false,
    });
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x05]), counter]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id,
      rawId: id,
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

/** The JSON bodies the broker posted to a path. */
function recordPosts(): (path: string) => unknown[] {
  const posts: Array<{ path: string; body: unknown }> = [];
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST')
      posts.push({
        path: new URL(request.url).pathname,
        body: JSON.parse((await request.clone().text()) || 'null') as unknown,
      });
    return original(input, init);
  });
  return (path) => posts.filter((p) => p.path === `/api/v1${path}`).map((p) => p.body);
}

async function signedIn() {
  const posted = recordPosts();
  const account = await createUser(emulator());
  const client = newClient(emulator());
  await client.signInWithPassword({ email: account.email, password: account.password });
  return { client, account, posted };
}

describe('passkeys', () => {
  it('the passkey module and @simplewebauthn/browser load on first use only', async () => {
    const client = createBrokerClient(demoOptions(emulator()));
    await client.connect();
    expect(loaded).toEqual({ passkeysModule: 0, webAuthnLibrary: 0 });
    ceremonies.startAuthentication.mockRejectedValue(new DOMException('cancelled', 'NotAllowedError'));
    await expect(client.signInWithPasskey()).rejects.toBeInstanceOf(KnownError);
    expect(loaded).toEqual({ passkeysModule: 1, webAuthnLibrary: 1 });
    client.close();
  });

  it('registration: the placeholder RP id becomes the page’s hostname, and the credential goes back with the code', async () => {
    const { client, account, posted } = await signedIn();
    const authenticator = new SoftAuthenticator();
    ceremonies.startRegistration.mockImplementation(
      async ({ optionsJSON }: { optionsJSON: { challenge: string; rp: { id: string } } }) =>
        authenticator.register(optionsJSON.challenge, optionsJSON.rp.id),
    );
    await client.registerPasskey();

    const { optionsJSON } = ceremonies.startRegistration.mock.calls[0]![0] as {
      optionsJSON: { rp: { id: string; name: string }; user: { name: string }; challenge: string };
    };
    expect(optionsJSON.rp.id).toBe(location.hostname);
    expect(optionsJSON.rp.id).not.toBe(PASSKEY_RP_ID_PLACEHOLDER);
    expect(optionsJSON.rp.name).toBe('Authbroker Demo');
    expect(optionsJSON.user.name).toBe(account.email);
    const [register] = posted('/auth/passkey/register') as Array<{ credential: Json; code: string }>;
    expect(register!.credential).toEqual(await ceremonies.startRegistration.mock.results[0]!.value);
    expect(register!.code).toMatch(/^[0-9a-z]{45}$/);
    expect((await client.read({ kind: 'currentUser' }))?.passkeyAuthEnabled).toBe(true);

    // Then sign in with it: the request options' rpId is replaced the same way.
    await client.signOut();
    ceremonies.startAuthentication.mockImplementation(
      async ({ optionsJSON }: { optionsJSON: { challenge: string; rpId: string } }) =>
        authenticator.authenticate(optionsJSON.challenge, optionsJSON.rpId),
    );
    await expect(client.signInWithPasskey()).resolves.toMatchObject({ status: 'signed-in', userId: account.id });
    expect(
      (ceremonies.startAuthentication.mock.calls[0]![0] as { optionsJSON: { rpId: string } }).optionsJSON.rpId,
    ).toBe(location.hostname);
    const [signIn] = posted('/auth/passkey/sign-in') as Array<{ authentication_response: Json; code: string }>;
    expect(signIn!.authentication_response).toEqual(await ceremonies.startAuthentication.mock.results[0]!.value);
    expect(signIn!.code).toMatch(/^[0-9a-z]{45}$/);
  });

  it('a browser NotAllowedError (as @simplewebauthn/browser passes it on) is KnownError PASSKEY_WEBAUTHN_ERROR, and nothing is sent', async () => {
    const { client, posted } = await signedIn();
    const { WebAuthnError } =
      await vi.importActual<typeof import('@simplewebauthn/browser')>('@simplewebauthn/browser');
    const cause = new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError');
    ceremonies.startRegistration.mockRejectedValue(
      new WebAuthnError({ message: cause.message, code: 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY', cause }),
    );
    const error = await client.registerPasskey().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KnownError);
    expect(isKnownError(error, 'PASSKEY_WEBAUTHN_ERROR')).toBe(true);
    if (!isKnownError(error, 'PASSKEY_WEBAUTHN_ERROR')) throw error;
    expect(error.details).toEqual({ message: cause.message, code: 'NotAllowedError' });
    expect(error.message).toBe(cause.message);
    expect(posted('/auth/passkey/register')).toEqual([]);
    expect((await client.read({ kind: 'currentUser' }))?.passkeyAuthEnabled).toBe(false);
  });

  it.each([
    ['a bare DOMException', () => new DOMException('cancelled', 'NotAllowedError'), 'NotAllowedError'],
    [
      'a library code that says more than the name',
      async () => {
        const { WebAuthnError } =
          await vi.importActual<typeof import('@simplewebauthn/browser')>('@simplewebauthn/browser');
        return new WebAuthnError({
          message: 'bad rp id',
          code: 'ERROR_INVALID_RP_ID',
          cause: new DOMException('bad rp id', 'SecurityError'),
        });
      },
      'ERROR_INVALID_RP_ID',
    ],
  ])('sign-in refused with %s: details.code is a string that names it', async (_, make, code) => {
    const client = newClient(emulator());
    ceremonies.startAuthentication.mockRejectedValue(await make());
    const error = await client.signInWithPasskey().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'KnownError', code: 'PASSKEY_WEBAUTHN_ERROR', details: { code } });
  });
});

describe('a browser without WebAuthn (WebKitGTK, some WebViews)', () => {
  beforeEach(() => {
    vi.stubGlobal('PublicKeyCredential', undefined);
  });

  it('says so: passkeysAvailable() and client.passkeysAvailable are false, and so is the hook', () => {
    expect(passkeysAvailable()).toBe(false);
    expect(newClient(emulator()).passkeysAvailable).toBe(false);
    expect(renderHook(() => usePasskeysAvailable()).result.current).toBe(false);
  });

  it('a passkey ceremony fails at once with PASSKEYS_UNAVAILABLE and a sentence for people; nothing is asked of the service', async () => {
    const { client, posted } = await signedIn();
    for (const ceremony of [() => client.signInWithPasskey(), () => client.registerPasskey()]) {
      const error = await ceremony().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: 'ClientError', code: 'PASSKEYS_UNAVAILABLE' });
      expect(describeError(error)).toBe('Passkeys are not available in this browser. Please sign in another way.');
    }
    expect([
      ...posted('/auth/passkey/initiate-passkey-authentication'),
      ...posted('/auth/passkey/initiate-passkey-registration'),
    ]).toEqual([]);
    expect(ceremonies.startAuthentication).not.toHaveBeenCalled();
    expect(ceremonies.startRegistration).not.toHaveBeenCalled();
  });

  it('every other way to sign in still works: the password, here', async () => {
    const account = await createUser(emulator());
    const client = newClient(emulator());
    await expect(
      client.signInWithPassword({ email: account.email, password: account.password }),
    ).resolves.toMatchObject({ status: 'signed-in', userId: account.id });
  });
});

describe('a browser with WebAuthn', () => {
  it('says so, the hook too', () => {
    vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
    expect(passkeysAvailable()).toBe(true);
    expect(newClient(emulator()).passkeysAvailable).toBe(true);
    expect(renderHook(() => usePasskeysAvailable()).result.current).toBe(true);
  });
});
