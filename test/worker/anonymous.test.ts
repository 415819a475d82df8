import { describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { MailboxItem } from '../../emulator/mailbox.js';
import type { TabHandlerUrls, User } from '../../worker/index.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { demoServerApp, uniqueEmail, useEmulator } from '../support/emulator.js';
import { callback, consent, type StartedFlow } from '../support/oauth.js';
import type { SimulatedTab } from '../support/tabs.js';

/**
 * Upgrading an anonymous user through the broker, by the sign-ups the real-service scenarios cannot
 * drive (they need the emulator's mailbox and mock OAuth provider): a magic link and OAuth. The
 * password upgrade runs in test/support/features/anonymous.ts against both services.
 */
const emulator = useEmulator();
const scope = useBrokerScope(emulator);
const APP = 'http://localhost:5173';
const PASSWORD = 'a-long-password';
const HANDLERS: TabHandlerUrls = {
  emailVerification: `${APP}/handler/email-verification`,
  passwordReset: `${APP}/handler/password-reset`,
  magicLinkCallback: `${APP}/handler/magic-link-callback`,
  teamInvitation: `${APP}/handler/team-invitation`,
};

async function anonymousTab(): Promise<{ tab: SimulatedTab; userId: string }> {
  const started = await scope.start();
  const tab = await scope.tab(started, { handlerUrls: HANDLERS });
  await tab.subscribe('user', { kind: 'currentUser' });
  const result = await tab.api.signUpAnonymously();
  if (result.status !== 'signed-in') throw new Error('no anonymous user');
  await tab.waitFor('user', (s) => (s.data as User | null)?.isAnonymous === true);
  return { tab, userId: result.userId };
}

function latestMail(to: string): MailboxItem {
  const mail = emulator().env.mailbox.list(to).at(-1);
  if (mail === undefined) throw new Error(`no e-mail to ${to}`);
  return mail;
}

const userIn = (tab: SimulatedTab) => tab.latest('user')?.data as User | null;

describe('an anonymous user signed in by the broker', () => {
  it('is upgraded by a magic-link sign-up: the same user, now with the e-mail, and its session kept', async () => {
    const { tab, userId } = await anonymousTab();
    await tab.api.updateUser({ clientMetadata: { draft: 'kept' } });
    const email = uniqueEmail('magic-upgrade');
    await tab.api.sendMagicLink({ email });
    const code = new URL(latestMail(email).link!).searchParams.get('code')!;
    const result = await tab.api.signInWithMagicLink(code);
    expect(result).toEqual({ status: 'signed-in', userId, isNewUser: true });
    await tab.waitFor('user', (s) => (s.data as User | null)?.primaryEmail === email);
    expect(userIn(tab)).toMatchObject({
      id: userId,
      isAnonymous: false,
      otpAuthEnabled: true,
      primaryEmailVerified: true,
      clientMetadata: { draft: 'kept' },
    });
    // No password was set, so the anonymous session lives on (the service revokes sessions only with a new password).
    const sessions = await demoServerApp(emulator()).listSessions(userId);
    expect(sessions).toHaveLength(2);
  });

  it('is upgraded by an OAuth sign-up: the authorize URL carries its token, the account is linked to the same user', async () => {
    const { tab, userId } = await anonymousTab();
    const { url } = await tab.api.startOAuth({ providerId: 'github', redirectUri: `${APP}/handler/oauth-callback` });
    const token = new URL(url).searchParams.get('token');
    expect(token).not.toBeNull();
    expect(decodeJwt(token!)).toMatchObject({ sub: userId, is_anonymous: true });

    const email = uniqueEmail('oauth-upgrade');
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status, await response.clone().text()).toBe(307);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    const atCallback = await consent(
      { consentUrl: new URL(response.headers.get('location')!), cookie } as StartedFlow,
      { email, display_name: 'Ada Upgraded' },
    );
    const back = await callback(atCallback, cookie);
    expect(back.status, back.text).toBe(303);
    const result = await tab.api.completeOAuth({ callbackUrl: back.location! });
    expect(result).toMatchObject({ status: 'signed-in', userId, isNewUser: true, type: 'authenticate' });
    await tab.waitFor('user', (s) => (s.data as User | null)?.primaryEmail === email);
    expect(userIn(tab)).toMatchObject({
      id: userId,
      isAnonymous: false,
      displayName: 'Ada Upgraded',
      oauthProviders: [{ id: 'github', email }],
    });
  });

  it('is left as it was by a sign-in to another account, which replaces it in the broker', async () => {
    const { tab, userId } = await anonymousTab();
    const email = uniqueEmail('existing');
    const existing = await demoServerApp(emulator()).createUser({
      primaryEmail: email,
      password: PASSWORD,
      primaryEmailAuthEnabled: true,
    });
    const result = await tab.api.signInWithPassword({ email, password: PASSWORD });
    expect(result).toMatchObject({ status: 'signed-in', userId: existing.id, isNewUser: false });
    await tab.waitFor('user', (s) => (s.data as User | null)?.id === existing.id);
    expect((await demoServerApp(emulator()).getUser(userId)).isAnonymous).toBe(true);
  });
});

describe('without an anonymous user', () => {
  it('an authenticate flow carries no token, and a sign-up made while signed in makes a new user', async () => {
    const started = await scope.start();
    const tab = await scope.tab(started, { handlerUrls: HANDLERS });
    const signedOut = await tab.api.startOAuth({ providerId: 'github', redirectUri: `${APP}/handler/oauth-callback` });
    expect(new URL(signedOut.url).searchParams.has('token')).toBe(false);

    const first = await tab.api.signUpWithPassword({ email: uniqueEmail('first'), password: PASSWORD });
    const signedIn = await tab.api.startOAuth({ providerId: 'github', redirectUri: `${APP}/handler/oauth-callback` });
    expect(new URL(signedIn.url).searchParams.has('token')).toBe(false);
    const second = await tab.api.signUpWithPassword({ email: uniqueEmail('second'), password: PASSWORD });
    expect(second.status === 'signed-in' && first.status === 'signed-in' && second.userId !== first.userId).toBe(true);
    // Someone signed in: signUpAnonymously answers with that user and makes none.
    expect(await tab.api.signUpAnonymously()).toEqual({
      status: 'signed-in',
      userId: (second as { userId: string }).userId,
      isNewUser: false,
    });
  });
});
