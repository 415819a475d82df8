import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AuthBrokerError,
  checkRedirectTarget,
  ClientError,
  handlerPaths,
  handlerUrls,
  HttpStatusError,
  isKnownError,
  KnownError,
  NetworkError,
  ProtocolError,
  safeRedirectTarget,
  type OAuthResult,
} from '../../client/index.js';
import { describeError } from '../../client/messages.js';
import { oauthMethods } from '../../client/oauth.js';
import type { BrokerApi } from '../../contract/api.js';
import { useEmulator } from '../support/emulator.js';
import { callback, consent, providerPage } from '../support/oauth.js';
import { newClient, PAGE_ORIGIN, recordNavigations, resetBrowser } from './react/helpers.js';

const emulator = useEmulator();
afterEach(async () => {
  history.replaceState(null, '', '/');
  await resetBrowser();
});

const urls = handlerUrls(handlerPaths({ afterSignIn: '/dashboard', afterSignUp: '/welcome' }), PAGE_ORIGIN);
const CALLBACK_PATH = '/handler/oauth-callback';

/** A broker that only completes OAuth, noting what the address bar showed when it was asked. */
function fakeBroker(result: OAuthResult | Error) {
  const asked: Array<{ callbackUrl: string; addressBar: string; historyLength: number }> = [];
  const api = {
    completeOAuth: vi.fn(async ({ callbackUrl }: { callbackUrl: string }) => {
      asked.push({ callbackUrl, addressBar: document.location.href, historyLength: history.length });
      if (result instanceof Error) throw result;
      return result;
    }),
    startOAuth: vi.fn(async (_input: Parameters<BrokerApi['startOAuth']>[0]) => ({
      url: 'http://127.0.0.1:1/api/v1/auth/oauth/authorize/github?state=s',
    })),
  };
  return {
    api,
    asked,
    methods: oauthMethods(async () => api as unknown as BrokerApi, urls, [], {
      checkRedirectTarget,
      safeRedirectTarget,
    }),
  };
}

const signedIn = (over: Partial<Extract<OAuthResult, { status: 'signed-in' }>> = {}): OAuthResult => ({
  status: 'signed-in',
  userId: 'u-1',
  isNewUser: false,
  type: 'authenticate',
  afterCallbackRedirectUrl: null,
  ...over,
});

