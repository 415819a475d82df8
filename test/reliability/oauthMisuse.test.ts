import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { ClientError } from '../../protocol/errors/errors.js';
import { isKnownError, KnownError } from '../../protocol/errors/knownError.js';
import { exchangeAuthorizationCode } from '../../protocol/authorizationCode.js';
import type { Broker } from '../../worker/broker.js';
import type { OAuthResult, SessionInfo } from '../../worker/index.js';
import { DATABASE_NAME } from '../../worker/storage/indexedDb.js';
import { createMemoryStorage } from '../../worker/storage/memory.js';
import type { StoredOAuthFlow } from '../../worker/storage/types.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import {
  callback,
  consent,
  ERROR_URL,
  exchange,
  REDIRECT_URI,
  runFlow,
  startFlow,
  tokenOptions,
  type StartedFlow,
} from '../support/oauth.js';
import type { SimulatedTab } from '../support/tabs.js';

/**
 * OAuth misuse: states and codes that are unknown or replayed, a PKCE verifier that does not fit,
 * redirect and error URLs off the trusted list. Each is refused with the right error, and nobody
 * is signed in: the broker stays signed out and the emulator gains no session (nor user, nor code).
 */
const emulator = useEmulator();
const EVIL = 'https://evil.example.com';

const scope = useBrokerScope(emulator);

/** A broker with one tab watching the session; `memory` plays another browser (its own storage). */
async function browser(memory = false): Promise<{ broker: Broker; tab: SimulatedTab }> {
  const started = await scope.start(memory ? { storage: createMemoryStorage() } : {});
  const { broker } = started;
  const tab = await scope.tab(started);
  await tab.subscribe('session', { kind: 'session' });
  return { broker, tab };
}

/** What the emulator holds for the demo project: sessions, users and issued authorization codes. */
function census() {
  const p = emulator().env.store.project(emulator().projects.demo.id)!;
  return {
    sessions: Object.keys(p.sessions).length,
    users: Object.keys(p.users).length,
    codes: Object.keys(p.authorization_codes).length,
    grants: emulator().env.stats.snapshot().token_grants.authorization_code,
  };
}

/** The person's part: authorize → consent page → the service's callback. Returns the callback's answer. */
async function follow(authorizeUrl: string, account: { email?: string; action?: 'approve' | 'deny' }) {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(307);
  const flow = {
    consentUrl: new URL(response.headers.get('location')!),
    cookie: (response.headers.get('set-cookie') ?? '').split(';')[0]!,
  } as StartedFlow;
  const atCallback = await consent(flow, account);
  return { ...(await callback(atCallback, flow.cookie)), atCallback, cookie: flow.cookie };
}

