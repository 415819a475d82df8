import { trimBaseUrl } from './diagnostics.js';
import { ProtocolError } from './errors/errors.js';
import { redactBody } from './errors/redact.js';
import { type AnyKnownError } from './errors/knownError.js';
import { knownErrorFromBody } from './errors/create.js';
import type { AccessType } from './resources/common.js';
import { PROTOCOL_HEADER } from './credentials.js';
import { CLIENT_VERSION_HEADER_VALUE } from './version.js';

/** The HTTP methods API v1 uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A query-string value (undefined: left out). */
export type QueryValue = string | number | boolean | undefined;
/** A request's query string, as an object. */
export type QueryParams = Readonly<Record<string, QueryValue>>;

/** Everything that goes into the `x-stack-*` headers of one request (PROTOCOL.md §1.2–1.3). */
export interface RequestCredentials {
  projectId: string;
  accessType: AccessType;
  publishableClientKey?: string | undefined;
  secretServerKey?: string | undefined;
  superSecretAdminKey?: string | undefined;
  /** An access token of the `internal` project; replaces the key check for any access type. */
  adminAccessToken?: string | undefined;
  /** The signed-in user's access token. */
  accessToken?: string | undefined;
  /**
   * Sent only to the two endpoints that read it (`/auth/sessions/current/refresh` and
   * `/auth/password/update`): it authenticates nothing elsewhere, so it stays off the wire.
   */
  refreshToken?: string | undefined;
}

/** A request ready for `fetch`: its URL and init. */
export interface EncodedRequest {
  url: string;
  init: RequestInit & { method: HttpMethod; headers: Headers };
}

/** `{baseUrl}/api/v1{path}?query`, with one trailing slash removed as the service expects. */
export function apiUrl(baseUrl: string, path: string, query?: QueryParams): string {
  let url = `${trimBaseUrl(baseUrl)}/api/v1${path}`;
  if (url.endsWith('/')) url = url.slice(0, -1);
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(key, String(value));
  }
  const encoded = search.toString();
  return encoded === '' ? url : `${url}?${encoded}`;
}

function randomNonce(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The headers of an API call for one access type. Later sources win: standard, extra, per call;
 * except that an extra header never replaces one the protocol sets (access type, project, keys,
 * tokens: `PROTOCOL_HEADER`, in both header families), whatever checked the options or did not.
 */
export function buildHeaders(
  credentials: RequestCredentials,
  options: {
    hasBody: boolean;
    extraHeaders?: Readonly<Record<string, string>>;
    callHeaders?: Readonly<Record<string, string>>;
  } = { hasBody: false },
): Headers {
  const headers = new Headers();
  headers.set('x-stack-project-id', credentials.projectId);
  headers.set('x-stack-access-type', credentials.accessType);
  headers.set('x-stack-client-version', CLIENT_VERSION_HEADER_VALUE);
  headers.set('x-stack-override-error-status', 'true');
  headers.set('x-stack-random-nonce', randomNonce());
  if (credentials.adminAccessToken !== undefined) {
    headers.set('x-stack-admin-access-token', credentials.adminAccessToken);
  } else {
    // Keys of another access type are ignored by the service, so only the matching one is sent.
    if (credentials.accessType === 'client' && credentials.publishableClientKey !== undefined) {
      headers.set('x-stack-publishable-client-key', credentials.publishableClientKey);
    }
    if (credentials.accessType === 'server' && credentials.secretServerKey !== undefined) {
      headers.set('x-stack-secret-server-key', credentials.secretServerKey);
    }
    if (credentials.accessType === 'admin' && credentials.superSecretAdminKey !== undefined) {
      headers.set('x-stack-super-secret-admin-key', credentials.superSecretAdminKey);
    }
  }
  if (credentials.accessToken !== undefined) {
    headers.set('x-stack-access-token', credentials.accessToken);
    // The service refuses an anonymous user's token without this (ANONYMOUS_AUTHENTICATION_NOT_ALLOWED),
    // and the official SDK always sends it: an anonymous user is a user the app chose to create.
    headers.set('x-stack-allow-anonymous-user', 'true');
  }
  if (credentials.refreshToken !== undefined) headers.set('x-stack-refresh-token', credentials.refreshToken);
  if (options.hasBody) headers.set('content-type', 'application/json');
  for (const [name, value] of Object.entries(options.extraHeaders ?? {}))
    if (!PROTOCOL_HEADER.test(name)) headers.set(name, value);
  for (const [name, value] of Object.entries(options.callHeaders ?? {})) headers.set(name, value);
  return headers;
}

/** One API call: method, path under `/api/v1`, query, body and extra headers. */
export interface RequestSpec {
  method: HttpMethod;
  path: string;
  query?: QueryParams | undefined;
  /** JSON-encoded when not undefined. */
  body?: unknown;
  headers?: Readonly<Record<string, string>> | undefined;
}

/** Turns a call and its credentials into a `fetch` request, headers included. */
export function encodeRequest(
  baseUrl: string,
  spec: RequestSpec,
  credentials: RequestCredentials,
  extraHeaders?: Readonly<Record<string, string>>,
): EncodedRequest {
  const hasBody = spec.body !== undefined;
  const headers = buildHeaders(credentials, {
    hasBody,
    ...(extraHeaders === undefined ? {} : { extraHeaders }),
    ...(spec.headers === undefined ? {} : { callHeaders: spec.headers }),
  });
  // The service never redirects an API call. Following one would re-send the keys, the access token
  // and any sign-in body to wherever the redirect points (a captive portal, a hijacked proxy), so
  // redirects are not followed: `decodeResponse` turns the answer into a ProtocolError.
  const init: EncodedRequest['init'] = {
    method: spec.method,
    headers,
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'manual',
  };
  if (hasBody) init.body = JSON.stringify(spec.body);
  return { url: apiUrl(baseUrl, spec.path, spec.query), init };
}

/** What one HTTP exchange amounted to, once the override status is undone. */
export type DecodedResponse =
  | { kind: 'ok'; status: number; body: unknown }
  | { kind: 'known-error'; status: number; error: AnyKnownError }
  | { kind: 'http-error'; status: number; body: string; retryAfter: string | null };

function actualStatus(response: Response): number {
  const header = response.headers.get('x-stack-actual-status');
  if (header === null) return response.status;
  const status = Number(header);
  if (!/^\d{3}$/.test(header.trim()) || status < 100 || status > 599) {
    throw new ProtocolError(`x-stack-actual-status is not an HTTP status: ${JSON.stringify(header)}.`);
  }
  return status;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not the text itself: a success body holds tokens, and a broken one may hold them too.
    throw new ProtocolError(`${what} is not valid JSON (${text.length} characters).`);
  }
}

