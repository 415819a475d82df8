import { requireNonEmptyString, requireObject, requireSwitches } from '../args.js';
import { trimBaseUrl } from '../diagnostics.js';
import { ProtocolError } from '../errors/errors.js';
import { responseStatusError } from '../errors/redact.js';
import type { CliAnonymousSession, CliLoginCheck, CliLoginStarted, CliPollResult } from '../resources/session.js';
import type { SuccessResponse } from '../resources/common.js';
import type { Transport } from '../transport.js';

/** `GET /api/v1`: the welcome text, which also says how the request was authenticated. */
export function getApiInfo(t: Transport): Promise<string> {
  return t.request({ method: 'GET', path: '/' });
}

/** A project's public signing keys (JWKS), which verify its access tokens. */
export interface JsonWebKeySet {
  keys: Array<{ kty: string; alg: string; crv: string; kid: string; x: string; y: string }>;
}

/**
 * Which users' keys a key set holds besides the project's own: restricted users' (audience `<project>:restricted`),
 * anonymous users' (`<project>:anon`, with restricted users').
 */
export interface JwksAudiences {
  restricted?: boolean;
  anonymous?: boolean;
}

/**
 * The URL of a project's key set, with the other audiences' keys when asked for (`include_restricted`,
 * `include_anonymous`).
 */
export function projectJwksUrl(baseUrl: string, projectId: string, include: JwksAudiences = {}): string {
  requireSwitches(include, 'include', ['restricted', 'anonymous']);
  const url = `${trimBaseUrl(baseUrl)}/api/v1/projects/${encodeURIComponent(requireNonEmptyString(projectId, 'projectId'))}/.well-known/jwks.json`;
  return include.anonymous === true
    ? `${url}?include_anonymous=true`
    : include.restricted === true
      ? `${url}?include_restricted=true`
      : url;
}

/**
 * The project's public signing keys, for verifying access tokens on your own server. Anonymous and
 * restricted users' tokens are signed with keys of their own, in the set only when `include` asks.
 */
export async function getProjectJwks(
  baseUrl: string,
  projectId: string,
  fetchFn: typeof fetch = globalThis.fetch.bind(globalThis),
  include: JwksAudiences = {},
): Promise<JsonWebKeySet> {
  const url = projectJwksUrl(baseUrl, projectId, include);
  const response = await fetchFn(url, { credentials: 'omit', cache: 'no-store' });
  const text = await response.text();
  if (!response.ok) throw responseStatusError(response.status, text);
  try {
    return JSON.parse(text) as JsonWebKeySet;
  } catch {
    throw new ProtocolError(`The JWKS of ${projectId} is not JSON.`);
  }
}

/** `GET {baseUrl}/health` (outside the API). True when the service answers 200. */
export async function checkHealth(
  baseUrl: string,
  fetchFn: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<boolean> {
  try {
    const response = await fetchFn(`${trimBaseUrl(baseUrl)}/health`, { credentials: 'omit', cache: 'no-store' });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Reports an unsupported feature to the service (fire-and-forget upstream). */
export function checkFeatureSupport(
  t: Transport,
  input: { feature_name?: string; [key: string]: unknown },
): Promise<string> {
  return t.request({ method: 'POST', path: '/check-feature-support', body: requireObject(input, 'input') });
}

/** Asks the service whether this client version is supported. */
export function checkVersion(
  t: Transport,
  clientVersion: string,
): Promise<{ upToDate: boolean; error?: string; severe?: boolean }> {
  return t.request({
    method: 'POST',
    path: '/check-version',
    body: { clientVersion: requireNonEmptyString(clientVersion, 'clientVersion') },
    user: 'none',
  });
}

/**
 * CLI login, step 1 (the CLI): a polling code to keep and a login code for the browser. With
 * `anon_refresh_token` (the CLI's anonymous user's session), a browser with nobody signed in can take
 * that user over and upgrade it (`claimCliAnonymousSession`).
 */
export function startCliLogin(
  t: Transport,
  options: { expires_in_millis?: number; anon_refresh_token?: string } = {},
): Promise<CliLoginStarted> {
  return t.request({ method: 'POST', path: '/auth/cli', body: requireObject(options, 'options'), user: 'none' });
}

/** CLI login, step 2 (a signed-in browser): hands its refresh token to the waiting CLI. */
export function completeCliLogin(
  t: Transport,
  input: { login_code: string; refresh_token: string },
): Promise<SuccessResponse> {
  requireObject(input, 'input');
  return t.request({
    method: 'POST',
    path: '/auth/cli/complete',
    body: {
      login_code: requireNonEmptyString(input.login_code, 'login_code'),
      refresh_token: requireNonEmptyString(input.refresh_token, 'refresh_token'),
    },
  });
}

/** CLI login, before step 2: whether the CLI brought an anonymous user the browser could take over. */
export function checkCliLogin(t: Transport, loginCode: string): Promise<CliLoginCheck> {
  return t.request({
    method: 'POST',
    path: '/auth/cli/complete',
    body: { login_code: requireNonEmptyString(loginCode, 'loginCode'), mode: 'check' },
    user: 'none',
  });
}

/**
 * CLI login, instead of step 2 when nobody is signed in: the CLI's anonymous user's session, once,
 * for the browser to sign in with, upgrade by signing up, and then complete.
 */
export function claimCliAnonymousSession(t: Transport, loginCode: string): Promise<CliAnonymousSession> {
  return t.request({
    method: 'POST',
    path: '/auth/cli/complete',
    body: { login_code: requireNonEmptyString(loginCode, 'loginCode'), mode: 'claim-anon-session' },
    user: 'none',
  });
}

/** CLI login, step 3 (the CLI): `success` once, with the refresh token. */
export function pollCliLogin(t: Transport, pollingCode: string): Promise<CliPollResult> {
  return t.request({
    method: 'POST',
    path: '/auth/cli/poll',
    body: { polling_code: requireNonEmptyString(pollingCode, 'pollingCode') },
    user: 'none',
  });
}
