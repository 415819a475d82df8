import { decodeJwt } from 'jose';
import { knownErrorWithTemplate } from './errors/create.js';
import { passkeyWebAuthnErrorMessage } from './errors/messages.js';
import type { Clock, WaitBeforeRetry } from './retry.js';
import type { TransportObserver } from './transport.js';

/** What the token endpoint needs: the project is the OAuth client, its publishable key the secret. */
export interface TokenEndpointOptions {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch | undefined;
  clock?: Clock | undefined;
  /** What the browser says of the network, for the diagnostics of a failure. */
  navigatorOnline?: (() => boolean | null) | undefined;
  signal?: AbortSignal | undefined;
  /** Awaited before every attempt (the broker holds requests here while offline). */
  beforeAttempt?: ((signal: AbortSignal | undefined) => Promise<void>) | undefined;
  /** Told about every answer and network failure (connectivity bookkeeping). */
  observer?: TransportObserver | undefined;
  /** An attempt without its whole answer after this long counts as a network failure. Default 30 s. */
  attemptTimeoutMillis?: number | undefined;
  /** The wait before a retry; default `clock.sleep` (see TransportOptions.waitBeforeRetry). */
  waitBeforeRetry?: WaitBeforeRetry | undefined;
}

/** The refresh-token grant's signature (tokenGrant.ts), for code that loads it on first use. */
export type RefreshAccessToken = (
  options: TokenEndpointOptions,
  refreshToken: string,
) => Promise<{ access_token: string }>;

/**
 * When an access token expires, in ms since the epoch: null when it has no `exp` (never expires).
 * The SDK never verifies signatures; only the service does. An unreadable token counts as expired.
 */
export function accessTokenExpiry(token: string): number | null {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return 0;
  }
}

/** How often, at most, a token the broker cannot read (or whose lifetime it cannot tell) is renewed. */
export const UNREADABLE_TOKEN_RENEWAL_MILLIS = 60_000;

/** What a token that just arrived says about itself, by this device's clock. */
export interface ArrivedAccessToken {
  /** When to renew it (margin included), in ms since the epoch; null: it never expires. */
  renewAtMillis: number | null;
  /**
   * `expired-on-arrival`: by this device's clock it was already (nearly) expired when it arrived, so
   * the device's clock and the service's disagree; it is used for its stated lifetime instead.
   * `unreadable`: not a JWT we can read; renewed once per UNREADABLE_TOKEN_RENEWAL_MILLIS at most.
   */
  problem: 'expired-on-arrival' | 'unreadable' | null;
}

/**
 * Judges an access token as it arrives (sign-in or refresh). Going by `exp` alone, a device whose
 * clock runs ahead of the service's sees every new token as expired and renews it before each call;
 * a token that is not a readable JWT would be renewed before each call too. Either way at most one
 * renewal per stated lifetime: the lifetime the token states (`exp - iat`), counted from arrival.
 */
export function judgeArrivedAccessToken(
  token: string,
  receivedAtMillis: number,
  marginMillis: number,
): ArrivedAccessToken {
  let claims: { exp?: unknown; iat?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return { renewAtMillis: receivedAtMillis + UNREADABLE_TOKEN_RENEWAL_MILLIS, problem: 'unreadable' };
  }
  if (claims.exp === undefined) return { renewAtMillis: null, problem: null };
  if (typeof claims.exp !== 'number')
    return { renewAtMillis: receivedAtMillis + UNREADABLE_TOKEN_RENEWAL_MILLIS, problem: 'unreadable' };
  const renewAt = claims.exp * 1000 - marginMillis;
  if (renewAt > receivedAtMillis) return { renewAtMillis: renewAt, problem: null };
  const lifetime = typeof claims.iat === 'number' ? (claims.exp - claims.iat) * 1000 : 0;
  return {
    renewAtMillis: receivedAtMillis + Math.max(lifetime - marginMillis, UNREADABLE_TOKEN_RENEWAL_MILLIS),
    problem: 'expired-on-arrival',
  };
}

/** Whether a token expires within `marginMillis` of `now` (so it should be renewed before use). */
export function isAccessTokenExpiring(token: string, now: number, marginMillis: number): boolean {
  const expiry = accessTokenExpiry(token);
  return expiry !== null && expiry - now < marginMillis;
}

/** Client-side only: a WebAuthn failure in the browser, reported like the service's errors. */
export function passkeyWebAuthnError(message: string, code: string) {
  return knownErrorWithTemplate('PASSKEY_WEBAUTHN_ERROR', passkeyWebAuthnErrorMessage, { message, code });
}
