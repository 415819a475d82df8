/**
 * The user as an access token names it: what the service writes into the token's claims when it
 * issues one (`sub`, `name`, `email`, `email_verified`, `is_anonymous`, …), read without a request.
 * Read, not verified: a server checks the token first (`verifyAccessToken`); a browser reads the
 * broker's own token, which came from the service.
 */
import type { JWTPayload } from 'jose';
import type { RestrictedReason } from './resources/user.js';

/**
 * The user of an access token, as its claims say at the time it was issued: a subset of `User`, with
 * the same field names. A change made since (a new display name, a verified e-mail) shows in the next
 * token the broker gets; `useUser()` reads the user itself.
 */
export interface PartialUser {
  id: string;
  displayName: string | null;
  primaryEmail: string | null;
  primaryEmailVerified: boolean;
  selectedTeamId: string | null;
  /** Null for tokens without `signed_up_at` (those of v2.7 services). */
  signedUpAtMillis: number | null;
  isAnonymous: boolean;
  isRestricted: boolean;
  restrictedReason: RestrictedReason | null;
  /** Whether the user has a TOTP second factor. */
  requiresTotpMfa: boolean;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The user the claims name, or null when they name none (no `sub`). */
export function partialUserFromClaims(claims: JWTPayload): PartialUser | null {
  if (typeof claims.sub !== 'string' || claims.sub === '') return null;
  const isAnonymous = claims.is_anonymous === true;
  const reason = text((claims.restricted_reason as { type?: unknown } | null | undefined)?.type);
  return {
    id: claims.sub,
    displayName: text(claims.name),
    primaryEmail: text(claims.email),
    primaryEmailVerified: claims.email_verified === true,
    selectedTeamId: text(claims.selected_team_id),
    signedUpAtMillis: typeof claims.signed_up_at === 'number' ? claims.signed_up_at * 1000 : null,
    isAnonymous,
    isRestricted: claims.is_restricted === true || isAnonymous,
    // Tokens of services before restricted users say nothing of it: an anonymous user is restricted all the same.
    restrictedReason:
      reason !== null ? ({ type: reason } as RestrictedReason) : isAnonymous ? { type: 'anonymous' } : null,
    requiresTotpMfa: claims.requires_totp_mfa === true,
  };
}

/**
 * A JWT's claims, unverified (its middle part, base64url JSON). Written out rather than jose's
 * `decodeJwt`: this module is a lazy chunk of the broker, and sharing jose with the broker's entry
 * would split jose into a file of its own that every broker then loads up front.
 */
function claimsOf(token: string): JWTPayload | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as JWTPayload) : null;
  } catch {
    return null;
  }
}

/** The user an access token names, or null when it cannot be read or names none. */
export function partialUserOfAccessToken(accessToken: string): PartialUser | null {
  const claims = claimsOf(accessToken);
  return claims === null ? null : partialUserFromClaims(claims);
}
