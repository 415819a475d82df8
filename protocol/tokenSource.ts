import { isKnownError } from './errors/knownError.js';
import { systemClock, type Clock } from './retry.js';
import { refreshAccessToken } from './tokenGrant.js';
import { isAccessTokenExpiring, type TokenEndpointOptions } from './tokens.js';
import type { TokenSource } from './transport.js';
import { assertTokenMargin, assertUsableAccessToken, DEFAULT_TOKEN_MARGIN_MILLIS } from './validation.js';

export interface RefreshingTokenSourceOptions extends TokenEndpointOptions {
  refreshToken: string;
  /** A token already at hand; fetched on first use when absent. */
  accessToken?: string | undefined;
  /** Renew when the token expires within this margin (< 60000 ms). Default 20000 ms. */
  marginMillis?: number | undefined;
  clock?: Clock | undefined;
  /** Called once when the service refuses the refresh token for good. */
  onSessionEnded?: ((reason: unknown) => void) | undefined;
}

/**
 * An in-memory session for one process (a Node server holding an admin session of the `internal`
 * project, a script…): renews the access token before it expires, one refresh at a time however
 * many callers wait. The browser broker has its own, shared and persistent, session.
 */
export function createRefreshingTokenSource(
  options: RefreshingTokenSourceOptions,
): TokenSource & { readonly ended: boolean } {
  assertUsableAccessToken(options.refreshToken, 'refreshToken');
  if (options.accessToken !== undefined) assertUsableAccessToken(options.accessToken, 'accessToken');
  const margin = options.marginMillis ?? DEFAULT_TOKEN_MARGIN_MILLIS;
  assertTokenMargin(margin, 'marginMillis');
  const clock = options.clock ?? systemClock;
  let accessToken: string | null = options.accessToken ?? null;
  let inFlight: Promise<string | null> | null = null;
  let ended = false;

  function refresh(): Promise<string | null> {
    inFlight ??= refreshAccessToken({ ...options, clock }, options.refreshToken)
      .then(({ access_token }) => (accessToken = access_token))
      .catch((error: unknown) => {
        if (isKnownError(error, 'REFRESH_TOKEN_ERROR')) {
          ended = true;
          accessToken = null;
          options.onSessionEnded?.(error);
          return null;
        }
        throw error;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    renewable: true,
    get ended() {
      return ended;
    },
    async getAccessToken() {
      if (ended) return null;
      if (accessToken !== null && !isAccessTokenExpiring(accessToken, clock.now(), margin)) return accessToken;
      return refresh();
    },
    invalidateAccessToken(token) {
      if (accessToken === token) accessToken = null;
    },
    getRefreshToken: async () => (ended ? null : options.refreshToken),
  };
}
