import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { createKnownError, knownErrorWithTemplate } from '../errors/create.js';
import { HttpStatusError, NetworkError, ProtocolError } from '../errors/errors.js';
import type { KnownError } from '../errors/knownError.js';
import type { Clock } from '../retry.js';
import { requireSwitches } from '../args.js';
import { assertUsableAccessToken } from '../tokenRules.js';
import { projectKeySets } from './keySets.js';
import { audienceOf, audiencesOf, claimsMatchKind, issuerProblem, userKindOf } from './tokenClaims.js';

/** What a project's access token says, once its signature, issuer, audience and expiry are checked. */
export interface VerifiedAccessToken {
  userId: string;
  /** The session (refresh token) it was issued for. */
  sessionId: string | null;
  /** The project the tokens must belong to. */
  projectId: string;
  expiresAtMillis: number | null;
  /** An anonymous user's token (audience `<project>:anon`): only with `allowAnonymous`. */
  isAnonymous: boolean;
  /**
   * A restricted user's token (an anonymous user's, or audience `<project>:restricted`): only with `allowRestricted` or
   * `allowAnonymous`.
   */
  isRestricted: boolean;
  /** The token's claims as signed (JWT claim names, not a model). */
  payload: JWTPayload;
}

/**
 * Which users' tokens a check accepts besides the project's ordinary users', as the service's
 * `x-stack-allow-anonymous-user` and `x-stack-allow-restricted-user` do. Their tokens are signed with
 * keys of their own, fetched only when allowed.
 */
export interface AccessTokenAllowance {
  /**
   * Anonymous users' tokens (audience `<project>:anon`); restricted users' too, since anonymous users are restricted.
   */
  allowAnonymous?: boolean;
  /**
   * Restricted users' tokens (audience `<project>:restricted`: an e-mail the project requires not verified yet, or
   * restricted by an administrator).
   */
  allowRestricted?: boolean;
}

/**
 * Why a token was refused: the same known errors the service answers for it (PROTOCOL.md §1.4, and today's two for
 * guests and restricted users).
 */
export type AccessTokenRejection =
  | KnownError<'UNPARSABLE_ACCESS_TOKEN'>
  | KnownError<'ACCESS_TOKEN_EXPIRED'>
  | KnownError<'INVALID_PROJECT_FOR_ACCESS_TOKEN'>
  | KnownError<'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED'>
  | KnownError<'RESTRICTED_USER_NOT_ALLOWED'>;

/** Where `createAccessTokenVerifier` finds the project's signing keys, and how it reads them and the time. */
export interface AccessTokenVerifierOptions {
  /** The service's base URL, without `/api/v1`. */
  baseUrl: string;
  /** The project whose tokens are checked: its key set signs them, and they name it. */
  projectId: string;
  /** The `fetch` that reads the key set (default: the global one). */
  fetch?: typeof fetch;
  /** What "now" is when a token's expiry is checked (default: the system clock). */
  clock?: Pick<Clock, 'now'>;
}

/**
 * The longest access token checked: 16 KiB. The service's tokens are well under 2 KiB; a longer
 * one is refused before any base64 or JSON work, which for a 64 MB token took a second or more.
 */
export const MAX_ACCESS_TOKEN_LENGTH = 16 * 1024;

const unparsable = () => createKnownError('UNPARSABLE_ACCESS_TOKEN');
/** UNPARSABLE_ACCESS_TOKEN saying why, for refusals a developer may need to understand (size, issuer). */
const unparsableBecause = (why: string) =>
  knownErrorWithTemplate('UNPARSABLE_ACCESS_TOKEN', `Access token is not parsable: ${why}.`);

/**
 * Checks access tokens as the service does (§1.4): a malformed token, a bad signature, another
 * algorithm, no expiry, or an issuer other than the service at `baseUrl` is UNPARSABLE_ACCESS_TOKEN
 * (so is a token over 16 KiB, refused before it is read); an
 * expired one ACCESS_TOKEN_EXPIRED (with `expired_at_millis`); one for another project
 * INVALID_PROJECT_FOR_ACCESS_TOKEN; an anonymous user's (audience `<project id>:anon`)
 * ANONYMOUS_AUTHENTICATION_NOT_ALLOWED, as the service answers it to a call that does not allow
 * anonymous users, and a restricted user's RESTRICTED_USER_NOT_ALLOWED; the second argument allows
 * them (`allowAnonymous`, `allowRestricted`). A token whose claims say another kind of user than
 * its audience (a restricted user's under the project's own audience) is UNPARSABLE_ACCESS_TOKEN
 * whatever is allowed. Failing to fetch the project's keys is not the token's fault: NetworkError,
 * HttpStatusError or ProtocolError; a failed fetch is remembered for a while (keySets.ts), so
 * tokens naming unknown keys do not each ask the service again.
 */
