/**
 * Passkey ceremonies, which only a window can run. This module (and @simplewebauthn/browser) is
 * loaded on first use, so apps without passkeys never download it. The KnownError class comes from
 * the caller rather than an import, so this chunk shares no module with the tab's main one (a
 * shared module would be split into a chunk of its own that every page loads).
 */
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { KnownError } from '../../protocol/errors/knownError.js';
import { PASSKEY_RP_ID_PLACEHOLDER } from '../../protocol/resources/passkey.js';
import type { Json } from '../../protocol/resources/common.js';
import type { BrokerApi, SignInResult } from '../../contract/api.js';

/** Where a passkey belongs (`registerPasskey({ hostname })`): by default the page's own host name. */
export interface PasskeyOptions {
  /**
   * The relying party's id: the page's host name or a domain it is under (`example.com` on
   * `app.example.com`), so that a passkey registered on one subdomain signs in on the others. Sign in
   * with the same `hostname` as it was registered with.
   */
  hostname?: string;
}

/** The classes the ceremonies fail with, handed in so that this chunk shares no module with the tab's main one. */
export interface PasskeyErrors {
  KnownError: typeof KnownError;
  InvalidArgumentError: typeof InvalidArgumentError;
}

/**
 * The relying party id: the page's host name, or a domain it is under. Anything else the browser
 * would refuse with a SecurityError halfway through; it is refused here first, saying why.
 */
function relyingPartyId(options: PasskeyOptions | undefined, errors: PasskeyErrors): string {
  const here = location.hostname;
  const wanted = options?.hostname;
  if (wanted === undefined) return here;
  // A domain above the page's, with a dot of its own (never a bare top-level domain, which no browser takes).
  const under = typeof wanted === 'string' && wanted.includes('.') && here.endsWith(`.${wanted}`);
  if (wanted !== here && !under)
    throw new errors.InvalidArgumentError(
      'hostname',
      `hostname must be this page's host name (${here}) or a domain it is under, got ${JSON.stringify(wanted)}.`,
    );
  return wanted;
}

/** The service sends a placeholder RP id; the page's own hostname (or the one asked for) is the real one (§6.8). */
function withHostname<T extends Record<string, unknown>>(options: T, field: 'rp' | 'rpId', rpId: string): T {
  if (field === 'rpId') return options.rpId === PASSKEY_RP_ID_PLACEHOLDER ? { ...options, rpId } : options;
  const rp = options.rp as { id?: string; name: string };
  return rp.id === PASSKEY_RP_ID_PLACEHOLDER ? { ...options, rp: { ...rp, id: rpId } } : options;
}

/**
 * Browser refusals (cancelled, no authenticator…) reported like the service's errors. `code` is the
 * library's specific code when it has one, else the DOMException name (NotAllowedError…): the
 * library's "see cause" code says nothing, and a DOMException's own `code` is a legacy number.
 * Duck-typed, because a DOMException is not always `instanceof Error` (other realms, older engines).
 */
function webAuthnError(error: unknown, KnownErrorClass: typeof KnownError): KnownError<'PASSKEY_WEBAUTHN_ERROR'> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const specific = typeof e.code === 'string' && e.code !== 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY' ? e.code : null;
  const code = specific ?? (typeof e.name === 'string' && e.name !== '' ? e.name : 'UnknownError');
  const message = typeof e.message === 'string' ? e.message : String(error);
  // A direct child of the root with status 400 (PROTOCOL.md §8.3), built without the catalogue.
  return new KnownErrorClass('PASSKEY_WEBAUTHN_ERROR', { message, code }, message, 400, ['PASSKEY_WEBAUTHN_ERROR']);
}

export async function registerPasskey(api: BrokerApi, errors: PasskeyErrors, options?: PasskeyOptions): Promise<void> {
  const rpId = relyingPartyId(options, errors);
  const { optionsJson, code } = await api.beginPasskeyRegistration();
  let credential;
  try {
    credential = await startRegistration({
      optionsJSON: withHostname(optionsJson, 'rp', rpId) as unknown as PublicKeyCredentialCreationOptionsJSON,
    });
  } catch (error) {
    throw webAuthnError(error, errors.KnownError);
  }
  await api.finishPasskeyRegistration({ credential: credential as unknown as Record<string, Json>, code });
}

export async function signInWithPasskey(
  api: BrokerApi,
  errors: PasskeyErrors,
  options?: PasskeyOptions,
): Promise<SignInResult> {
  const rpId = relyingPartyId(options, errors);
  const { optionsJson, code } = await api.beginPasskeySignIn();
  let response;
  try {
    response = await startAuthentication({
      optionsJSON: withHostname(optionsJson, 'rpId', rpId) as unknown as PublicKeyCredentialRequestOptionsJSON,
    });
  } catch (error) {
    throw webAuthnError(error, errors.KnownError);
  }
  return api.finishPasskeySignIn({ response: response as unknown as Record<string, Json>, code });
}
