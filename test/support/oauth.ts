import { expect } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import {
  buildAuthorizeUrl,
  createOAuthState,
  createPkcePair,
  exchangeAuthorizationCode,
  redirectUriOfFlow,
  type AuthorizeUrlParams,
} from '../../protocol/authorizationCode.js';
import type { AuthorizationCodeTokens } from '../../protocol/resources/session.js';
import { APP } from './authFlows.js';

export const REDIRECT_URI = `${APP}/handler/oauth-callback`;
export const ERROR_URL = `${APP}/handler/oauth-error`;

export interface StartedFlow {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  /** The mock provider's consent page the service redirected to. */
  consentUrl: URL;
  /** `name=value` of the inner cookie, as a browser would send it back. */
  cookie: string;
  setCookie: string;
}

export type StartOptions = Partial<Omit<AuthorizeUrlParams, 'state' | 'codeChallenge'>> & {
  project?: 'demo' | 'internal';
};

export function tokenOptions(em: RunningEmulator, project: 'demo' | 'internal' = 'demo') {
  const keys = em.projects[project];
  return { baseUrl: em.url, projectId: keys.id, publishableClientKey: keys.publishableClientKey };
}

/** The authorize URL a browser would open (through the protocol helper). */
export async function authorizeUrl(em: RunningEmulator, options: StartOptions = {}) {
  const state = createOAuthState();
  const pkce = await createPkcePair();
  const redirectUri = options.redirectUri ?? REDIRECT_URI;
  const url = buildAuthorizeUrl(tokenOptions(em, options.project), {
    providerId: options.providerId ?? 'github',
    redirectUri,
    state,
    codeChallenge: pkce.codeChallenge,
    ...(options.type === undefined ? {} : { type: options.type }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.providerScope === undefined ? {} : { providerScope: options.providerScope }),
    errorRedirectUrl: options.errorRedirectUrl ?? ERROR_URL,
    ...(options.afterCallbackRedirectUrl === undefined
      ? {}
      : { afterCallbackRedirectUrl: options.afterCallbackRedirectUrl }),
  });
  // What the URL sent as redirect_uri (with the flow's state in it), as the token endpoint must get it again.
  return { url, state, codeVerifier: pkce.codeVerifier, redirectUri: redirectUriOfFlow(redirectUri, state) };
}

/** `GET /auth/oauth/authorize/{provider}` → 307 to the consent page, with the inner cookie. */
export async function startFlow(em: RunningEmulator, options: StartOptions = {}): Promise<StartedFlow> {
  const { url, state, codeVerifier, redirectUri } = await authorizeUrl(em, options);
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(307);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const consentUrl = new URL(response.headers.get('location')!);
  return { state, codeVerifier, redirectUri, consentUrl, cookie: setCookie.split(';')[0]!, setCookie };
}

/**
 * Follows an authorize URL an app navigated to (one the test did not build), up to the mock provider's consent page.
 */
export async function providerPage(authorizeUrl: string): Promise<StartedFlow> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(307);
  const setCookie = response.headers.get('set-cookie') ?? '';
  return {
    state: '',
    codeVerifier: '',
    redirectUri: '',
    consentUrl: new URL(response.headers.get('location')!),
    cookie: setCookie.split(';')[0]!,
    setCookie,
  };
}

/** Submits the consent form as a person would (plain form POST); returns where the provider sends the browser. */
export async function consent(
  flow: StartedFlow,
  input: { email?: string; display_name?: string; email_verified?: boolean; action?: 'approve' | 'deny' },
): Promise<URL> {
  const form = new URLSearchParams();
  for (const key of ['client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method'])
    form.set(key, flow.consentUrl.searchParams.get(key) ?? '');
  if (input.email !== undefined) form.set('email', input.email);
  if (input.display_name !== undefined) form.set('display_name', input.display_name);
  if (input.email_verified === false) form.set('email_verified', 'false');
  form.set('action', input.action ?? 'approve');
  const response = await fetch(flow.consentUrl.origin + flow.consentUrl.pathname, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  expect(response.status, await response.clone().text()).toBe(303);
  return new URL(response.headers.get('location')!);
}

/** The browser arriving at the service's callback (with or without the inner cookie). */
export async function callback(providerCallback: URL, cookie: string | null) {
  const response = await fetch(providerCallback, { redirect: 'manual', headers: cookie === null ? {} : { cookie } });
  const text = await response.text();
  return { status: response.status, location: response.headers.get('location'), headers: response.headers, text };
}

export interface CompletedFlow extends StartedFlow {
  /** Where the service finally sent the browser (the client's redirect URI with code and state, or the error URL). */
  finalUrl: URL;
}

/** authorize → consent → callback; expects the redirect back to the client (303 with the code, 307 with an error). */
export async function runFlow(
  em: RunningEmulator,
  account: { email: string; display_name?: string; email_verified?: boolean },
  options: StartOptions = {},
): Promise<CompletedFlow> {
  const flow = await startFlow(em, options);
  const atCallback = await consent(flow, account);
  const result = await callback(atCallback, flow.cookie);
  expect([303, 307], result.text).toContain(result.status);
  return { ...flow, finalUrl: new URL(result.location!) };
}

export function exchange(
  em: RunningEmulator,
  flow: CompletedFlow,
  override: { codeVerifier?: string; redirectUri?: string; project?: 'demo' | 'internal' } = {},
): Promise<AuthorizationCodeTokens> {
  return exchangeAuthorizationCode(tokenOptions(em, override.project), {
    callbackUrl: flow.finalUrl,
    expectedState: flow.state,
    redirectUri: override.redirectUri ?? flow.redirectUri,
    codeVerifier: override.codeVerifier ?? flow.codeVerifier,
  });
}

/** Signs in with the mock provider end to end. */
export async function oauthSignIn(
  em: RunningEmulator,
  account: { email: string; display_name?: string; email_verified?: boolean },
  options: StartOptions = {},
) {
  const flow = await runFlow(em, account, options);
  return { flow, tokens: await exchange(em, flow, options.project === undefined ? {} : { project: options.project }) };
}
