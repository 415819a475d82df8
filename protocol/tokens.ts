import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { decodeResponse, refuseRedirect } from './codec.js';
import { withDeadline } from './deadline.js';
import { networkErrorAfterFailure, readNavigatorOnline, trimBaseUrl } from './diagnostics.js';
import { ClientError, HttpStatusError, messageOf, ProtocolError } from './errors/errors.js';
import { isKnownErrorCode } from './errors/lineage.js';
import { KnownError, type AnyKnownError } from './errors/knownError.js';
import { knownErrorFromBody, knownErrorWithTemplate } from './errors/create.js';
import { passkeyWebAuthnErrorMessage } from './errors/messages.js';
import type { AuthorizationCodeTokens } from './resources/session.js';
import { decideRetry, sleepOn, systemClock, type AttemptOutcome, type Clock, type WaitBeforeRetry } from './retry.js';
import type { TransportObserver } from './transport.js';
import { readSignInTokens } from './signInResponse.js';
import { stripOAuthCallbackParams } from './validation.js';

/** The scope the service's token endpoint knows; any other is refused. */
export const OAUTH_SCOPE = 'legacy';

/** What the token endpoint needs: the project is the OAuth client, its publishable key the secret. */
export interface TokenEndpointOptions {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  fetch?: typeof fetch | undefined;
  clock?: Clock | undefined;
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

function authorizationServer(baseUrl: string): oauth.AuthorizationServer {
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
  throw new HttpStatusError(response.status, text, undefined, response.headers.get('retry-after'));
}

/** oauth4webapi's errors, in our vocabulary. */
function translateOAuthError(error: unknown): unknown {
  if (error instanceof oauth.ResponseBodyError) {
    const body = error.cause;
    // A known-error body that lost its header on the way is still a known error.
    if (isKnownErrorCode(body.code)) return knownErrorFromBody(body, error.status);
    return new HttpStatusError(error.status, JSON.stringify(body), `Token endpoint refused the request: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`);
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    return new ProtocolError(`Token endpoint response rejected: ${error.message}`);
  }
  return error;
}

/**
 * Runs one token-endpoint exchange with the standard retries. Both grants are safe to repeat
 * after a network failure: the service does not rotate refresh tokens, and an authorization code
 * that did get redeemed answers INVALID_AUTHORIZATION_CODE instead of signing in twice.
 */
async function withTokenRetries<T>(options: TokenEndpointOptions, idempotent: boolean, exchange: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const clock = options.clock ?? systemClock;
  const timeoutMillis = options.attemptTimeoutMillis ?? 30_000;
  for (let attempt = 0; ; attempt++) {
    let outcome: AttemptOutcome;
    let failure: unknown;
    await options.beforeAttempt?.(options.signal);
    const event = { method: 'POST', path: '/auth/oauth/token', attempt };
    const started = clock.now();
    try {
      // Request and response processing (the body read) under one deadline: a token endpoint that
      // never answers must not leave every caller, and the refresh lock, waiting forever.
      const result = await withDeadline(clock, timeoutMillis, options.signal, exchange);
      options.observer?.onResponse?.({ ...event, status: 200, durationMillis: clock.now() - started });
      return result;
    } catch (raw) {
      if (options.signal?.aborted) throw options.signal.reason;
      const error = translateOAuthError(raw);
      if (error instanceof TypeError) {
        outcome = { kind: 'network-error' };
        options.observer?.onNetworkError?.({ ...event, error });
      } else if (error instanceof HttpStatusError) {
        options.observer?.onResponse?.({ ...event, status: error.status, durationMillis: clock.now() - started });
        outcome = { kind: 'http-error', status: error.status, body: error.body, retryAfter: error.retryAfter };
      } else {
        if (error instanceof KnownError) options.observer?.onResponse?.({ ...event, status: error.status, durationMillis: clock.now() - started, code: error.code });
        throw error;
      }
      failure = error;
    }
    const decision = decideRetry({ attempt, outcome, method: 'POST', idempotent, now: clock.now(), random: clock.random() });
    if (!decision.retry) {
      if (outcome.kind !== 'network-error') throw failure;
      throw await networkErrorAfterFailure({
        baseUrl: options.baseUrl,
        cause: failure,
        attempts: attempt + 1,
        fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
        navigatorOnline: options.navigatorOnline?.() ?? readNavigatorOnline(),
        now: () => clock.now(),
      });
    }
    options.observer?.onRetry?.({ ...event, delayMillis: decision.delayMillis, reason: decision.reason });
    await (options.waitBeforeRetry ?? sleepOn(clock))({ delayMillis: decision.delayMillis, reason: decision.reason }, options.signal);
  }
}

/**
 * The refresh-token grant. The service answers with a new access token of the same session and no
 * new refresh token (it never rotates them). REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED means the session is over.
 */
export async function refreshAccessToken(options: TokenEndpointOptions, refreshToken: string): Promise<{ access_token: string }> {
  const as = authorizationServer(options.baseUrl);
  const client: oauth.Client = { client_id: options.projectId };
  const auth = oauth.ClientSecretPost(options.publishableClientKey);
  return withTokenRetries(options, true, async (signal) => {
    const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, requestOptions(options, signal));
    await throwIfKnownError(response);
    await throwIfPlainError(response);
    const result = await oauth.processRefreshTokenResponse(as, client, response);
    return { access_token: result.access_token };
  });
}