describe('handleOAuthCallback with a fake broker', () => {
  it('removes code and state from the address bar (replacing, not adding, a history entry) before the broker is asked', async () => {
    history.replaceState({ page: 'kept' }, '', `${CALLBACK_PATH}?code=secret-code&state=secret-state&utm=1#frag`);
    const lengthBefore = history.length;
    recordNavigations();
    const { methods, asked } = fakeBroker(signedIn());
    await methods.handleOAuthCallback();
    expect(asked).toEqual([
      {
        callbackUrl: `${PAGE_ORIGIN}${CALLBACK_PATH}?code=secret-code&state=secret-state&utm=1#frag`,
        addressBar: `${PAGE_ORIGIN}${CALLBACK_PATH}?utm=1`,
        historyLength: lengthBefore,
      },
    ]);
    expect(history.state).toEqual({ page: 'kept' });
  });

  it.each([
    [
      'the afterCallbackRedirectUrl of the flow',
      signedIn({ afterCallbackRedirectUrl: `${PAGE_ORIGIN}/projects/42` }),
      `${PAGE_ORIGIN}/projects/42`,
    ],
    ['after-sign-up for a new user', signedIn({ isNewUser: true }), `${PAGE_ORIGIN}/welcome`],
    ['after-sign-in for a returning user', signedIn(), `${PAGE_ORIGIN}/dashboard`],
  ])('navigates (replacing the callback page) to %s', async (_, result, target) => {
    history.replaceState(null, '', `${CALLBACK_PATH}?code=c&state=s`);
    const { assign, replace } = recordNavigations();
    const { methods } = fakeBroker(result);
    await expect(methods.handleOAuthCallback()).resolves.toEqual(result);
    expect(replace.mock.calls).toEqual([[target]]);
    expect(assign).not.toHaveBeenCalled();
  });

  it('stays on the page with navigate: false, and when a second factor is needed', async () => {
    const { replace } = recordNavigations();
    history.replaceState(null, '', `${CALLBACK_PATH}?code=c&state=s`);
    await fakeBroker(signedIn()).methods.handleOAuthCallback({ navigate: false });
    history.replaceState(null, '', `${CALLBACK_PATH}?code=c&state=s`);
    const mfa: OAuthResult = {
      status: 'mfa-required',
      attemptCode: 'attempt',
      type: 'authenticate',
      afterCallbackRedirectUrl: null,
    };
    await expect(fakeBroker(mfa).methods.handleOAuthCallback()).resolves.toEqual(mfa);
    expect(replace).not.toHaveBeenCalled();
    expect(document.location.search).toBe('');
  });

  it('cleans the address bar even when the broker refuses the callback', async () => {
    history.replaceState(null, '', `${CALLBACK_PATH}?code=c&state=s`);
    const { replace } = recordNavigations();
    const { methods } = fakeBroker(
      new ClientError('OAUTH_FLOW_NOT_FOUND', 'This sign-in was already completed or has expired. Please start again.'),
    );
    await expect(methods.handleOAuthCallback()).rejects.toMatchObject({ code: 'OAUTH_FLOW_NOT_FOUND' });
    expect(document.location.href).toBe(`${PAGE_ORIGIN}${CALLBACK_PATH}`);
    expect(replace).not.toHaveBeenCalled();
  });

  it('signInWithOAuth and linkOAuthAccount start the flow with the handler URLs and go to the provider', async () => {
    history.replaceState(null, '', '/account?tab=connections');
    const { assign } = recordNavigations();
    const { methods, api } = fakeBroker(signedIn());
    await methods.signInWithOAuth('github', { scopes: ['repo'], afterCallbackRedirectUrl: `${PAGE_ORIGIN}/after` });
    await methods.linkOAuthAccount('google', ['drive.readonly', 'calendar']);
    expect(api.startOAuth.mock.calls.map(([input]) => input)).toEqual([
      {
        providerId: 'github',
        redirectUri: urls.oauthCallback,
        errorRedirectUrl: urls.error,
        afterCallbackRedirectUrl: `${PAGE_ORIGIN}/after`,
        scopes: ['repo'],
      },
      {
        providerId: 'google',
        type: 'link',
        redirectUri: urls.oauthCallback,
        errorRedirectUrl: urls.error,
        afterCallbackRedirectUrl: `${PAGE_ORIGIN}/account?tab=connections`,
        scopes: ['drive.readonly', 'calendar'],
      },
    ]);
    expect(assign).toHaveBeenCalledTimes(2);
  });
});

