/**
 * OAuth's authorization-code flow with PKCE (PROTOCOL.md §6.9): the authorize URL, the callback's
 * checks and the code grant. Apart from the refresh grant (tokens.ts), so that a broker loads it
 * with the methods that start and complete a flow, not up front.
 */
import * as oauth from 'oauth4webapi';
import { trimBaseUrl } from './diagnostics.js';
import { ClientError, messageOf, ProtocolError } from './errors/errors.js';
import { knownErrorFromBody } from './errors/create.js';
import type { AnyKnownError } from './errors/knownError.js';
import type { AuthorizationCodeTokens } from './resources/session.js';
import { readSignInTokens } from './signInResponse.js';
import { authorizationServer, tokenGrant } from './tokenGrant.js';
import type { TokenEndpointOptions } from './tokens.js';
import { stripOAuthCallbackParams } from './validation.js';

/** The scope the service's token endpoint knows; any other is refused. */
export const OAUTH_SCOPE = 'legacy';

/** What the OAuth callback must match before its code is exchanged for tokens. */
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
  const body = {
    code,
    error: `The sign-in did not finish (${code}).`,
    ...(details && typeof details === 'object' && Object.keys(details).length > 0 ? { details } : {}),
  };
  try {
    return knownErrorFromBody(body);
  } catch (error) {
    if (error instanceof ProtocolError)
      throw new ProtocolError(`The error page was given details that do not fit ${code}.`);
    throw error;
  }
}

/** The authorization-code grant with PKCE, after checking the callback's `state`. */
export async function exchangeAuthorizationCode(
  options: TokenEndpointOptions,
  exchange: AuthorizationCodeExchange,
): Promise<AuthorizationCodeTokens> {
  const redirected = knownErrorFromRedirect(exchange.callbackUrl);
  if (redirected !== null) throw redirected;
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(
      authorizationServer(options.baseUrl),
      { client_id: options.projectId },
      new URL(exchange.callbackUrl),
      exchange.expectedState,
    );
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      // The provider's description is text from the address: only its error code is repeated.
      throw new ClientError(
        'OAUTH_CALLBACK_INVALID',
        `The sign-in provider refused the sign-in${ERROR_CODE_SHAPE.test(error.error) ? ` (${error.error})` : ''}.`,
      );
    }
    throw new ClientError('OAUTH_STATE_MISMATCH', `This OAuth callback is not this sign-in's (${messageOf(error)}).`);
  }
  return tokenGrant(
    options,
    (as, client, auth, requestOptions) =>
      oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        exchange.redirectUri,
        exchange.codeVerifier,
        requestOptions,
      ),
    async (as, client, response) => {
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      const tokens = readSignInTokens(
        { access_token: result.access_token, refresh_token: result.refresh_token },
        'The authorization-code grant',
      );
      const isNewUser = result.is_new_user ?? result.newUser;
      const after = result.after_callback_redirect_url ?? result.afterCallbackRedirectUrl ?? null;
      return {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        is_new_user: isNewUser === true,
        after_callback_redirect_url: typeof after === 'string' ? after : null,
      };
    },
  );
}

/** A PKCE verifier and its challenge (RFC 7636). */
export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
}

/** A fresh PKCE verifier and its S256 challenge. */
export async function createPkcePair(): Promise<PkcePair> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  return { codeVerifier, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) };
}

/** A fresh random `state` for an OAuth flow. */
export function createOAuthState(): string {
  return oauth.generateRandomState();
}

/** What goes into the service's OAuth authorize URL. */
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

/**
 * The redirect URI a flow sends (and sends again at the token endpoint): the callback URL with the flow's state in
 * its query. The service sends a failed callback to it with `errorCode` but without the OAuth `state`, so the state
 * must ride in the URI for the error to be matched to a flow this browser started; a success's own `state` replaces
 * it with the same value.
 */
export function redirectUriOfFlow(callbackUrl: string, state: string): string {
  const url = new URL(stripOAuthCallbackParams(callbackUrl));
  url.searchParams.set('state', state);
  return url.href;
}

/** The authorize URL the browser navigates to (PROTOCOL.md §6.9 step 2). */
export function buildAuthorizeUrl(
  options: Pick<TokenEndpointOptions, 'baseUrl' | 'projectId' | 'publishableClientKey'>,
  params: AuthorizeUrlParams,
): string {
  const url = new URL(
    `${trimBaseUrl(options.baseUrl)}/api/v1/auth/oauth/authorize/${encodeURIComponent(params.providerId.toLowerCase())}`,
  );
  const search = url.searchParams;
  search.set('client_id', options.projectId);
  search.set('client_secret', options.publishableClientKey);
  search.set('redirect_uri', redirectUriOfFlow(params.redirectUri, params.state));
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
  if (params.afterCallbackRedirectUrl !== undefined)
    search.set('after_callback_redirect_url', params.afterCallbackRedirectUrl);
  return url.toString();
}