export interface AuthorizationCodeExchange {
  /** The callback URL as the browser received it (with `code` and `state`). */
  callbackUrl: string | URL;
  /** The `state` generated when the flow started. */
  expectedState: string;
  /** Exactly the `redirect_uri` sent to the authorize endpoint. */
  redirectUri: string;
  codeVerifier: string;
}

/** What an error code from an address may look like before it is repeated in a message of ours. */
const ERROR_CODE_SHAPE = /^[A-Za-z][A-Za-z0-9_.-]{0,79}$/;

/**
 * Reads an error the service redirected to the error URL (`errorCode`, `details`). Anyone can craft
 * such an address, so its `message` is never used: the error carries a sentence of ours naming the
 * code, and details that do not fit the code's shape are refused without being repeated.
 */
export function knownErrorFromRedirect(url: string | URL): AnyKnownError | null {
  const params = new URL(url).searchParams;
  const code = params.get('errorCode');
  if (code === null) return null;
  if (!ERROR_CODE_SHAPE.test(code)) throw new ProtocolError('The error page was given an error code that is not one.');
  let details: unknown;
  try {
    details = JSON.parse(params.get('details') ?? '{}');
  } catch {
    details = {};
  }
  const body = { code, error: `The sign-in did not finish (${code}).`, ...(details && typeof details === 'object' && Object.keys(details).length > 0 ? { details } : {}) };
  try {
    return knownErrorFromBody(body);
  } catch (error) {
    if (error instanceof ProtocolError) throw new ProtocolError(`The error page was given details that do not fit ${code}.`);
    throw error;
  }
}

/** The authorization-code grant with PKCE, after checking the callback's `state`. */
export async function exchangeAuthorizationCode(options: TokenEndpointOptions, exchange: AuthorizationCodeExchange): Promise<AuthorizationCodeTokens> {
  const redirected = knownErrorFromRedirect(exchange.callbackUrl);
  if (redirected !== null) throw redirected;
  const as = authorizationServer(options.baseUrl);
  const client: oauth.Client = { client_id: options.projectId };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, new URL(exchange.callbackUrl), exchange.expectedState);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      // The provider's description is text from the address: only its error code is repeated.
      throw new ClientError('OAUTH_CALLBACK_INVALID', `The sign-in provider refused the sign-in${ERROR_CODE_SHAPE.test(error.error) ? ` (${error.error})` : ''}.`);
    }
    throw new ClientError('OAUTH_STATE_MISMATCH', `This OAuth callback is not this sign-in's (${messageOf(error)}).`);
  }
  const auth = oauth.ClientSecretPost(options.publishableClientKey);
  return withTokenRetries(options, true, async (signal) => {
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, exchange.redirectUri, exchange.codeVerifier, requestOptions(options, signal));
    await throwIfKnownError(response);
    await throwIfPlainError(response);
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    const tokens = readSignInTokens({ access_token: result.access_token, refresh_token: result.refresh_token }, 'The authorization-code grant');
    const isNewUser = result.is_new_user ?? result.newUser;
    const after = result.after_callback_redirect_url ?? result.afterCallbackRedirectUrl ?? null;
    return {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      is_new_user: isNewUser === true,
      after_callback_redirect_url: typeof after === 'string' ? after : null,
    };
  });
}

