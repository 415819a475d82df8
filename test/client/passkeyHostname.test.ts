/**
 * `registerPasskey({ hostname })` and `signInWithPasskey({ hostname })`: the relying party the
 * browser is asked for, the page's host name unless given; one no browser would take is refused
 * before the broker or the service is asked anything.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, isKnownError } from '../../client/index.js';
import { useEmulator } from '../support/emulator.js';
import { createUser, newClient, resetBrowser } from './react/helpers.js';

const ceremonies = vi.hoisted(() => ({ startRegistration: vi.fn(), startAuthentication: vi.fn() }));
vi.mock('@simplewebauthn/browser', () => ceremonies);

const emulator = useEmulator();
beforeEach(() => {
  ceremonies.startRegistration.mockReset().mockRejectedValue(new DOMException('cancelled', 'NotAllowedError'));
  ceremonies.startAuthentication.mockReset().mockRejectedValue(new DOMException('cancelled', 'NotAllowedError'));
  vi.stubGlobal('PublicKeyCredential', class PublicKeyCredential {});
});
afterEach(resetBrowser);

/** The `fetch` calls the client's broker made to a path. */
function countCalls(path: string): () => number {
  const original = globalThis.fetch;
  let calls = 0;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    if (new URL(new Request(input, init).url).pathname === `/api/v1${path}`) calls += 1;
    return original(input, init);
  });
  return () => calls;
}

async function signedInClient() {
  const account = await createUser(emulator());
  const client = newClient(emulator());
  await client.signInWithPassword({ email: account.email, password: account.password });
  return client;
}

const rpOfRegistration = () =>
  (ceremonies.startRegistration.mock.calls.at(-1)![0] as { optionsJSON: { rp: { id: string } } }).optionsJSON.rp.id;
const rpOfSignIn = () =>
  (ceremonies.startAuthentication.mock.calls.at(-1)![0] as { optionsJSON: { rpId: string } }).optionsJSON.rpId;

describe('passkeys for a host name', () => {
  it('asks the browser for the host name given, the page’s own by default', async () => {
    const client = await signedInClient();
    const cancelled = (error: unknown) => isKnownError(error, 'PASSKEY_WEBAUTHN_ERROR');
    await expect(client.registerPasskey()).rejects.toSatisfy(cancelled);
    expect(rpOfRegistration()).toBe(location.hostname);
    await expect(client.registerPasskey({ hostname: location.hostname })).rejects.toSatisfy(cancelled);
    expect(rpOfRegistration()).toBe(location.hostname);
    await expect(client.signInWithPasskey({ hostname: location.hostname })).rejects.toSatisfy(cancelled);
    expect(rpOfSignIn()).toBe(location.hostname);
  });

  it('refuses a host name the page is not under, before asking the broker', async () => {
    const client = await signedInClient();
    const begun = countCalls('/auth/passkey/initiate-passkey-registration');
    for (const hostname of ['evil.example', 'calhost', '', 'com', 42 as unknown as string]) {
      const error = await client.registerPasskey({ hostname }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, String(hostname)).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe('hostname');
      expect((error as Error).message).toContain(location.hostname);
    }
    await expect(client.signInWithPasskey({ hostname: 'evil.example' })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(begun()).toBe(0);
    expect(ceremonies.startRegistration).not.toHaveBeenCalled();
  });
});
