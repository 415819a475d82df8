import type { JWTPayload } from 'jose';

/**
 * What an access token's claims must say, apart from its signature: whose token it is (the kind of
 * user its audience names) and which service issued it. The service's own checks (its
 * `decodeAccessToken`) are the reference: the issuer is exactly its own API URL and the project, the
 * audience names the kind of user, and the claims agree with it.
 */

/** Whose tokens an audience is for. */
export type UserKind = 'normal' | 'restricted' | 'anonymous';

const ISSUER_PATH: Record<UserKind, string> = {
  normal: 'projects',
  restricted: 'projects-restricted-users',
  anonymous: 'projects-anonymous-users',
};
const AUDIENCE_SUFFIX: Record<UserKind, string> = { normal: '', restricted: ':restricted', anonymous: ':anon' };

/** The issuer of v2.7's tokens. The service's tokens today name their project: `<API URL>/api/v1/projects/<id>`. */
export const ACCESS_TOKEN_ISSUER = 'https://access-token.jwt-signature.stack-auth.com';

/** The audience a token of this kind of user carries. */
export function audienceOf(projectId: string, kind: UserKind): string {
  return `${projectId}${AUDIENCE_SUFFIX[kind]}`;
}

/** The audiences a token claims, as a list. */
export function audiencesOf(claims: JWTPayload): string[] {
  return typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
}

/** The kind of user a token's (unverified) claims say it is for; its signature is then checked with that kind's keys. */
export function userKindOf(claims: JWTPayload, projectId: string): UserKind {
  const audiences = audiencesOf(claims);
  if (claims.is_anonymous === true || audiences.includes(audienceOf(projectId, 'anonymous'))) return 'anonymous';
  if (audiences.includes(audienceOf(projectId, 'restricted'))) return 'restricted';
  return 'normal';
}

/** `localhost`, a `*.localhost` name, 127.0.0.0/8 or ::1: one machine, whichever name a URL gives it. */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * Why `issuer` is not the one the project's tokens carry, or null when it is: v2.7's fixed issuer, or today's URL of the
 * project under the service at `baseUrl` (scheme, host and port; loopback names count as one host, since an emulator or
 * a local backend is reached as localhost or 127.0.0.1 alike).
 */
export function issuerProblem(issuer: unknown, baseUrl: string, projectId: string, kind: UserKind): string | null {
  if (issuer === ACCESS_TOKEN_ISSUER)
    return kind === 'normal' ? null : 'the v2.7 issuer, for a guest or restricted user';
  if (typeof issuer !== 'string') return 'no issuer';
  let named: URL;
  let service: URL;
  try {
    named = new URL(issuer);
    service = new URL(baseUrl);
  } catch {
    return 'an issuer that is not a URL';
  }
  if (named.pathname !== `/api/v1/${ISSUER_PATH[kind]}/${projectId}`) return `another issuer (${named.pathname})`;
  const sameHost = named.hostname === service.hostname || (isLoopback(named.hostname) && isLoopback(service.hostname));
  if (named.protocol !== service.protocol || named.port !== service.port || !sameHost)
    return `the issuer ${named.origin}, another service than ${service.origin}`;
  return null;
}

/**
 * Whether the claims agree with the audience's kind of user, as the service requires: a guest's token says it is
 * anonymous (and is restricted), a restricted user's says it is restricted, and a token under the project's own
 * audience is neither.
 */
export function claimsMatchKind(payload: JWTPayload, kind: UserKind): boolean {
  const isAnonymous = payload.is_anonymous === true;
  const isRestricted = payload.is_restricted === true || isAnonymous;
  if (isAnonymous !== (kind === 'anonymous')) return false;
  if (kind === 'restricted') return isRestricted;
  if (kind === 'normal') return !isRestricted;
  // A guest is always restricted: a token that says otherwise is not one the service signs.
  return payload.is_restricted !== false;
}
