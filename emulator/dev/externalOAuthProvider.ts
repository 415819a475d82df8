import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { MockAccount, ProviderGrant } from './providerGrant.js';

/**
 * An OpenID provider outside the emulator that plays every shared OAuth provider (those on the
 * service's own keys), as the development service's `STACK_OAUTH_MOCK_URL` does: the browser is sent
 * to its authorization endpoint with the provider's id as the client id, and the callback exchanges
 * the code at its token endpoint and asks its userinfo endpoint who signed in. Stack Auth's own mock
 * OAuth server (`apps/mock-oauth-server`, an `oidc-provider`) is one.
 *
 * Written on `fetch` rather than an OpenID client library: the three requests are plain OAuth 2.0
 * (discovery, a code grant with `client_secret_basic`, userinfo), and the emulator's package keeps
 * its dependencies few. The ID token is not verified: the provider is one the developer runs.
 */

export interface ExternalOAuthProviderOptions {
  /** The provider's issuer URL; its metadata is read from `<url>/.well-known/openid-configuration`. */
  url: string;
  /** The client secret of every provider id at it; default `MOCK-SERVER-SECRET`, the service's mock's. */
  clientSecret?: string;
}

export type ExternalExchange =
  | { ok: true; grant: ProviderGrant }
  | { ok: false; error: 'invalid_grant' | 'invalid_client' | 'access_denied'; description: string };

/** A refresh-token grant's answer; `error` as the provider named it (`invalid_grant`, `access_denied`, …). */
export type ExternalRefresh =
  | { ok: true; access_token: string; refresh_token: string | null; scopes: string[]; expires_at_millis: number }
  | { ok: false; error: string; description: string };

export interface ExternalOAuthProvider {
  readonly url: string;
  /** Where `/auth/oauth/authorize` sends the browser for this provider id. */
  authorizationUrl(params: {
    providerId: string;
    redirectUri: string;
    state: string;
    codeChallenge: string;
    extraScope: string | null;
  }): Promise<string>;
  /** The callback's code exchange and userinfo request. */
  exchange(params: {
    providerId: string;
    code: string;
    redirectUri: string;
    codeVerifier: string;
    /** The emulator's time, from which the provider's token lifetime counts. */
    now: number;
  }): Promise<ExternalExchange>;
  /**
   * A new access token for a connected account, as the service asks its provider (a refresh-token grant,
   * `scope` narrowing it when given).
   */
  refresh(params: { providerId: string; refreshToken: string; scope?: string; now: number }): Promise<ExternalRefresh>;
  /** Whether the provider still takes this access token (its userinfo answers with a subject). */
  accessTokenIsValid(accessToken: string): Promise<boolean>;
}

interface Metadata {
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
}

/** What the service asks every provider it reaches through its mock for. */
const BASE_SCOPES = ['openid', 'offline_access'];
const DEFAULT_CLIENT_SECRET = 'MOCK-SERVER-SECRET';
const TOKEN_LIFETIME_FALLBACK_MILLIS = 60 * 60 * 1000;
const REQUEST_TIMEOUT_MILLIS = 10_000;

export function parseExternalProviderUrl(value: string, argument: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '')
    throw new InvalidArgumentError(
      argument,
      `${argument} must be the http(s) URL of an OpenID provider's issuer, like http://localhost:8114; got "${value}".`,
    );
  return value.replace(/\/+$/, '');
}

function endpoint(metadata: Record<string, unknown>, name: keyof Metadata, url: string): string {
  const value = metadata[name];
  if (typeof value !== 'string' || !/^https?:\/\//.test(value))
    throw new Error(`The OpenID provider at ${url} names no ${name} in its metadata.`);
  return value;
}

async function readJson(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json().catch(() => null);
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

const stringOr = <T>(value: unknown, fallback: T): string | T =>
  typeof value === 'string' && value !== '' ? value : fallback;

/** Reads the provider's metadata (`<url>/.well-known/openid-configuration`). */
async function discover(url: string): Promise<Metadata> {
  const wellKnown = url.includes('/.well-known/') ? url : `${url}/.well-known/openid-configuration`;
  const response = await fetch(wellKnown, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS) });
  if (!response.ok) throw new Error(`The OpenID provider's metadata at ${wellKnown} answered ${response.status}.`);
  const body = await readJson(response);
  return {
    authorization_endpoint: endpoint(body, 'authorization_endpoint', url),
    token_endpoint: endpoint(body, 'token_endpoint', url),
    userinfo_endpoint: endpoint(body, 'userinfo_endpoint', url),
  };
}

