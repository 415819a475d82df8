import { randomBytes } from 'node:crypto';
import {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { createKnownError } from '../../protocol/errors/create.js';
import { PASSKEY_RP_ID_PLACEHOLDER } from '../../protocol/resources/passkey.js';
import { issueTokens, requireSecondFactor } from '../auth/issue.js';
import { createCode, redeemCode } from '../codes.js';
import { requireAccess, requireUser, requireUserBySchema } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest } from '../http/types.js';
import { anyJson, obj, validate, yup } from '../http/validate.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { findUser, primaryChannel } from '../state/users.js';

const TIMEOUT_MILLIS = 60_000;

/** The development service's fixed challenge (`MOCK`, base64url), behind its testing switch. */
const HARDCODED_CHALLENGE = Buffer.from('MOCK', 'utf8').toString('base64url');

function newChallenge(req: ApiRequest): string {
  return req.env.hardcodedPasskeyChallenge ? HARDCODED_CHALLENGE : randomBytes(32).toString('base64url');
}

function requirePasskeys(p: ProjectRecord): void {
  if (!p.config.passkey_enabled) throw createKnownError('PASSKEY_AUTHENTICATION_NOT_ENABLED');
}

/** `clientDataJSON.origin` of a WebAuthn response, or null when it cannot be read. */
function originOf(response: unknown): string | null {
  const clientDataJSON = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof clientDataJSON !== 'string') return null;
  try {
    const origin = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { origin?: unknown })
      .origin;
    return typeof origin === 'string' ? origin : null;
  } catch {
    return null;
  }
}

/**
 * The service's origin rule for passkeys (not the redirect rule of §10): a `localhost` origin when
 * the project allows localhost, else exact equality with a trusted domain. Returns the RP id to
 * expect: the origin's hostname.
 */
function checkOrigin(
  p: ProjectRecord,
  origin: string | null,
  what: 'registration' | 'authentication',
): { origin: string; rpId: string } {
  const fail = (reason: string) =>
    what === 'registration'
      ? createKnownError('PASSKEY_REGISTRATION_FAILED', { message: reason })
      : createKnownError('PASSKEY_AUTHENTICATION_FAILED', { message: reason });
  let parsed: URL;
  try {
    parsed = new URL(origin ?? '');
  } catch {
    // Upstream: an exception inside the library (a 500); a known error is more useful.
    throw fail(`Passkey ${what} failed because the client data has no valid origin`);
  }
  const isLocalhost = parsed.hostname === 'localhost';
  if (isLocalhost && !p.config.allow_localhost)
    throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', {
      message: `Passkey ${what} failed because localhost is not allowed`,
    });
  if (!isLocalhost && !p.config.domains.some((d) => d.domain === parsed.origin)) {
    throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', {
      message: `Passkey ${what} failed because the origin is not allowed`,
    });
  }
  return { origin: origin!, rpId: parsed.hostname };
}

