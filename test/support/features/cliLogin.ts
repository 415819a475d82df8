/**
 * Signing a CLI in with the browser, as scenarios over a target (see ../scenarioKit.ts): the CLI side
 * is authbroker/server's `startCliLogin`, the browser side a broker and its tabs, whose confirmation
 * page calls `confirmCliLogin`. No tab ever receives a refresh token.
 */
import { expect } from 'vitest';
import type { CliLoginConfirmation, QuerySnapshot } from '../../../contract/index.js';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { isKnownError } from '../../../protocol/errors/knownError.js';
import { startCliLogin, type CliLogin } from '../../../protocol/server.js';
import type { User } from '../../../worker/index.js';
import { compressedClock } from '../broker.js';
import {
  brokerFor,
  clientTransport,
  failureOf,
  HANDLER_URLS,
  PASSWORD,
  serverApp,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

const APP = 'http://localhost:5173';

function cliLogin(target: ServiceTarget, anonRefreshToken?: string): Promise<CliLogin> {
  return startCliLogin({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    publishableClientKey: target.publishableClientKey,
    extraRequestHeaders: { ...target.extraRequestHeaders },
    appUrl: APP,
    expiresInMillis: 5 * 60_000,
    pollIntervalMillis: 100,
    clock: compressedClock,
    ...(anonRefreshToken === undefined ? {} : { anonRefreshToken }),
  });
}

/** A user with a password, made by the server. */
async function passwordUser(target: ServiceTarget): Promise<{ id: string; email: string }> {
  const email = uniqueEmail('cli');
  const user = await serverApp(target).createUser({
    primaryEmail: email,
    password: PASSWORD,
    primaryEmailAuthEnabled: true,
  });
  return { id: user.id, email };
}

/** Whether a value holds a string that looks like a token the service issued (a JWT or a 45-character code). */
function holdsToken(value: unknown, refreshToken: string): boolean {
  return JSON.stringify(value).includes(refreshToken);
}

const userOf = (snapshot: QuerySnapshot | undefined) => (snapshot?.data ?? null) as User | null;

/**
 * A signed-in browser confirms: the CLI's poll gets this browser's session (its refresh token, which
 * no tab ever saw), and the page gets only the user's id.
 */
export async function aSignedInBrowserConfirmsAndTheCliGetsTheSession(target: ServiceTarget): Promise<void> {
  const user = await passwordUser(target);
  const browser = await brokerFor(target, 2);
  try {
    const [page, other] = browser.tabs;
    await page!.api.signInWithPassword({ email: user.email, password: PASSWORD });
    const login = await cliLogin(target);
    expect(new URL(login.url).pathname).toBe('/handler/cli-auth-confirm');

    const confirmed: CliLoginConfirmation = await page!.api.confirmCliLogin(login.loginCode);
    expect(confirmed).toEqual({ status: 'confirmed', userId: user.id });
    const session = await login.waitForSession();
    expect(session.user).toMatchObject({ id: user.id, primaryEmail: user.email, isAnonymous: false });
    expect(holdsToken(confirmed, session.refreshToken)).toBe(false);

    // The CLI's session is the browser's: it reads the user as it, and the browser stays signed in.
    const me = await endpoints.getCurrentUser(
      clientTransport(target, (await session.tokens.getAccessToken()) ?? undefined),
    );
    expect(me?.id).toBe(user.id);
    await other!.subscribe('me', { kind: 'currentUser' });
    await other!.waitFor('me', (snapshot) => userOf(snapshot)?.id === user.id);

    // A code confirms once.
    const again = await failureOf(page!.api.confirmCliLogin(login.loginCode));
    expect(again).toMatchObject({ code: 'CLI_LOGIN_INVALID' });
  } finally {
    browser.close();
  }
}

/** With nobody signed in the browser gives nothing: it says to sign in, and confirms once signed in. */
export async function withNobodySignedInTheBrowserAsksToSignInFirst(target: ServiceTarget): Promise<void> {
  const user = await passwordUser(target);
  const browser = await brokerFor(target);
  try {
    const page = browser.tabs[0]!;
    const login = await cliLogin(target);
    expect(await page.api.confirmCliLogin(login.loginCode)).toEqual({ status: 'sign-in-required' });
    await page.api.signInWithPassword({ email: user.email, password: PASSWORD });
    expect(await page.api.confirmCliLogin(login.loginCode)).toEqual({ status: 'confirmed', userId: user.id });
    expect((await login.waitForSession()).user.id).toBe(user.id);
  } finally {
    browser.close();
  }
}

/**
 * A CLI that signed up an anonymous user of its own: a browser with nobody signed in takes that user
 * over (every tab sees it), the person signs up, which keeps it as the same user, and confirms.
 */
export async function theCliAnonymousUserIsTakenOverAndKeptBySigningUp(target: ServiceTarget): Promise<void> {
  const guest = await endpoints.signUpAnonymously(clientTransport(target));
  const login = await cliLogin(target, guest.refresh_token);
  const browser = await brokerFor(target, 2);
  try {
    const [page, other] = browser.tabs;
    await other!.subscribe('session', { kind: 'session' });
    expect(await page!.api.confirmCliLogin(login.loginCode)).toEqual({
      status: 'sign-up-required',
      userId: guest.user_id,
    });
    await other!.waitFor('session', (s) => (s.data as { status?: string } | undefined)?.status === 'signed-in');
    expect(await page!.api.getPartialUser({ includeAnonymous: true })).toMatchObject({
      id: guest.user_id,
      isAnonymous: true,
    });

    const email = uniqueEmail('cli-guest');
    const signedUp = await page!.api.signUpWithPassword({
      email,
      password: PASSWORD,
      verificationCallbackUrl: HANDLER_URLS.emailVerification,
    });
    expect(signedUp).toMatchObject({ status: 'signed-in', userId: guest.user_id });
    expect(await page!.api.confirmCliLogin(login.loginCode)).toEqual({ status: 'confirmed', userId: guest.user_id });
    const session = await login.waitForSession();
    expect(session.user).toMatchObject({ id: guest.user_id, primaryEmail: email, isAnonymous: false });
  } finally {
    browser.close();
  }
}

/** A browser's own guest is not replaced by the CLI's: it is asked to sign in (or up) as itself. */
export async function aBrowserGuestIsNotReplacedByTheCliGuest(target: ServiceTarget): Promise<void> {
  const cliGuest = await endpoints.signUpAnonymously(clientTransport(target));
  const login = await cliLogin(target, cliGuest.refresh_token);
  const browser = await brokerFor(target);
  try {
    const page = browser.tabs[0]!;
    const own = await page.api.signUpAnonymously();
    expect(await page.api.confirmCliLogin(login.loginCode)).toEqual({ status: 'sign-in-required' });
    expect((await page.api.getPartialUser({ includeAnonymous: true }))?.id).toBe(own.userId);
  } finally {
    browser.close();
  }
}

/** A code the service does not know (or no longer takes) is CLI_LOGIN_INVALID, whoever is signed in. */
export async function anUnknownCodeIsRefusedInEveryState(target: ServiceTarget): Promise<void> {
  const user = await passwordUser(target);
  const browser = await brokerFor(target);
  try {
    const page = browser.tabs[0]!;
    const signedOut = await failureOf(page.api.confirmCliLogin('no-such-login-code'));
    expect([signedOut.code, isKnownError(signedOut)]).toEqual(['CLI_LOGIN_INVALID', false]);
    await page.api.signInWithPassword({ email: user.email, password: PASSWORD });
    const signedIn = await failureOf(page.api.confirmCliLogin('no-such-login-code'));
    expect(signedIn.code).toBe('CLI_LOGIN_INVALID');
    expect(signedIn.message).toMatch(/start the login again/);
  } finally {
    browser.close();
  }
}
