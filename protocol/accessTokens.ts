import { createRemoteJWKSet, customFetch, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { createKnownError } from './errors/create.js';
import { HttpStatusError, messageOf, NetworkError, ProtocolError } from './errors/errors.js';
import { redactBody, responseStatusError } from './errors/redact.js';
import type { KnownError } from './errors/knownError.js';
import type { Clock } from './retry.js';
import { requireSwitches } from './args.js';
import { projectJwksUrl } from './endpoints/misc.js';
import { assertUsableAccessToken } from './tokenRules.js';

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

/** Whose tokens an audience is for, and the path of the issuer those tokens name. */
type UserKind = 'normal' | 'restricted' | 'anonymous';
const ISSUER_PATH: Record<UserKind, string> = {
  normal: 'projects',
  restricted: 'projects-restricted-users',
  anonymous: 'projects-anonymous-users',
};
const AUDIENCE_SUFFIX: Record<UserKind, string> = { normal: '', restricted: ':restricted', anonymous: ':anon' };

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

/** The issuer of v2.7's tokens. The service's tokens today name their project: `<API URL>/api/v1/projects/<id>`. */
export const ACCESS_TOKEN_ISSUER = 'https://access-token.jwt-signature.stack-auth.com';

/**
 * Whether `issuer` is one the project's tokens carry: v2.7's fixed one, or today's URL of the project
 * under the service's own API URL (which need not be the app's base URL: a proxy, localhost against
 * 127.0.0.1). The signature, checked with the keys fetched from the app's base URL, is what proves it.
 */
function isProjectIssuer(issuer: unknown, projectId: string, kind: UserKind): boolean {
  if (issuer === ACCESS_TOKEN_ISSUER) return kind === 'normal';
  if (typeof issuer !== 'string') return false;
  try {
    return new URL(issuer).pathname === `/api/v1/${ISSUER_PATH[kind]}/${projectId}`;
  } catch {
    return false;
  }
}

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

const unparsable = () => createKnownError('UNPARSABLE_ACCESS_TOKEN');

/**
 * Checks access tokens as the service does (§1.4): a malformed token, a bad signature, another
 * issuer or algorithm is UNPARSABLE_ACCESS_TOKEN; an expired one ACCESS_TOKEN_EXPIRED (with
 * `expired_at_millis`); one for another project INVALID_PROJECT_FOR_ACCESS_TOKEN; an anonymous user's
 * (audience `<project id>:anon`) ANONYMOUS_AUTHENTICATION_NOT_ALLOWED, as the service answers it
 * to a call that does not allow anonymous users, and a restricted user's RESTRICTED_USER_NOT_ALLOWED;
 * the second argument allows them (`allowAnonymous`, `allowRestricted`). Failing to fetch
 * the project's keys is not the token's fault: NetworkError, HttpStatusError or ProtocolError.
 */
export function createAccessTokenVerifier(
  options: AccessTokenVerifierOptions,
): (token: string, allow?: AccessTokenAllowance) => Promise<VerifiedAccessToken> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const fetchKeys: typeof fetch = async (url, init) => {
    let response: Response;
    try {
      response = await fetchImpl(url, init);
    } catch (error) {
      // jose turns its own abort into JWKSTimeout.
      if (error instanceof Error && error.name === 'TimeoutError') throw error;
      throw new NetworkError(
        'NETWORK_UNREACHABLE',
        `Could not fetch the project's signing keys from ${String(url)}: ${messageOf(error)}`,
        null,
        1,
        { cause: error },
      );
    }
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      throw responseStatusError(
        response.status,
        body,
        `The project's signing keys (${String(url)}) answered HTTP ${response.status}${body.trim() === '' ? '' : `: ${redactBody(body.trim(), 200)}`}. Check baseUrl and projectId.`,
      );
    }
    return response;
  };
  // One key set per kind of user, fetched when a token of that kind is first checked, and cached by
  // jose; a token signed by an unknown key triggers one refetch. The project's own users' tokens are
  // checked with the plain set, which holds no guest's key: a guest's token that claims the project's
  // own audience never verifies.
  const keySets = new Map<UserKind, ReturnType<typeof createRemoteJWKSet>>();
  const keysFor = (kind: UserKind) => {
    let set = keySets.get(kind);
    if (set === undefined) {
      set = createRemoteJWKSet(
        new URL(
          projectJwksUrl(options.baseUrl, options.projectId, {
            restricted: kind === 'restricted',
            anonymous: kind === 'anonymous',
          }),
        ),
        { [customFetch]: fetchKeys },
      );
      keySets.set(kind, set);
    }
    return set;
  };

  return async (token: string, allow: AccessTokenAllowance = {}): Promise<VerifiedAccessToken> => {
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
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (audiences.length > 0 && !audiences.some((aud) => aud.split(':')[0] === options.projectId)) {
      throw createKnownError('INVALID_PROJECT_FOR_ACCESS_TOKEN');
    }
    const kind: UserKind =
      claims.is_anonymous === true || audiences.includes(`${options.projectId}:anon`)
        ? 'anonymous'
        : audiences.includes(`${options.projectId}:restricted`)
          ? 'restricted'
          : 'normal';
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
        audience: `${options.projectId}${AUDIENCE_SUFFIX[kind]}`,
        algorithms: ['ES256'],
        ...(options.clock === undefined ? {} : { currentDate: new Date(options.clock.now()) }),
      }));
    } catch (error) {
      throw rejectionOrFailure(error);
    }
    if (!isProjectIssuer(payload.iss, options.projectId, kind)) throw unparsable();
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unparsable();
    // The audience and the claims say the same, as the service requires: a guest's token says so, and is restricted.
    const isAnonymous = payload.is_anonymous === true;
    const isRestricted = payload.is_restricted === true || isAnonymous;
    if (isAnonymous !== (kind === 'anonymous') || (kind === 'restricted' && !isRestricted)) throw unparsable();
    // `refresh_token_id` today, `refreshTokenId` in v2.7's tokens.
    const session = payload.refresh_token_id ?? payload.refreshTokenId;
    return {
      userId: payload.sub,
      sessionId: typeof session === 'string' ? session : null,
      projectId: options.projectId,
      expiresAtMillis: typeof payload.exp === 'number' ? payload.exp * 1000 : null,
      isAnonymous,
      isRestricted,
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