/** A token-endpoint request with `client_secret_basic`, as the service's OpenID client sends it. */
async function tokenRequest(
  tokenEndpoint: string,
  client: { id: string; secret: string },
  form: Record<string, string>,
): Promise<{ response: Response; body: Record<string, unknown> }> {
  const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`, 'utf8');
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic.toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS),
  });
  return { response, body: await readJson(response) };
}

/** The tokens of a token endpoint's answer, or its error. */
function tokensOf(
  response: Response,
  body: Record<string, unknown>,
  now: number,
  requestedScope: string,
):
  | { ok: true; access_token: string; refresh_token: string | null; scopes: string[]; expires_at_millis: number }
  | { ok: false; error: string; description: string } {
  const accessToken = stringOr(body.access_token, null);
  if (!response.ok || accessToken === null)
    return {
      ok: false,
      error: stringOr(body.error, 'invalid_grant'),
      description: stringOr(body.error_description, `the token endpoint answered ${response.status}`),
    };
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in * 1000 : TOKEN_LIFETIME_FALLBACK_MILLIS;
  return {
    ok: true,
    access_token: accessToken,
    refresh_token: stringOr(body.refresh_token, null),
    scopes: stringOr(body.scope, requestedScope).split(/\s+/).filter(Boolean),
    expires_at_millis: now + expiresIn,
  };
}

/** Who the access token belongs to, from the provider's userinfo endpoint. */
async function userAccount(userinfoEndpoint: string, accessToken: string): Promise<MockAccount> {
  const response = await fetch(userinfoEndpoint, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MILLIS),
  });
  const claims = await readJson(response);
  const sub = stringOr(claims.sub, null);
  if (!response.ok || sub === null) throw new Error(`The OpenID provider's userinfo answered ${response.status}.`);
  // As the service reads its mock: the subject is the account, and the e-mail when no other is given.
  return {
    account_id: sub,
    email: stringOr(claims.email, sub),
    email_verified: claims.email_verified !== false,
    display_name: stringOr(claims.name, null),
    profile_image_url: stringOr(claims.picture, null),
  };
}

export function createExternalOAuthProvider(options: ExternalOAuthProviderOptions): ExternalOAuthProvider {
  const url = parseExternalProviderUrl(options.url, 'externalOAuthProvider.url');
  const secret = options.clientSecret ?? DEFAULT_CLIENT_SECRET;
  let discovered: Promise<Metadata> | null = null;
  /** Read once; a failed read is tried again on the next sign-in (the provider may start later). */
  const metadata = (): Promise<Metadata> =>
    (discovered ??= discover(url).catch((error: unknown) => {
      discovered = null;
      throw error;
    }));

  return {
    url,
    async authorizationUrl(params) {
      const target = new URL((await metadata()).authorization_endpoint);
      const scopes = [...new Set([...BASE_SCOPES, ...(params.extraScope ?? '').split(/\s+/).filter(Boolean)])];
      // In the order the service's OAuth client writes them (tests compare the whole URL).
      for (const [name, value] of Object.entries({
        client_id: params.providerId,
        scope: scopes.join(' '),
        response_type: 'code',
        redirect_uri: params.redirectUri,
        code_challenge_method: 'S256',
        code_challenge: params.codeChallenge,
        state: params.state,
        access_type: 'offline',
        prompt: 'consent',
      }))
        target.searchParams.set(name, value);
      return target.toString();
    },

    async exchange(params) {
      const { token_endpoint, userinfo_endpoint } = await metadata();
      const { response, body } = await tokenRequest(
        token_endpoint,
        { id: params.providerId, secret },
        {
          grant_type: 'authorization_code',
          code: params.code,
          redirect_uri: params.redirectUri,
          code_verifier: params.codeVerifier,
        },
      );
      const tokens = tokensOf(response, body, params.now, BASE_SCOPES.join(' '));
      if (!tokens.ok) {
        const { error, description } = tokens;
        return {
          ok: false,
          error: error === 'invalid_client' || error === 'access_denied' ? error : 'invalid_grant',
          description,
        };
      }
      return {
        ok: true,
        grant: {
          account: await userAccount(userinfo_endpoint, tokens.access_token),
          access_token: tokens.access_token,
          refresh_token: tokens.refresh_token ?? '',
          scopes: tokens.scopes,
          expires_at_millis: tokens.expires_at_millis,
        },
      };
    },

    async refresh(params) {
      const { response, body } = await tokenRequest(
        (await metadata()).token_endpoint,
        { id: params.providerId, secret },
        {
          grant_type: 'refresh_token',
          refresh_token: params.refreshToken,
          ...(params.scope === undefined ? {} : { scope: params.scope }),
        },
      );
      return tokensOf(response, body, params.now, params.scope ?? '');
    },

    async accessTokenIsValid(accessToken) {
      try {
        await userAccount((await metadata()).userinfo_endpoint, accessToken);
        return true;
      } catch {
        return false;
      }
    },
  };
}