export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
}

export async function createPkcePair(): Promise<PkcePair> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  return { codeVerifier, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) };
}

export function createOAuthState(): string {
  return oauth.generateRandomState();
}

export interface AuthorizeUrlParams {
  providerId: string;
  /** Where the code comes back; `code` and `state` are stripped from it first. */
  redirectUri: string;
  state: string;
  codeChallenge: string;
  type?: 'authenticate' | 'link';
  /** The current access token, for `type: 'link'`. */
  token?: string;
  /** Extra provider scopes, space-separated. */
  providerScope?: string;
  errorRedirectUrl?: string;
  afterCallbackRedirectUrl?: string;
}

/** The authorize URL the browser navigates to (PROTOCOL.md §6.9 step 2). */
export function buildAuthorizeUrl(options: Pick<TokenEndpointOptions, 'baseUrl' | 'projectId' | 'publishableClientKey'>, params: AuthorizeUrlParams): string {
  const url = new URL(`${trimBaseUrl(options.baseUrl)}/api/v1/auth/oauth/authorize/${encodeURIComponent(params.providerId.toLowerCase())}`);
  const search = url.searchParams;
  search.set('client_id', options.projectId);
  search.set('client_secret', options.publishableClientKey);
  search.set('redirect_uri', stripOAuthCallbackParams(params.redirectUri));
  search.set('scope', OAUTH_SCOPE);
  search.set('state', params.state);
  search.set('grant_type', 'authorization_code');
  search.set('code_challenge', params.codeChallenge);
  search.set('code_challenge_method', 'S256');
  search.set('response_type', 'code');
  search.set('type', params.type ?? 'authenticate');
  if (params.token !== undefined) search.set('token', params.token);
  if (params.providerScope !== undefined) search.set('provider_scope', params.providerScope);
  // The deprecated name is the one every service version understands.
  if (params.errorRedirectUrl !== undefined) search.set('error_redirect_url', params.errorRedirectUrl);
  if (params.afterCallbackRedirectUrl !== undefined) search.set('after_callback_redirect_url', params.afterCallbackRedirectUrl);
  return url.toString();
}

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
export function judgeArrivedAccessToken(token: string, receivedAtMillis: number, marginMillis: number): ArrivedAccessToken {
  let claims: { exp?: unknown; iat?: unknown };
  try {
    claims = decodeJwt(token);
  } catch {
    return { renewAtMillis: receivedAtMillis + UNREADABLE_TOKEN_RENEWAL_MILLIS, problem: 'unreadable' };
  }
  if (claims.exp === undefined) return { renewAtMillis: null, problem: null };
  if (typeof claims.exp !== 'number') return { renewAtMillis: receivedAtMillis + UNREADABLE_TOKEN_RENEWAL_MILLIS, problem: 'unreadable' };
  const renewAt = claims.exp * 1000 - marginMillis;
  if (renewAt > receivedAtMillis) return { renewAtMillis: renewAt, problem: null };
  const lifetime = typeof claims.iat === 'number' ? (claims.exp - claims.iat) * 1000 : 0;
  return { renewAtMillis: receivedAtMillis + Math.max(lifetime - marginMillis, UNREADABLE_TOKEN_RENEWAL_MILLIS), problem: 'expired-on-arrival' };
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
