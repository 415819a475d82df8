/**
 * Anonymous users and their upgrade, as scenarios over a target (see ../scenarioKit.ts): the service's
 * answers through our endpoint bindings, and the same story through a broker and its tabs.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import type { ClientUser } from '../../../protocol/resources/user.js';
import type { QuerySnapshot, User } from '../../../worker/index.js';
import {
  brokerFor,
  claimsOf,
  clientTransport,
  ensureProjectSettings,
  HANDLER_URLS,
  failureOf,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  uniqueEmail,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

const VERIFY = 'http://localhost:5173/handler/email-verification';

async function signUpAnonymously(target: ServiceTarget) {
  return endpoints.signUpAnonymously(clientTransport(target));
}

const userOf = (s: QuerySnapshot | undefined) => (s?.data ?? null) as User | null;

/**
 * An anonymous sign-up makes a user with no e-mail and an audience of its own, whose token needs
 * x-stack-allow-anonymous-user.
 */
export async function anonymousSignUpMakesAUserWhoseTokenNeedsTheAllowHeader(target: ServiceTarget): Promise<void> {
  const tokens = await signUpAnonymously(target);
  expect(Object.keys(tokens).sort()).toEqual(['access_token', 'refresh_token', 'user_id']);
  const claims = claimsOf(tokens.access_token);
  expect(claims).toMatchObject({
    sub: tokens.user_id,
    aud: `${target.projectId}:anon`,
    is_anonymous: true,
    is_restricted: true,
    restricted_reason: { type: 'anonymous' },
  });

  // Our transport sends the header with every user token, so the user reads itself.
  const me = (await endpoints.getCurrentUser(clientTransport(target, tokens.access_token))) as ClientUser;
  expect(me).toMatchObject({
    id: tokens.user_id,
    is_anonymous: true,
    primary_email: null,
    has_password: false,
    oauth_providers: [],
  });

  // Without the header, the service refuses the token.
  const refused = await rawCall(target, 'GET', '/users/me', { accessToken: tokens.access_token });
  expect([refused.status, refused.code]).toEqual([401, 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED']);
  const allowed = await rawCall(target, 'GET', '/users/me', {
    accessToken: tokens.access_token,
    headers: { 'x-stack-allow-anonymous-user': 'true' },
  });
  expect(allowed.status).toBe(200);

  // The server sees it, but lists it only when asked to; a backend verifying tokens refuses it, as the service would.
  const server = serverApp(target);
  expect(knownCodeOf(await failureOf(server.verifyAccessToken(tokens.access_token)))).toBe(
    'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED',
  );
  expect((await server.getUser(tokens.user_id)).isAnonymous).toBe(true);
  const listed = async (includeAnonymous?: boolean) => {
    const ids: string[] = [];
    for await (const user of server.iterateUsers(includeAnonymous === undefined ? {} : { includeAnonymous }))
      ids.push(user.id);
    return ids;
  };
  expect(await listed()).not.toContain(tokens.user_id);
  expect(await listed(true)).toContain(tokens.user_id);
}

/**
 * An anonymous user's token is signed with a key of its own, which the project's key set holds only
 * when asked for anonymous users' keys; a backend that allows them verifies it with those.
 */
export async function anonymousTokensAreSignedWithAKeyTheKeySetHoldsOnlyWhenAsked(
  target: ServiceTarget,
): Promise<void> {
  const guest = await signUpAnonymously(target);
  const user = await endpoints.signUpWithPassword(clientTransport(target), {
    email: uniqueEmail('keys'),
    password: PASSWORD,
    verification_callback_url: VERIFY,
  });
  const kidOf = (token: string) =>
    (JSON.parse(atob(token.split('.')[0]!.replace(/-/g, '+').replace(/_/g, '/'))) as { kid: string }).kid;
  const kids = async (include?: endpoints.JwksAudiences) =>
    (await endpoints.getProjectJwks(target.baseUrl, target.projectId, undefined, include)).keys.map((key) => key.kid);
  const plain = await kids();
  const withRestricted = await kids({ restricted: true });
  const withAnonymous = await kids({ anonymous: true });
  expect(plain).toContain(kidOf(user.access_token));
  expect(plain).not.toContain(kidOf(guest.access_token));
  expect(withRestricted.length).toBeGreaterThan(plain.length);
  expect(withRestricted).not.toContain(kidOf(guest.access_token));
  expect(withAnonymous).toEqual(expect.arrayContaining([...withRestricted, kidOf(guest.access_token)]));

  const server = serverApp(target);
  expect(await server.verifyAccessToken(guest.access_token, { allowAnonymous: true })).toMatchObject({
    userId: guest.user_id,
    isAnonymous: true,
    isRestricted: true,
  });
  expect(await server.verifyAccessToken(user.access_token, { allowAnonymous: true })).toMatchObject({
    userId: user.user_id,
    isAnonymous: false,
    isRestricted: false,
  });
  expect(knownCodeOf(await failureOf(server.verifyAccessToken(guest.access_token, { allowRestricted: true })))).toBe(
    'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED',
  );
}

/**
 * A password sign-up made with the anonymous token upgrades that user: same id, its data kept, the anonymous session
 * ended.
 */
export async function passwordSignUpWithTheAnonymousTokenUpgradesThatUser(target: ServiceTarget): Promise<void> {
  const anonymous = await signUpAnonymously(target);
  const asAnonymous = clientTransport(target, anonymous.access_token);
  await endpoints.updateCurrentUser(asAnonymous, { client_metadata: { cart: ['book'] } });

  const email = uniqueEmail('upgraded');
  const upgraded = await endpoints.signUpWithPassword(
    asAnonymous,
    { email, password: PASSWORD, verification_callback_url: VERIFY },
    { user: 'optional' },
  );
  expect(upgraded.user_id).toBe(anonymous.user_id);
  expect(claimsOf(upgraded.access_token)).toMatchObject({
    sub: anonymous.user_id,
    aud: target.projectId,
    is_anonymous: false,
    email,
  });

  const me = (await endpoints.getCurrentUser(clientTransport(target, upgraded.access_token))) as ClientUser;
  expect(me).toMatchObject({
    id: anonymous.user_id,
    is_anonymous: false,
    primary_email: email,
    has_password: true,
    client_metadata: { cart: ['book'] },
  });
  // The password was set, which ends every earlier session: the anonymous refresh token is dead.
  const refresh = await rawCall(target, 'POST', '/auth/sessions/current/refresh', {
    refreshToken: anonymous.refresh_token,
    body: {},
  });
  expect(refresh.code).toBe('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  // And the new e-mail signs in to the same user.
  const signedIn = await endpoints.signInWithPassword(clientTransport(target), { email, password: PASSWORD });
  expect(signedIn.user_id).toBe(anonymous.user_id);
}

/**
 * A magic-link (OTP) code for a new e-mail, redeemed with the anonymous token, upgrades that user: the e-mail verified,
 * OTP on, its anonymous session kept (no password was set).
 */
export async function otpSignUpWithTheAnonymousTokenUpgradesThatUser(target: ServiceTarget): Promise<void> {
  await ensureProjectSettings(target, { magic_link_enabled: true });
  const anonymous = await signUpAnonymously(target);
  const asAnonymous = clientTransport(target, anonymous.access_token);
  const email = uniqueEmail('otp-upgrade');
  await endpoints.sendOtpSignInCode(clientTransport(target), { email, callback_url: HANDLER_URLS.magicLinkCallback });
  const mail = await target.waitForMail(email);
  const code = /[?&]code=([A-Za-z0-9]{45})\b/.exec(`${mail.text}\n${mail.html ?? ''}`)?.[1];
  expect(code, 'the magic link in the e-mail').toBeDefined();

  const upgraded = await endpoints.signInWithOtp(asAnonymous, code!, { user: 'optional' });
  expect(upgraded).toMatchObject({ user_id: anonymous.user_id, is_new_user: true });
  const me = (await endpoints.getCurrentUser(clientTransport(target, upgraded.access_token))) as ClientUser;
  expect(me).toMatchObject({
    id: anonymous.user_id,
    is_anonymous: false,
    primary_email: email,
    primary_email_verified: true,
    otp_auth_enabled: true,
    has_password: false,
  });
  const refresh = await rawCall(target, 'POST', '/auth/sessions/current/refresh', {
    refreshToken: anonymous.refresh_token,
    body: {},
  });
  expect([refresh.status, refresh.code]).toEqual([200, null]);
  expect(claimsOf((refresh.body as { access_token: string }).access_token)).toMatchObject({
    sub: anonymous.user_id,
    is_anonymous: false,
  });
}

/** A sign-up without the token makes another user; an e-mail already taken leaves the anonymous user as it was. */
export async function signUpWithoutTheAnonymousTokenMakesAnotherUser(target: ServiceTarget): Promise<void> {
  const anonymous = await signUpAnonymously(target);
  const asAnonymous = clientTransport(target, anonymous.access_token);
  const email = uniqueEmail('separate');
  const separate = await endpoints.signUpWithPassword(asAnonymous, {
    email,
    password: PASSWORD,
    verification_callback_url: VERIFY,
  });
  expect(separate.user_id).not.toBe(anonymous.user_id);

  const taken = await failureOf(
    endpoints.signUpWithPassword(
      asAnonymous,
      { email, password: PASSWORD, verification_callback_url: VERIFY },
      { user: 'optional' },
    ),
  );
  expect(knownCodeOf(taken)).toBe('USER_EMAIL_ALREADY_EXISTS');
  const me = (await endpoints.getCurrentUser(asAnonymous)) as ClientUser;
  expect(me).toMatchObject({ id: anonymous.user_id, is_anonymous: true, primary_email: null });
}

/**
 * Through the broker: signUpAnonymously signs in an anonymous user every tab sees, once, and signUpWithPassword
 * upgrades it.
 */
export async function brokerSignsUpAnonymouslyOnceAndUpgradesOnSignUp(target: ServiceTarget): Promise<void> {
  const { tabs, close } = await brokerFor(target, 2);
  try {
    const [first, second] = tabs as [(typeof tabs)[0], (typeof tabs)[0]];
    await first.subscribe('user', { kind: 'currentUser' });
    await second.subscribe('user', { kind: 'currentUser' });
    // Two tabs asking at once make one user.
    const [a, b] = await Promise.all([first.api.signUpAnonymously(), second.api.signUpAnonymously()]);
    expect(a).toEqual({ status: 'signed-in', userId: expect.any(String), isNewUser: true });
    expect(b).toEqual(a);
    if (a.status !== 'signed-in') throw new Error('an anonymous user has no second factor');
    for (const tab of tabs) await tab.waitFor('user', (s) => userOf(s)?.isAnonymous === true, 30_000);
    expect(userOf(second.latest('user'))).toMatchObject({ id: a.userId, primaryEmail: null, isAnonymous: true });
    // Asked again while signed in: the same user, nothing replaced.
    expect(await second.api.signUpAnonymously()).toEqual({ status: 'signed-in', userId: a.userId, isNewUser: false });

    const email = uniqueEmail('broker-upgrade');
    const upgraded = await first.api.signUpWithPassword({ email, password: PASSWORD });
    expect(upgraded).toEqual({ status: 'signed-in', userId: a.userId, isNewUser: true });
    for (const tab of tabs) await tab.waitFor('user', (s) => userOf(s)?.primaryEmail === email, 30_000);
    expect(userOf(second.latest('user'))).toMatchObject({ id: a.userId, isAnonymous: false, hasPassword: true });
    expect(claimsOf((await second.api.getAccessToken())!)).toMatchObject({ sub: a.userId, is_anonymous: false });
  } finally {
    close();
  }
}