function userName(p: ProjectRecord, user: UserRecord): string {
  return user.display_name ?? primaryChannel(p, user.id)?.value ?? 'Stack Auth User';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Passkeys (PROTOCOL.md §5.2, §6.8). */
export function registerPasskeyRoutes(router: Router): void {
  router.add('POST', '/auth/passkey/initiate-passkey-registration', (req) => {
    const auth = requireAccess(req);
    const user = requireUserBySchema(req, auth);
    const p = auth.project;
    requirePasskeys(p);
    const challenge = newChallenge(req);
    const code = createCode(p, 'passkey_registration', { challenge, user_id: user.id }, req.now);
    const name = userName(p, user);
    return json({
      options_json: {
        challenge,
        // The browser SDK refuses anything but this placeholder and puts its own hostname here.
        rp: { name: p.display_name, id: PASSKEY_RP_ID_PLACEHOLDER },
        user: { id: Buffer.from(user.id, 'utf8').toString('base64url'), name, displayName: name },
        pubKeyCredParams: [-8, -7, -257].map((alg) => ({ alg, type: 'public-key' })),
        timeout: TIMEOUT_MILLIS,
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
        extensions: { credProps: true },
      },
      code: code.code,
    });
  });

  router.add('POST', '/auth/passkey/register', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ credential: anyJson().defined(), code: yup.string().defined() }).defined(),
    });
    const p = auth.project;
    const code = redeemCode(p, 'passkey_registration', body.code, req.now, 'use');
    requirePasskeys(p);
    // Upstream answers a 500 here; the user requirement is what is really missing.
    const signedIn = requireUser(auth);
    const { origin, rpId } = checkOrigin(p, originOf(body.credential), 'registration');
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response: body.credential as unknown as RegistrationResponseJSON,
        expectedChallenge: String(code.data.challenge),
        expectedOrigin: origin,
        expectedRPID: rpId,
        expectedType: 'webauthn.create',
        requireUserVerification: false,
      });
    } catch (error) {
      // Upstream lets the library's exception become a 500 (PROTOCOL.md §11.16).
      throw createKnownError('PASSKEY_REGISTRATION_FAILED', {
        message: `Passkey registration failed: ${errorMessage(error)}`,
      });
    }
    if (!verification.verified)
      throw createKnownError('PASSKEY_REGISTRATION_FAILED', {
        message: 'Passkey registration failed because the verification response is invalid',
      });
    const { credential } = verification.registrationInfo;
    // After the await: the user may be gone by now.
    const user = findUser(p, signedIn.id);
    if (!user) throw createKnownError('USER_NOT_FOUND');
    // One passkey per user: registering again replaces it.
    user.passkey = {
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: [...(credential.transports ?? [])],
      created_at_millis: req.now,
    };
    return json({ user_handle: credential.id });
  });

  router.add('POST', '/auth/passkey/initiate-passkey-authentication', (req) => {
    const auth = requireAccess(req);
    const p = auth.project;
    requirePasskeys(p);
    const challenge = newChallenge(req);
    const code = createCode(p, 'passkey_authentication', { challenge }, req.now);
    return json({
      options_json: {
        challenge,
        allowCredentials: [],
        timeout: TIMEOUT_MILLIS,
        userVerification: 'preferred',
        rpId: PASSKEY_RP_ID_PLACEHOLDER,
      },
      code: code.code,
    });
  });

  router.add('POST', '/auth/passkey/sign-in', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({ authentication_response: anyJson().defined(), code: yup.string().defined() }).defined(),
    });
    const p = auth.project;
    const code = redeemCode(p, 'passkey_authentication', body.code, req.now, 'use');
    requirePasskeys(p);
    const response = body.authentication_response as unknown as AuthenticationResponseJSON;
    const credentialId = typeof response?.id === 'string' ? response.id : null;
    const owner =
      credentialId === null ? undefined : Object.values(p.users).find((u) => u.passkey?.credential_id === credentialId);
    const passkey = owner?.passkey;
    if (!owner || !passkey) throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', { message: 'Passkey not found' });
    const { origin, rpId } = checkOrigin(p, originOf(response), 'authentication');
    let verification;
    try {
      verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: String(code.data.challenge),
        expectedOrigin: origin,
        expectedRPID: rpId,
        credential: {
          id: passkey.credential_id,
          publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
          counter: passkey.counter,
        },
        requireUserVerification: false,
      });
    } catch (error) {
      // Upstream: a 500 (e.g. challenge mismatch); clients are better served by the known error.
      throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', {
        message: `Passkey authentication failed: ${errorMessage(error)}`,
      });
    }
    if (!verification.verified) {
      throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', {
        message:
          'The signature of the authentication response could not be verified with the stored public key tied to this credential ID',
      });
    }
    // After the await: re-read, the user or their passkey may have changed meanwhile.
    const user = findUser(p, owner.id);
    if (!user?.passkey || user.passkey.credential_id !== credentialId)
      throw createKnownError('PASSKEY_AUTHENTICATION_FAILED', { message: 'Passkey not found' });
    user.passkey.counter = verification.authenticationInfo.newCounter;
    requireSecondFactor(p, user, req.now, false);
    const tokens = await issueTokens(req.env, p, user, req.now, { method: 'passkey' });
    return json({
      refresh_token: tokens.refresh_token,
      access_token: tokens.access_token,
      is_new_user: false,
      user_id: user.id,
    });
  });
}