describe('the whole flow against the emulator, with the in-page broker', () => {
  beforeEach(async () => {
    // jsdom's ArrayBuffer and Uint8Array are not those of Node's crypto and TextEncoder, which
    // oauth4webapi's instanceof checks trip over (a browser has one realm): use Node's here.
    vi.stubGlobal(
      'ArrayBuffer',
      Object.getPrototypeOf(await crypto.subtle.digest('SHA-256', new Uint8Array(1))).constructor,
    );
    vi.stubGlobal('Uint8Array', Object.getPrototypeOf(new TextEncoder().encode('')).constructor);
  });

  it('a new user: the callback page signs in, cleans the address bar and goes to after-sign-up', async () => {
    const client = newClient(emulator(), { handlerPaths: { afterSignUp: '/welcome' } });
    const { assign, replace } = recordNavigations();
    await client.signInWithOAuth('github');
    const flow = await providerPage(assign.mock.calls[0]![0] as string);
    const email = `oauth-${Date.now().toString(36)}@example.com`;
    const back = await callback(await consent(flow, { email, display_name: 'Octo Cat' }), flow.cookie);
    const landing = new URL(back.location!);
    expect(landing.origin + landing.pathname).toBe(client.urls.oauthCallback);
    history.replaceState(null, '', landing.pathname + landing.search);

    const result = await client.handleOAuthCallback();
    expect(result).toMatchObject({ status: 'signed-in', isNewUser: true, type: 'authenticate' });
    expect(document.location.href).toBe(client.urls.oauthCallback);
    expect(replace.mock.calls).toEqual([[`${PAGE_ORIGIN}/welcome`]]);
    const user = await client.read({ kind: 'currentUser' });
    expect(user).toMatchObject({ primaryEmail: email, displayName: 'Octo Cat' });
    expect(user?.oauthProviders.map((p) => p.id)).toEqual(['github']);
  });

  it('an error the service redirects (errorCode, message, details) is a typed KnownError', async () => {
    const client = newClient(emulator());
    const { assign, replace } = recordNavigations();
    // The service sends a failed callback to the redirect URI, so handleOAuthCallback sees it.
    await client.signInWithOAuth('github');
    const flow = await providerPage(assign.mock.calls[0]![0] as string);
    const back = await callback(await consent(flow, { action: 'deny' }), flow.cookie);
    const landing = new URL(back.location!);
    expect(landing.searchParams.get('errorCode')).toBe('OAUTH_PROVIDER_ACCESS_DENIED');
    history.replaceState(null, '', landing.pathname + landing.search);

    const error = await client.handleOAuthCallback().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KnownError);
    expect(isKnownError(error, 'OAUTH_PROVIDER_ACCESS_DENIED')).toBe(true);
    expect(error).toMatchObject({
      code: 'OAUTH_PROVIDER_ACCESS_DENIED',
      message: 'The sign-in did not finish (OAUTH_PROVIDER_ACCESS_DENIED).',
    });
    // The flow's state came back in the redirect URI, which is how the broker knew it for its own.
    expect(landing.searchParams.get('state')).toMatch(/.{16,}/);
    expect(describeError(error)).toBe('Sign-in was cancelled at the provider.');
    // And the error page shows it, by its code only.
    expect(replace).toHaveBeenCalledTimes(1);
    const shown = new URL(replace.mock.calls[0]![0] as string);
    expect(shown.pathname).toBe(new URL(client.urls.error).pathname);
    expect(Object.fromEntries(shown.searchParams)).toEqual({ errorCode: 'OAUTH_PROVIDER_ACCESS_DENIED' });
    expect(await client.read({ kind: 'currentUser' })).toBeNull();
  });
});