async function refused(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function expectSignedOut(broker: Broker, tab: SimulatedTab): void {
  expect(broker.status().session.status).toBe('signed-out');
  expect(broker.parts.session.sessionKey).toBeNull();
  for (const snapshot of tab.deliveries.get('session') ?? [])
    expect((snapshot.data as SessionInfo).status).not.toBe('signed-in');
}

/** The flow's secrets as the broker stored them (what an attacker with the verifier would hold). */
async function storedFlow(state: string): Promise<StoredOAuthFlow> {
  const db = await openDB(DATABASE_NAME);
  try {
    return (await db.get('oauthFlows', state)) as StoredOAuthFlow;
  } finally {
    db.close();
  }
}

describe('state: unknown or replayed', () => {
  it('at the broker: an unknown state, a callback without one, and the real callback in another browser all find no flow; nothing signed in', async () => {
    const { broker, tab } = await browser();
    const other = await browser(true);
    const { url } = await tab.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT_URI });
    const back = await follow(url, { email: uniqueEmail('state') });
    // The service answers its callback with 303 See Other (the emulator as it).
    expect(back.status).toBe(303);
    const callbackUrl = new URL(back.location!);
    const before = census();

    const unknown = new URL(callbackUrl);
    unknown.searchParams.set('state', 'a-state-this-broker-never-made');
    expect(await refused(tab.api.completeOAuth({ callbackUrl: unknown.toString() }))).toMatchObject({
      name: 'ClientError',
      code: 'OAUTH_FLOW_NOT_FOUND',
    });
    const stateless = new URL(callbackUrl);
    stateless.searchParams.delete('state');
    expect(await refused(tab.api.completeOAuth({ callbackUrl: stateless.toString() }))).toMatchObject({
      name: 'ClientError',
      code: 'OAUTH_CALLBACK_INVALID',
    });
    // The same, real callback opened in a browser that did not start the flow.
    const elsewhere = await refused(other.tab.api.completeOAuth({ callbackUrl: callbackUrl.toString() }));
    expect(elsewhere).toBeInstanceOf(ClientError);
    expect(elsewhere).toMatchObject({ code: 'OAUTH_FLOW_NOT_FOUND' });

    expectSignedOut(broker, tab);
    expectSignedOut(other.broker, other.tab);
    expect(census()).toEqual(before);
    // The refusals consumed nothing: the real callback still completes, here, once.
    expect(await tab.api.completeOAuth({ callbackUrl: callbackUrl.toString() })).toMatchObject({
      status: 'signed-in',
      isNewUser: true,
    });
    expect(census()).toMatchObject({ sessions: before.sessions + 1, grants: 1 });
  });

  it('at the broker: a callback replayed after it completed is refused and signs in nobody new', async () => {
    const { broker, tab } = await browser();
    const { url } = await tab.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT_URI });
    const callbackUrl = (await follow(url, { email: uniqueEmail('replay') })).location!;
    const first = (await tab.api.completeOAuth({ callbackUrl })) as Extract<OAuthResult, { status: 'signed-in' }>;
    const sessionKey = broker.parts.session.sessionKey;
    const before = census();
    for (let i = 0; i < 3; i++)
      expect(await refused(tab.api.completeOAuth({ callbackUrl }))).toMatchObject({
        name: 'ClientError',
        code: 'OAUTH_FLOW_NOT_FOUND',
      });
    expect(census()).toEqual(before);
    expect(broker.parts.session.sessionKey).toBe(sessionKey);
    expect(broker.status().session).toEqual({ status: 'signed-in', userId: first.userId });
  });

  it('at the emulator callback: an unknown state and a replayed callback are plain 400s and issue no code', async () => {
    const em = emulator();
    const flow = await startFlow(em);
    const atCallback = await consent(flow, { email: uniqueEmail('cb') });
    const before = census();
    const unknown = new URL(atCallback);
    unknown.searchParams.set('state', 'zzzz');
    expect(await callback(unknown, 'stack-oauth-inner-zzzz=true')).toMatchObject({
      status: 400,
      location: null,
      text: expect.stringMatching(/^Invalid OAuth (cookie|state)\. Please try signing in again\.$/),
    });
    expect(census()).toEqual(before);

    expect((await callback(atCallback, flow.cookie)).status).toBe(303);
    const issued = census();
    expect(issued.codes).toBe(before.codes + 1);
    const replay = await callback(atCallback, flow.cookie);
    expect(replay).toMatchObject({
      status: 400,
      location: null,
      text: expect.stringMatching(/^Invalid OAuth (cookie|state)\. Please try signing in again\.$/),
    });
    expect(replay.headers.get('x-stack-known-error')).toBeNull();
    expect(census()).toEqual(issued);
  });
});

describe('codes and verifiers', () => {
  it('a code under another flow’s state (its verifier does not fit) is INVALID_AUTHORIZATION_CODE; nothing signed in, and the code is not spent', async () => {
    const { broker, tab } = await browser();
    const target = await tab.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT_URI });
    const decoy = await tab.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT_URI });
    const callbackUrl = new URL((await follow(target.url, { email: uniqueEmail('pkce') })).location!);
    const swapped = new URL(callbackUrl);
    swapped.searchParams.set('state', new URL(decoy.url).searchParams.get('state')!);
    const before = census();
    const error = await refused(tab.api.completeOAuth({ callbackUrl: swapped.toString() }));
    expect(error).toBeInstanceOf(KnownError);
    expect(isKnownError(error, 'INVALID_AUTHORIZATION_CODE')).toBe(true);
    expectSignedOut(broker, tab);
    expect(census()).toEqual(before);
    // The rightful callback still signs in.
    expect(await tab.api.completeOAuth({ callbackUrl: callbackUrl.toString() })).toMatchObject({ status: 'signed-in' });
  });

  it('a code replayed at the token endpoint after the broker redeemed it, even with the right verifier, is INVALID_AUTHORIZATION_CODE', async () => {
    const em = emulator();
    const { broker, tab } = await browser();
    const { url } = await tab.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT_URI });
    const callbackUrl = new URL((await follow(url, { email: uniqueEmail('code') })).location!);
    const secrets = await storedFlow(callbackUrl.searchParams.get('state')!);
    await tab.api.completeOAuth({ callbackUrl: callbackUrl.toString() });
    const sessionKey = broker.parts.session.sessionKey;
    const before = census();
    for (const codeVerifier of [secrets.codeVerifier, 'x'.repeat(43)]) {
      const replay = await refused(
        exchangeAuthorizationCode(tokenOptions(em), {
          callbackUrl,
          expectedState: secrets.state,
          redirectUri: secrets.redirectUri,
          codeVerifier,
        }),
      );
      expect(isKnownError(replay, 'INVALID_AUTHORIZATION_CODE'), String(replay)).toBe(true);
    }
    expect(census()).toEqual(before);
    expect(broker.parts.session.sessionKey).toBe(sessionKey);
  });

  it('at the token endpoint: a wrong code_verifier, and a redirect_uri other than the authorize one, are refused; no session', async () => {
    const em = emulator();
    const flow = await runFlow(em, { email: uniqueEmail('verifier') });
    const before = census();
    const wrongVerifier = await refused(exchange(em, flow, { codeVerifier: 'y'.repeat(43) }));
    expect(isKnownError(wrongVerifier, 'INVALID_AUTHORIZATION_CODE')).toBe(true);
    // Refused as the service refuses it: a plain 400 saying the redirect URI must be the authorize one.
    const otherRedirect = await refused(exchange(em, flow, { redirectUri: `${EVIL}/handler/oauth-callback` }));
    expect(otherRedirect).toMatchObject({ status: 400 });
    expect(String((otherRedirect as Error).message)).toMatch(/redirect URI/i);
    expect(census()).toEqual(before);
  });
});