/**
 * Throws a ProtocolError for a redirect answered to a request made with `redirect: 'manual'`
 * (opaque in browsers, a plain 3xx in Node): the service never redirects an API call.
 */
export function refuseRedirect(response: Response): void {
  if (response.type !== 'opaqueredirect' && (response.status < 300 || response.status >= 400)) return;
  void response.body?.cancel().catch(() => undefined);
  const location = response.headers.get('location');
  throw new ProtocolError(
    `The service answered with a redirect${location === null ? '' : ` to ${redactBody(location, 200)}`}, not followed: check baseUrl (http or https, a path?) and proxies.`,
  );
}

/** Whether a content type is JSON (`application/json`, `application/problem+json`, with parameters). */
function isJsonContentType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/**
 * Reads a response the way the service means it (PROTOCOL.md §2.4): the real status from
 * `x-stack-actual-status`, then a known error when `x-stack-known-error` is set (whose value must
 * equal the body's code), then success or a plain error.
 */
export async function decodeResponse(response: Response): Promise<DecodedResponse> {
  refuseRedirect(response);
  const status = actualStatus(response);
  const text = await response.text();
  const knownErrorHeader = response.headers.get('x-stack-known-error');
  if (knownErrorHeader !== null) {
    const body = parseJson(text, `The body of known error ${knownErrorHeader}`);
    const bodyCode = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
    if (bodyCode !== knownErrorHeader) {
      throw new ProtocolError(`x-stack-known-error ${knownErrorHeader} but the body says ${JSON.stringify(bodyCode)}.`);
    }
    return { kind: 'known-error', status, error: knownErrorFromBody(body, status) };
  }
  if (status >= 200 && status < 300) {
    const contentType = response.headers.get('content-type') ?? '';
    if (text === '') return { kind: 'ok', status, body: undefined };
    // The service answers every call with JSON. Anything else on a success status is someone else
    // answering (a captive portal's login page, a proxy's HTML), never the user's data.
    if (!isJsonContentType(contentType)) {
      throw new ProtocolError(
        `The ${status} answer is ${contentType === '' ? 'not labelled' : `${contentType.split(';')[0]}`}, not JSON: not the service (a captive portal?).`,
      );
    }
    return { kind: 'ok', status, body: parseJson(text, `The ${status} response`) };
  }
  return { kind: 'http-error', status, body: text, retryAfter: response.headers.get('retry-after') };
}