describe('a crafted link to the callback page says nothing of its own', () => {
  const LURE = 'Your account is locked. Call +1 555 0100 now.';
  const rejection = async (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (e: unknown) => e,
    );
  beforeEach(async () => {
    vi.stubGlobal(
      'ArrayBuffer',
      Object.getPrototypeOf(await crypto.subtle.digest('SHA-256', new Uint8Array(1))).constructor,
    );
    vi.stubGlobal('Uint8Array', Object.getPrototypeOf(new TextEncoder().encode('')).constructor);
  });

  it.each([
    [
      'a known code without state',
      `errorCode=USER_NOT_FOUND&message=${encodeURIComponent(LURE)}`,
      'OAUTH_CALLBACK_INVALID',
    ],
    [
      'an unknown code without state',
      `errorCode=ACCOUNT_LOCKED&message=${encodeURIComponent(LURE)}`,
      'OAUTH_CALLBACK_INVALID',
    ],
    ['a sentence as the code', `errorCode=${encodeURIComponent(LURE)}`, 'OAUTH_CALLBACK_INVALID'],
    [
      'a state no flow of this browser has',
      `errorCode=USER_NOT_FOUND&state=abcdefghijklmnop&message=${encodeURIComponent(LURE)}`,
      'OAUTH_FLOW_NOT_FOUND',
    ],
    [
      'an OAuth error with a description',
      `error=access_denied&error_description=${encodeURIComponent(LURE)}&state=abcdefghijklmnop`,
      'OAUTH_FLOW_NOT_FOUND',
    ],
  ])('%s: our sentence, none of the link’s text', async (_, query, code) => {
    const client = newClient(emulator());
    history.replaceState(null, '', `${CALLBACK_PATH}?${query}`);
    const error = await rejection(client.handleOAuthCallback());
    expect(error).toMatchObject({ code });
    expect(JSON.stringify(error)).not.toContain('555');
    expect(describeError(error)).not.toContain('555');
    expect(await client.read({ kind: 'currentUser' })).toBeNull();
  });

  it('a provider error for a flow this browser started: its code, never its description', async () => {
    const client = newClient(emulator());
    const { assign } = recordNavigations();
    await client.signInWithOAuth('github');
    const state = new URL(assign.mock.calls[0]![0] as string).searchParams.get('state')!;
    history.replaceState(
      null,
      '',
      `${CALLBACK_PATH}?error=access_denied&error_description=${encodeURIComponent(LURE)}&state=${state}`,
    );
    const error = await rejection(client.handleOAuthCallback());
    expect(error).toMatchObject({
      code: 'OAUTH_CALLBACK_INVALID',
      message: 'The sign-in provider refused the sign-in (access_denied).',
    });
    expect(describeError(error)).not.toContain('555');
  });
});

describe('describeError: sentences for people', () => {
  it('known codes get their sentence, whatever form the error arrives in', () => {
    const mismatch = new KnownError('EMAIL_PASSWORD_MISMATCH', undefined, 'Wrong e-mail or password.', 400);
    expect(describeError(mismatch)).toBe('That e-mail and password do not match. Check them and try again.');
    expect(describeError(mismatch.toJSON())).toBe(describeError(mismatch));
    expect(describeError(new ClientError('NOT_SIGNED_IN', 'x'))).toBe('Please sign in first.');
    expect(describeError(new NetworkError('NETWORK_OFFLINE', 'offline', null, 1))).toMatch(/^You are offline\./);
  });

  it('otherwise the error’s own message, and a fallback sentence for anything else', () => {
    expect(describeError(new ClientError('LOCK_TIMEOUT', 'The session is busy in another tab.'))).toBe(
      'The session is busy in another tab.',
    );
    for (const value of [
      null,
      undefined,
      'boom',
      42,
      {},
      { code: 'SOMETHING_NEW', details: { a: 1 } },
      new Error(''),
    ]) {
      expect(describeError(value)).toBe('Something went wrong. Please try again.');
    }
  });

  it('never shows JSON: raw service bodies and protocol noise become sentences', () => {
    const json = new HttpStatusError(500, '{"error":"internal","trace":[1,2]}');
    const weird = new ProtocolError('{"code":"X"}');
    for (const error of [json, weird, { message: '[1,2,3]' }]) {
      const text = describeError(error);
      expect(text).not.toMatch(/[{}[\]]/);
      expect(text).toMatch(/^[A-Z].*\.$/);
    }
    expect(describeError(new HttpStatusError(503, 'Service Unavailable'))).toMatch(/^[A-Z][^{}]*\.$/);
  });

  it('every sentence is a sentence', () => {
    const codes = [
      'EMAIL_PASSWORD_MISMATCH',
      'PASSKEY_WEBAUTHN_ERROR',
      'TEAM_MEMBERSHIP_NOT_FOUND',
      'OAUTH_FLOW_NOT_FOUND',
      'BROKER_UNAVAILABLE',
      'VERIFICATION_CODE_EXPIRED',
    ];
    for (const code of codes)
      expect(describeError({ code, message: 'raw' } as unknown as AuthBrokerError)).toMatch(/^[A-Z][^{}]*[.]$/);
  });
});