describe('redirect and error URLs off the trusted list', () => {
  it('an untrusted redirect_uri from the broker: REDIRECT_URL_NOT_WHITELISTED at the trusted error URL, thrown by completeOAuth; no user, code or session', async () => {
    const { broker, tab } = await browser();
    const before = census();
    const { url } = await tab.api.startOAuth({
      providerId: 'github',
      redirectUri: `${EVIL}/callback`,
      errorRedirectUrl: ERROR_URL,
    });
    const back = await follow(url, { email: uniqueEmail('evil') });
    expect(back.status).toBe(307);
    const errorUrl = new URL(back.location!);
    expect(errorUrl.origin + errorUrl.pathname).toBe(ERROR_URL);
    expect(errorUrl.searchParams.get('code')).toBeNull();
    const error = await refused(tab.api.completeOAuth({ callbackUrl: errorUrl.toString() }));
    expect(error).toBeInstanceOf(KnownError);
    expect(error).toMatchObject({ code: 'REDIRECT_URL_NOT_WHITELISTED', status: 400 });
    expectSignedOut(broker, tab);
    expect(census()).toEqual(before);
  });

  it('an error URL off the list is never redirected to: the known error is the answer itself; nothing signed in', async () => {
    const em = emulator();
    const { broker, tab } = await browser();
    const before = census();
    const cases = [
      // A denied consent with an untrusted error URL.
      { redirectUri: REDIRECT_URI, account: { action: 'deny' as const }, code: 'OAUTH_PROVIDER_ACCESS_DENIED' },
      // An untrusted redirect URI and an untrusted error URL.
      {
        redirectUri: `${EVIL}/callback`,
        account: { email: uniqueEmail('evil') },
        code: 'REDIRECT_URL_NOT_WHITELISTED',
      },
    ];
    for (const { redirectUri, account, code } of cases) {
      const { url } = await tab.api.startOAuth({
        providerId: 'github',
        redirectUri,
        errorRedirectUrl: `${EVIL}/error`,
      });
      const back = await follow(url, account);
      // Never to the untrusted error URL: the known error is the answer itself, or (as the service does with a
      // trusted redirect URI) a redirect there, carrying the error.
      if (back.location === null) {
        expect({ status: back.status, known: back.headers.get('x-stack-known-error') }).toEqual({
          status: 400,
          known: code,
        });
        expect(JSON.parse(back.text)).toMatchObject({ code });
      } else {
        const to = new URL(back.location);
        expect(to.origin).not.toBe(new URL(EVIL).origin);
        expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
        expect(to.searchParams.get('errorCode')).toBe(code);
        expect(to.searchParams.get('code')).toBeNull();
      }
    }
    // Through the protocol helper too (no broker): the same answer.
    const flow = await startFlow(em, { redirectUri: `${EVIL}/callback`, errorRedirectUrl: `${EVIL}/error` });
    const direct = await callback(await consent(flow, { email: uniqueEmail('evil') }), flow.cookie);
    expect({
      status: direct.status,
      location: direct.location,
      known: direct.headers.get('x-stack-known-error'),
    }).toEqual({ status: 400, location: null, known: 'REDIRECT_URL_NOT_WHITELISTED' });
    expectSignedOut(broker, tab);
    expect(census()).toEqual(before);
  });
});
