/**
 * The access token a request to your own server carries, in any form a Stack client sends it:
 * `x-stack-auth` (authbroker's and the official SDK's `getAuthHeaders()`), `Authorization: Bearer
 * stackauth_…` (the SDK's `getAuthorizationHeader()`), a bare `Authorization: Bearer <token>` or
 * `x-stack-access-token`. A refresh token that comes with it is never used: a server that renewed a
 * page's session would hold it.
 */
import { knownErrorWithTemplate } from '../errors/create.js';
import { AUTH_HEADER } from '../authHeaders.js';
import { MAX_ACCESS_TOKEN_LENGTH, type AccessTokenAllowance, type VerifiedAccessToken } from './accessTokens.js';

/** A `Headers` (fetch, Next.js, Hono…) or Node's `IncomingMessage.headers`. */
export type RequestHeaders =
  | {
      /** The header's value, or null when the request has none. */
      get(name: string): string | null;
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** A request as servers have one: a `Request`, Node's `IncomingMessage`, or anything with its headers. */
export interface RequestLike {
  headers: RequestHeaders;
}

/** The SDK's prefix of a bearer credential that is base64 JSON rather than a token. */
const STACK_BEARER_PREFIX = 'stackauth_';
/** Room for the JSON and base64 around a token of the longest length checked. */
const MAX_HEADER_LENGTH = 2 * MAX_ACCESS_TOKEN_LENGTH;

const refuse = (why: string) =>
  knownErrorWithTemplate('UNPARSABLE_ACCESS_TOKEN', `Access token is not parsable: ${why}.`);

function headerOf(headers: RequestHeaders, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    // Node joins repeated headers for most names but keeps an array for some: a token sent twice is one too many.
    if (Array.isArray(value))
      return value.length <= 1 ? ((value[0] as string | undefined) ?? null) : refusedTwice(name);
    return typeof value === 'string' ? value : null;
  }
  return null;
}

function refusedTwice(name: string): never {
  throw refuse(`the ${name} header came more than once`);
}

/** The access token of a JSON object `{ accessToken, refreshToken }`, as both SDK forms carry it. */
function accessTokenOfJson(text: string, where: string): string | null {
  if (text.length > MAX_HEADER_LENGTH) throw refuse(`the ${where} is ${text.length} characters long`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse(`the ${where} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse(`the ${where} is not a JSON object`);
  const token = (parsed as { accessToken?: unknown }).accessToken;
  if (token === undefined || token === null) return null;
  if (typeof token !== 'string' || token === '') throw refuse(`the ${where}'s accessToken is not a string`);
  return token;
}

function decodeBase64(text: string): string {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard)) throw refuse('the stackauth_ credential is not base64');
  return new TextDecoder().decode(Uint8Array.from(atob(standard), (c) => c.charCodeAt(0)));
}

/**
 * The access token `request` carries (null when it carries none: nobody is signed in). A header that
 * is there but cannot be read is UNPARSABLE_ACCESS_TOKEN, as the service answers a malformed token.
 */
export function accessTokenOfRequest(request: RequestLike): string | null {
  const headers = request?.headers;
  if (typeof headers !== 'object' || headers === null) throw refuse('the request has no headers');
  const authorization = headerOf(headers, 'authorization');
  if (authorization !== null && authorization !== '') {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (bearer === null) throw refuse('the Authorization header is not a Bearer credential');
    const credential = bearer[1]!;
    if (!credential.startsWith(STACK_BEARER_PREFIX)) return credential;
    const encoded = credential.slice(STACK_BEARER_PREFIX.length);
    if (encoded.length > MAX_HEADER_LENGTH) throw refuse(`the stackauth_ credential is ${encoded.length} long`);
    return accessTokenOfJson(decodeBase64(encoded), 'stackauth_ credential');
  }
  const stackAuth = headerOf(headers, AUTH_HEADER);
  if (stackAuth !== null && stackAuth !== '') return accessTokenOfJson(stackAuth, `${AUTH_HEADER} header`);
  const bare = headerOf(headers, 'x-stack-access-token');
  return bare === null || bare === '' ? null : bare;
}

/**
 * `verifyRequest` of a server app: the request's access token (any form above) checked as
 * `verifyAccessToken` checks one; null when the request carries none.
 */
export function createRequestVerifier(
  verify: (token: string, allow?: AccessTokenAllowance) => Promise<VerifiedAccessToken>,
): (request: RequestLike, allow?: AccessTokenAllowance) => Promise<VerifiedAccessToken | null> {
  return async (request, allow) => {
    const token = accessTokenOfRequest(request);
    return token === null ? null : verify(token, allow);
  };
}