export function createAccessTokenVerifier(
  options: AccessTokenVerifierOptions,
): (token: string, allow?: AccessTokenAllowance) => Promise<VerifiedAccessToken> {
  const now = () => (options.clock === undefined ? Date.now() : options.clock.now());
  // One key set per kind of user. The project's own users' tokens are checked with the plain set,
  // which holds no guest's key: a guest's token that claims the project's own audience never verifies.
  const keysFor = projectKeySets({
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    fetch: options.fetch ?? globalThis.fetch,
    now,
  });

  return async (token: string, allow: AccessTokenAllowance = {}): Promise<VerifiedAccessToken> => {
    if (typeof token === 'string' && token.length > MAX_ACCESS_TOKEN_LENGTH)
      throw unparsableBecause(
        `it is ${token.length} characters long, and an access token is at most ${MAX_ACCESS_TOKEN_LENGTH}`,
      );
    assertUsableAccessToken(token);
    const { allowAnonymous = false, allowRestricted = false } = requireSwitches(allow, 'allow', [
      'allowAnonymous',
      'allowRestricted',
    ]);
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      throw unparsable();
    }
    // A token of another project is refused without fetching that project's keys: whatever its
    // signature, it is not valid here, and keys named by an untrusted token are not ours to fetch.
    // Today's guest and restricted users' tokens have the audience `<project>:anon` / `:restricted`.
    const audiences = audiencesOf(claims);
    if (audiences.length > 0 && !audiences.some((aud) => aud.split(':')[0] === options.projectId)) {
      throw createKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN');
    }
    const kind = userKindOf(claims, options.projectId);
    // As the service does by default: guests and restricted users are refused unless the call allows them.
    if (kind === 'anonymous' && !allowAnonymous) throw createKnownError('ANONYMOUS_AUTHENTICATION_NOT_ALLOWED');
    if (kind === 'restricted' && !allowRestricted && !allowAnonymous) {
      const reason = claims.restricted_reason;
      throw createKnownError('RESTRICTED_USER_NOT_ALLOWED', {
        restricted_reason:
          typeof reason === 'object' && reason !== null
            ? (reason as Record<string, unknown>)
            : { type: 'restricted_by_administrator' },
      });
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keysFor(kind), {
        audience: audienceOf(options.projectId, kind),
        algorithms: ['ES256'],
        // The service's tokens always expire; one that does not is not one of them.
        requiredClaims: ['exp'],
        currentDate: new Date(now()),
      }));
    } catch (error) {
      throw rejectionOrFailure(error);
    }
    const issuer = issuerProblem(payload.iss, options.baseUrl, options.projectId, kind);
    if (issuer !== null) throw unparsableBecause(`it names ${issuer}`);
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unparsable();
    // The audience and the claims say the same, as the service requires.
    if (!claimsMatchKind(payload, kind)) throw unparsable();
    const isAnonymous = payload.is_anonymous === true;
    // `refresh_token_id` today, `refreshTokenId` in v2.7's tokens.
    const session = payload.refresh_token_id ?? payload.refreshTokenId;
    return {
      userId: payload.sub,
      sessionId: typeof session === 'string' ? session : null,
      projectId: options.projectId,
      expiresAtMillis: (payload.exp as number) * 1000,
      isAnonymous,
      isRestricted: kind !== 'normal',
      payload,
    };
  };
}

function rejectionOrFailure(error: unknown): Error {
  if (error instanceof NetworkError || error instanceof HttpStatusError) return error;
  if (error instanceof joseErrors.JWTExpired) {
    const exp = error.payload.exp;
    return createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: typeof exp === 'number' ? exp * 1000 : null });
  }
  if (error instanceof joseErrors.JWKSTimeout)
    return new NetworkError('NETWORK_UNREACHABLE', "Fetching the project's signing keys timed out.", null, 1, {
      cause: error,
    });
  if (
    error instanceof joseErrors.JWKSInvalid ||
    (error instanceof joseErrors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
  ) {
    return new ProtocolError(`The project's signing keys could not be read: ${error.message}`);
  }
  // Signature, algorithm, issuer, format, or a key id the project does not have: the service
  // answers all of these with UNPARSABLE_ACCESS_TOKEN.
  if (error instanceof joseErrors.JOSEError) return unparsable();
  return error instanceof Error ? error : new ProtocolError(String(error));
}
