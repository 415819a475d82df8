/**
 * The token endpoint's grants through oauth4webapi, apart from the light token helpers in
 * tokens.ts: a broker loads this module only when it first renews a token or finishes an OAuth
 * sign-in, so the library stays out of what a SharedWorker evaluates at its start.
 */
import * as oauth from 'oauth4webapi';
import { decodeResponse, refuseRedirect } from './codec.js';
import { networkErrorAfterFailure, readNavigatorOnline, trimBaseUrl } from './diagnostics.js';
import { HttpStatusError, ProtocolError } from './errors/errors.js';
import { isKnownErrorCode } from './errors/lineage.js';
import { KnownError } from './errors/knownError.js';
import { knownErrorFromBody } from './errors/create.js';
import { responseStatusError } from './errors/redact.js';
import { systemClock } from './retry.js';
import { runWithRetries, type AttemptResult } from './retryLoop.js';
import type { TokenEndpointOptions } from './tokens.js';

/** The service's token endpoint as oauth4webapi names an authorization server. */
export function authorizationServer(baseUrl: string): oauth.AuthorizationServer {
  const api = `${trimBaseUrl(baseUrl)}/api/v1`;
  return { issuer: api, token_endpoint: `${api}/auth/oauth/token` };
}

/** One attempt's options; `signal` ends with the attempt's deadline (oauth4webapi never follows redirects). */
function requestOptions(options: TokenEndpointOptions, signal: AbortSignal): oauth.TokenEndpointRequestOptions {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  return {
    [oauth.allowInsecureRequests]: new URL(options.baseUrl).protocol === 'http:',
    [oauth.customFetch]: (url, init) => fetchFn(url, init as RequestInit),
    signal,
  };
}

/** Known errors come back with `x-stack-known-error` (and a real status: no override header here). */
async function throwIfKnownError(response: Response): Promise<void> {
  if (response.headers.get('x-stack-known-error') === null) return;
  const decoded = await decodeResponse(response.clone());
  if (decoded.kind === 'known-error') throw decoded.error;
}

/**
 * An error status without an OAuth error body (a proxy's 429, a 508 INFINITE_LOOP_DETECTED, a 5xx
 * page) is an HTTP error, so that the retry rules apply to it; oauth4webapi would only call the
 * response malformed.
 */
async function throwIfPlainError(response: Response): Promise<void> {
  refuseRedirect(response);
  if (response.ok) return;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string') return;
  throw responseStatusError(response.status, text, undefined, response.headers.get('retry-after'));
}

/** oauth4webapi's errors, in our vocabulary. */
function translateOAuthError(error: unknown): unknown {
  if (error instanceof oauth.ResponseBodyError) {
    const body = error.cause;
    // A known-error body that lost its header on the way is still a known error.
    if (isKnownErrorCode(body.code)) return knownErrorFromBody(body, error.status);
    return responseStatusError(
      error.status,
      JSON.stringify(body),
      `Token endpoint refused the request: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
    );
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    return new ProtocolError(`Token endpoint response rejected: ${error.message}`);
  }
  return error;
}

/** What an exchange's failure means for the retry loop, in our vocabulary; network failures and the rest are thrown. */
function classifyFailure(raw: unknown): AttemptResult<never> {
  const error = translateOAuthError(raw);
  if (error instanceof HttpStatusError) {
    const { status, body, retryAfter } = error;
    return { ok: false, outcome: { kind: 'http-error', status, body, retryAfter }, error, status };
  }
  if (error instanceof KnownError) {
    const outcome = { kind: 'known-error', code: error.code, tokenRenewable: false } as const;
    return { ok: false, outcome, error, status: error.status, code: error.code };
  }
  throw error;
}

/**
 * Runs one token-endpoint exchange with the standard retries (retryLoop.ts). Both grants are safe to repeat after a
 * network failure: the service does not rotate refresh tokens, and an authorization code that did get redeemed
 * answers INVALID_AUTHORIZATION_CODE instead of signing in twice. A token endpoint that never answers must not
 * leave every caller, and the refresh lock, waiting forever: the deadline covers the request and the body's read.
 */
function withTokenRetries<T>(options: TokenEndpointOptions, exchange: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const clock = options.clock ?? systemClock;
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const { beforeAttempt } = options;
  return runWithRetries<T>(
    {
      method: 'POST',
      path: '/auth/oauth/token',
      clock,
      attemptTimeoutMillis: options.attemptTimeoutMillis,
      signal: options.signal,
      idempotent: true,
      observer: options.observer,
      beforeAttempt: beforeAttempt && ((_event, signal) => beforeAttempt(signal)),
      waitBeforeRetry: options.waitBeforeRetry,
      networkFailure: (cause, attempts) =>
        networkErrorAfterFailure({
          baseUrl: options.baseUrl,
          cause,
          attempts,
          fetch: fetchFn,
          navigatorOnline: options.navigatorOnline?.() ?? readNavigatorOnline(),
          now: () => clock.now(),
        }),
    },
    {
      send: (signal) =>
        exchange(signal).then((value): AttemptResult<T> => ({ ok: true, value, status: 200 }), classifyFailure),
    },
  );
}

/**
 * One grant at the token endpoint with the standard retries: `request` sends it (with the project as
 * the OAuth client, its publishable key as the secret), `process` reads the answer (oauth4webapi's
 * checks). Known errors and error statuses without an OAuth error body are ours to report.
 */
export async function tokenGrant<T>(
  options: TokenEndpointOptions,
  request: (
    as: oauth.AuthorizationServer,
    client: oauth.Client,
    auth: oauth.ClientAuth,
    requestOptions: oauth.TokenEndpointRequestOptions,
  ) => Promise<Response>,
  process: (as: oauth.AuthorizationServer, client: oauth.Client, response: Response) => Promise<T>,
): Promise<T> {
  const as = authorizationServer(options.baseUrl);
  const client: oauth.Client = { client_id: options.projectId };
  const auth = oauth.ClientSecretPost(options.publishableClientKey);
  return withTokenRetries(options, async (signal) => {
    const response = await request(as, client, auth, requestOptions(options, signal));
    await throwIfKnownError(response);
    await throwIfPlainError(response);
    return process(as, client, response);
  });
}

/**
 * The refresh-token grant. The service answers with a new access token of the same session and no
 * new refresh token (it never rotates them). REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED means the session is over.
 */
export async function refreshAccessToken(
  options: TokenEndpointOptions,
  refreshToken: string,
): Promise<{ access_token: string }> {
  return tokenGrant(
    options,
    (as, client, auth, requestOptions) =>
      oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, requestOptions),
    async (as, client, response) => ({
      access_token: (await oauth.processRefreshTokenResponse(as, client, response)).access_token,
    }),
  );
}
