import { decodeJwt, errors as joseErrors, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { ProjectRecord, SigningKeyRecord, UserRecord } from '../state/model.js';
import type { RestrictedReason } from '../../protocol/resources/user.js';
import { restrictedReasonOf } from '../state/restriction.js';
import { primaryChannel } from '../state/users.js';
import type { Store } from '../state/store.js';

/** The issuer of v2.7's access tokens (PROTOCOL.md §3.1), still accepted from data files written then. */
export const ACCESS_TOKEN_ISSUER = 'https://access-token.jwt-signature.stack-auth.com';

/**
 * The issuer of the service's access tokens today: its own API URL and the project (anonymous users'
 * under `projects-anonymous-users`, restricted users' under `projects-restricted-users`, as the service signs them).
 */
export function accessTokenIssuer(baseUrl: string, projectId: string, audience: Audience = 'normal'): string {
  return `${baseUrl.replace(/\/+$/, '')}${issuerPath(projectId, audience)}`;
}

const ISSUER_SEGMENTS: Readonly<Record<Audience, string>> = {
  normal: 'projects',
  anonymous: 'projects-anonymous-users',
  restricted: 'projects-restricted-users',
};

/** The issuer's path, which names the project under any API URL. */
function issuerPath(projectId: string, audience: Audience): string {
  return `/api/v1/${ISSUER_SEGMENTS[audience]}/${projectId}`;
}

const keyCache = new WeakMap<JsonWebKey, Promise<CryptoKey | Uint8Array>>();

function importKey(jwk: JsonWebKey): Promise<CryptoKey | Uint8Array> {
  let key = keyCache.get(jwk);
  if (!key) {
    key = importJWK({ ...jwk, alg: 'ES256' } as Parameters<typeof importJWK>[0], 'ES256');
    keyCache.set(jwk, key);
  }
  return key;
}

/**
 * The claims of the service's tokens today (snake_case; v2.7's `branchId` and `refreshTokenId` are
 * gone), which `@stackframe/js` 2.8.41 and later require before they accept a token (and read the
 * signed-in user's name and e-mail from). `signed_up_at` is in seconds, like `iat`. Whether the user is
 * restricted, and why, is as of the token's issue (state/restriction.ts).
 */
function serviceClaims(p: ProjectRecord, user: UserRecord, sessionId: string) {
  const email = primaryChannel(p, user.id);
  const anonymous = user.is_anonymous === true;
  const restriction = restrictedReasonOf(p, user);
  return {
    project_id: p.id,
    branch_id: 'main',
    refresh_token_id: sessionId,
    role: 'authenticated',
    name: user.display_name,
    email: email?.value ?? null,
    email_verified: email?.is_verified ?? false,
    selected_team_id: user.selected_team_id,
    signed_up_at: Math.floor(user.signed_up_at_millis / 1000),
    is_anonymous: anonymous,
    is_restricted: restriction !== null,
    restricted_reason: restriction,
    requires_totp_mfa: user.totp_secret_base64 !== null,
  };
}

/**
 * The service gives anonymous users' tokens an audience of their own, `<project id>:anon`, so that
 * a backend verifying tokens for the project refuses them unless it asks for anonymous users too.
 */
const ANONYMOUS_AUDIENCE_SUFFIX = ':anon';
const RESTRICTED_AUDIENCE_SUFFIX = ':restricted';

/** Whose tokens an audience is for: the project's users, its anonymous users, or its restricted users. */
type Audience = 'normal' | 'anonymous' | 'restricted';

/** The audience of a user's tokens now: anonymous users', restricted users' or the project's own. */
function audienceKindOf(p: ProjectRecord, user: UserRecord): Audience {
  if (user.is_anonymous === true) return 'anonymous';
  return restrictedReasonOf(p, user) === null ? 'normal' : 'restricted';
}

const AUDIENCE_SUFFIXES: Readonly<Record<Audience, string>> = {
  normal: '',
  anonymous: ANONYMOUS_AUDIENCE_SUFFIX,
  restricted: RESTRICTED_AUDIENCE_SUFFIX,
};

/** The project and the kind of user an audience names (`<id>`, `<id>:anon`, `<id>:restricted`). */
function parseAudience(aud: unknown): { projectId: string; audience: Audience } | null {
  if (typeof aud !== 'string') return null;
  if (aud.endsWith(ANONYMOUS_AUDIENCE_SUFFIX))
    return { projectId: aud.slice(0, -ANONYMOUS_AUDIENCE_SUFFIX.length), audience: 'anonymous' };
  if (aud.endsWith(RESTRICTED_AUDIENCE_SUFFIX))
    return { projectId: aud.slice(0, -RESTRICTED_AUDIENCE_SUFFIX.length), audience: 'restricted' };
  return { projectId: aud, audience: 'normal' };
}

/** Each audience is signed with a key of its own, as the service signs them. */
function keyOf(p: ProjectRecord, audience: Audience): SigningKeyRecord {
  return audience === 'normal' ? p.signing_key : p.audience_keys[audience];
}

export async function signAccessToken(
  p: ProjectRecord,
  user: UserRecord,
  sessionId: string,
  now: number,
  ttlMillis: number,
  baseUrl: string,
): Promise<string> {
  const iat = Math.floor(now / 1000);
  const audience = audienceKindOf(p, user);
  const key = keyOf(p, audience);
  return new SignJWT(serviceClaims(p, user, sessionId))
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setIssuer(accessTokenIssuer(baseUrl, p.id, audience))
    .setAudience(`${p.id}${AUDIENCE_SUFFIXES[audience]}`)
    .setSubject(user.id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.max(1, Math.round(ttlMillis / 1000)))
    .sign(await importKey(key.privateJwk));
}

export type TokenCheck =
  /**
   * `anonymous`: the token is an anonymous user's (its `is_anonymous` claim), whatever the user is now; `restricted`:
   * why its user was restricted when it was issued (null: not).
   */
  | {
      ok: true;
      projectId: string;
      userId: string;
      sessionId: string | null;
      anonymous: boolean;
      restricted: RestrictedReason | null;
      payload: JWTPayload;
    }
  | { ok: false; reason: 'unparsable' }
  | { ok: false; reason: 'expired'; expiredAtMillis: number | null };

/**
 * Verifies an access token against the key of the project in its own `aud` (the caller then
 * compares `aud` with the project it expected). `alg: none`, another key, tampering, a wrong
 * issuer or a malformed token are all "unparsable"; a valid but expired one is "expired".
 */
/**
 * Signatures already verified, by exact token text. Verifying is the costliest step of most
 * requests and the same token comes back many times; the expiry is still checked on every use.
 * A cached entry stands only while its project still signs with the same key.
 */
const verified = new Map<
  string,
  {
    projectId: string;
    audience: Audience;
    kid: string;
    check: Extract<TokenCheck, { ok: true }>;
    expMillis: number | null;
  }
>();
const VERIFIED_CACHE_SIZE = 2000;

/** A token's restriction claim (`is_restricted` with `restricted_reason`); tokens from before them are unrestricted. */
function restrictionClaim(payload: JWTPayload): RestrictedReason | null {
  if (payload.is_restricted !== true) return null;
  const reason = payload.restricted_reason as { type?: unknown } | null | undefined;
  const type = reason?.type;
  return type === 'anonymous' || type === 'email_not_verified' || type === 'restricted_by_administrator'
    ? { type }
    : null;
}

export async function verifyAccessToken(store: Store, token: string, now: number): Promise<TokenCheck> {
  const cached = verified.get(token);
  if (cached) {
    const project = store.project(cached.projectId);
    if (project && keyOf(project, cached.audience).kid === cached.kid) {
      if (cached.expMillis !== null && cached.expMillis <= now)
        return { ok: false, reason: 'expired', expiredAtMillis: cached.expMillis };
      return cached.check;
    }
    verified.delete(token);
  }
  const result = await verifyUncached(store, token, now);
  if (result.ok) {
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
    const exp = result.payload.exp;
    // A verified token's audience is its user's kind when it was issued.
    const audience: Audience = result.anonymous ? 'anonymous' : result.restricted !== null ? 'restricted' : 'normal';
    verified.set(token, {
      projectId: result.projectId,
      audience,
      kid: keyOf(store.project(result.projectId)!, audience).kid,
      check: result,
      expMillis: typeof exp === 'number' ? exp * 1000 : null,
    });
  }
  return result;
}

async function verifyUncached(store: Store, token: string, now: number): Promise<TokenCheck> {
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    return { ok: false, reason: 'unparsable' };
  }
  // Tokens without an audience would need the service's legacy global key, which we do not have.
  const named = parseAudience(aud);
  if (named === null) return { ok: false, reason: 'unparsable' };
  const project = store.project(named.projectId);
  if (!project) return { ok: false, reason: 'unparsable' };
  const anonymousAudience = named.audience === 'anonymous';
  try {
    const { payload } = await jwtVerify(token, await importKey(keyOf(project, named.audience).publicJwk), {
      algorithms: ['ES256'],
      currentDate: new Date(now),
    });
    // Today's issuer names the project under any API URL (the emulator may have moved port since); v2.7's is fixed.
    const issuer = typeof payload.iss === 'string' ? payload.iss : '';
    const legacy = issuer === ACCESS_TOKEN_ISSUER && named.audience === 'normal';
    if (!legacy && !issuer.endsWith(issuerPath(project.id, named.audience))) return { ok: false, reason: 'unparsable' };
    if (typeof payload.sub !== 'string') return { ok: false, reason: 'unparsable' };
    const anonymous = payload.is_anonymous === true;
    // The audience and the claims say the same, or the token is not one the service made.
    if (anonymous !== anonymousAudience) return { ok: false, reason: 'unparsable' };
    const restricted = restrictionClaim(payload);
    if ((named.audience === 'restricted') !== (restricted !== null && !anonymous))
      return { ok: false, reason: 'unparsable' };
    const session = payload.refresh_token_id ?? payload.refreshTokenId;
    return {
      ok: true,
      projectId: project.id,
      userId: payload.sub,
      sessionId: typeof session === 'string' ? session : null,
      anonymous,
      restricted: anonymous ? { type: 'anonymous' } : restricted,
      payload,
    };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) {
      const exp = error.payload.exp;
      return { ok: false, reason: 'expired', expiredAtMillis: typeof exp === 'number' ? exp * 1000 : null };
    }
    return { ok: false, reason: 'unparsable' };
  }
}

/**
 * The public key set of a project (`/projects/{id}/.well-known/jwks.json`): the key of its users'
 * tokens, and those of restricted and anonymous users' only when asked for (`include_anonymous`
 * brings both, as anonymous users are restricted ones too), so that a backend verifying tokens
 * with the plain set refuses theirs.
 */
export function projectJwks(
  p: ProjectRecord,
  include: { restricted?: boolean; anonymous?: boolean } = {},
): { keys: Array<Record<string, unknown>> } {
  const audiences: Audience[] = [
    'normal',
    ...(include.restricted || include.anonymous ? (['restricted'] as const) : []),
    ...(include.anonymous ? (['anonymous'] as const) : []),
  ];
  const published = (key: SigningKeyRecord) => {
    const { kty, crv, x, y } = key.publicJwk;
    return { kty, alg: 'ES256', crv, kid: key.kid, x, y };
  };
  // Per audience, the key that signs and then the next one, as the service lists its two.
  return {
    keys: audiences.flatMap((audience) => {
      const next = p.next_keys?.[audience];
      return next === undefined ? [published(keyOf(p, audience))] : [published(keyOf(p, audience)), published(next)];
    }),
  };
}
