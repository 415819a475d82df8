import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError, refreshAccessToken } from '../../protocol/index.js';
import { api, APP, codeOf, latestMail, signUp, userTransport, withDemoConfig } from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import {
  callback,
  consent,
  exchange,
  oauthSignIn,
  REDIRECT_URI,
  runFlow,
  startFlow,
  tokenOptions,
} from '../support/oauth.js';

const emulator = useEmulator();

const rejectsWith = (promise: Promise<unknown>, code: Parameters<typeof isKnownError>[1]) =>
  expect(promise).rejects.toSatisfy((e) => isKnownError(e, code));

describe('OAuth sign-in through the mock provider', () => {
  it('authorize → consent → callback → token exchange with PKCE signs a new user up', async () => {
    const em = emulator();
    const email = uniqueEmail('gh');
    const flow = await startFlow(em, { afterCallbackRedirectUrl: `${APP}/after` });
    // As the service's framework writes it: Expires and Max-Age (10 minutes), no Secure in development.
    expect(flow.setCookie).toMatch(
      new RegExp(
        `^stack-oauth-inner-${flow.consentUrl.searchParams.get('state')}=true; Path=/; Expires=[^;]+ GMT; Max-Age=600; HttpOnly$`,
      ),
    );
    expect(flow.consentUrl.pathname).toBe('/emulator/oauth/github/authorize');
    expect(flow.consentUrl.searchParams.get('redirect_uri')).toBe(`${em.url}/api/v1/auth/oauth/callback/github`);
    expect(flow.consentUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(flow.consentUrl.searchParams.get('access_type')).toBe('offline');

    const page = await fetch(flow.consentUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Authbroker Demo');
    // Nobody can frame the consent page and click "Allow" through it.
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/(^|; )frame-ancestors 'none'($|;)/);

    const atCallback = await consent(flow, { email, display_name: 'Grace Hopper' });
    expect(atCallback.pathname).toBe('/api/v1/auth/oauth/callback/github');
    const result = await callback(atCallback, flow.cookie);
    // The service's OAuth server answers the signed-in callback with a 303 and an empty JSON body.
    expect(result.status).toBe(303);
    expect(result.text).toBe('{}');
    // Deleted as the service's framework deletes it: expired at the epoch.
    expect(result.headers.get('set-cookie')).toContain(
      `${flow.cookie.split('=')[0]}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT`,
    );
    const finalUrl = new URL(result.location!);
    expect(finalUrl.origin + finalUrl.pathname).toBe(REDIRECT_URI);
    expect(finalUrl.searchParams.get('state')).toBe(flow.state);
    expect(finalUrl.searchParams.get('code')).toMatch(/^[0-9a-f]{40}$/);
    expect(finalUrl.searchParams.has('iss')).toBe(false);

    const tokens = await exchange(em, { ...flow, finalUrl });
    expect(tokens).toMatchObject({ is_new_user: true, after_callback_redirect_url: `${APP}/after` });
    const me = await endpoints.getCurrentUser(userTransport(em, tokens));
    expect(me).toMatchObject({
      primary_email: email,
      primary_email_verified: true,
      display_name: 'Grace Hopper',
      has_password: false,
    });
    expect(me?.oauth_providers).toEqual([{ id: 'github', account_id: expect.any(String), email }]);
    expect((await refreshAccessToken(tokenOptions(em), tokens.refresh_token)).access_token).toMatch(/^ey/);
  });

  it('the token response has exactly the documented fields', async () => {
    const em = emulator();
    const flow = await runFlow(em, { email: uniqueEmail('gh') });
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: flow.finalUrl.searchParams.get('code')!,
      redirect_uri: flow.redirectUri,
      code_verifier: flow.codeVerifier,
      client_id: em.projects.demo.id,
      client_secret: em.projects.demo.publishableClientKey,
    });
    const response = await fetch(`${em.url}/api/v1/auth/oauth/token`, { method: 'POST', body });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      [
        'access_token',
        'afterCallbackRedirectUrl',
        'after_callback_redirect_url',
        'expires_in',
        'is_new_user',
        'newUser',
        'refresh_token',
        'scope',
        'token_type',
      ].sort(),
    );
    expect(json).toMatchObject({
      token_type: 'Bearer',
      scope: 'legacy',
      is_new_user: true,
      newUser: true,
      after_callback_redirect_url: null,
    });
  });

  it('the same provider account signs the same user in again', async () => {
    const em = emulator();
    const email = uniqueEmail('gh');
    const first = await oauthSignIn(em, { email });
    const second = await oauthSignIn(em, { email: email.toUpperCase() });
    expect(second.tokens.is_new_user).toBe(false);
    const [a, b] = await Promise.all([first, second].map((s) => endpoints.getCurrentUser(userTransport(em, s.tokens))));
    expect(b?.id).toBe(a?.id);
  });

  it('refuses a wrong PKCE verifier, a replayed code and another redirect_uri', async () => {
    const em = emulator();
    const flow = await runFlow(em, { email: uniqueEmail('gh') });
    await rejectsWith(exchange(em, flow, { codeVerifier: 'x'.repeat(43) }), 'INVALID_AUTHORIZATION_CODE');
    // Another redirect_uri than the code's is a plain 400, as the service's OAuth server answers it.
    await expect(exchange(em, flow, { redirectUri: `${APP}/handler/other` })).rejects.toMatchObject({
      code: 'HTTP_STATUS_ERROR',
      status: 400,
      body: 'Invalid redirect URI. Your redirect URI must be the same as the one used to get the authorization code.',
    });
    await exchange(em, flow);
    await rejectsWith(exchange(em, flow), 'INVALID_AUTHORIZATION_CODE');
    // Another project's client cannot redeem it either.
    const other = await runFlow(em, { email: uniqueEmail('gh') });
    await rejectsWith(exchange(em, other, { project: 'internal' }), 'INVALID_AUTHORIZATION_CODE');
  });

  it('authorization codes live 5 minutes', async () => {
    const em = emulator();
    const flow = await runFlow(em, { email: uniqueEmail('gh') });
    await fetch(`${em.url}/emulator/time`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_millis: 5 * 60 * 1000 + 1000 }),
    });
    await rejectsWith(exchange(em, flow), 'INVALID_AUTHORIZATION_CODE');
  });

  it('a TOTP user gets MULTI_FACTOR_AUTHENTICATION_REQUIRED at the token endpoint', async () => {
    const em = emulator();
    const email = uniqueEmail('gh');
    const { tokens } = await oauthSignIn(em, { email });
    await endpoints.updateCurrentUser(userTransport(em, tokens), {
      totp_secret_base64: Buffer.from('12345678901234567890').toString('base64'),
    });
    const flow = await runFlow(em, { email });
    const error = await exchange(em, flow).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED')).toBe(true);
    expect((error as { status: number }).status).toBe(400);
    expect((error as { details: { attempt_code: string } }).details.attempt_code).toHaveLength(45);
    // The code was consumed on the way.
    await rejectsWith(exchange(em, flow), 'INVALID_AUTHORIZATION_CODE');
  });
});

describe('account resolution', () => {
  it('link adds a provider to the signed-in user and returns a new session for them', async () => {
    const em = emulator();
    const user = await signUp(em);
    const { tokens } = await oauthSignIn(
      em,
      { email: uniqueEmail('google') },
      { providerId: 'google', type: 'link', token: user.access_token, afterCallbackRedirectUrl: `${APP}/settings` },
    );
    expect(tokens).toMatchObject({ is_new_user: false, after_callback_redirect_url: `${APP}/settings` });
    expect(tokens.refresh_token).not.toBe(user.refresh_token);
    const me = await endpoints.getCurrentUser(userTransport(em, tokens));
    expect(me?.id).toBe(user.user_id);
    expect(me?.oauth_providers.map((p) => p.id)).toEqual(['google']);
    // Linking the same account again is fine.
    const again = await runFlow(
      em,
      { email: me!.oauth_providers[0]!.email! },
      { providerId: 'google', type: 'link', token: user.access_token },
    );
    expect(again.finalUrl.searchParams.has('code')).toBe(true);
  });

  it('link refuses an account of someone else, and adds a second account of a provider beside the first', async () => {
    const em = emulator();
    const taken = uniqueEmail('gh');
    await oauthSignIn(em, { email: taken });
    const user = await signUp(em);
    const stolen = await runFlow(em, { email: taken }, { type: 'link', token: user.access_token });
    expect(stolen.finalUrl.searchParams.get('errorCode')).toBe('OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER');
    await oauthSignIn(em, { email: uniqueEmail('gh') }, { type: 'link', token: user.access_token });
    // As the service does since it keeps several accounts per provider (fc87e5e).
    const second = await runFlow(em, { email: uniqueEmail('gh') }, { type: 'link', token: user.access_token });
    expect(second.finalUrl.searchParams.has('code')).toBe(true);
  });

  it('the default merge strategy links a verified e-mail to its existing user', async () => {
    const em = emulator();
    const email = uniqueEmail('otp');
    const client = transportFor(em, 'client');
    await endpoints.sendOtpSignInCode(client, { email, callback_url: `${APP}/cb` });
    const existing = await endpoints.signInWithOtp(client, codeOf((await latestMail(em, email)).link));
    const { tokens } = await oauthSignIn(em, { email });
    expect(tokens.is_new_user).toBe(false);
    expect((await endpoints.getCurrentUser(userTransport(em, tokens)))?.id).toBe(existing.user_id);
  });

  it('link_method refuses when either side has not verified the e-mail', async () => {
    const em = emulator();
    const unverified = await signUp(em);
    const flow = await runFlow(em, { email: unverified.email });
    expect(flow.finalUrl.searchParams.get('errorCode')).toBe('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
    expect(JSON.parse(flow.finalUrl.searchParams.get('details')!)).toEqual({
      type: 'email',
      contact_channel_value: unverified.email,
      would_work_if_email_was_verified: false,
    });
    const providerUnverified = await runFlow(em, { email: 'demo@authbroker.dev', email_verified: false });
    expect(providerUnverified.finalUrl.searchParams.get('errorCode')).toBe(
      'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
    );
  });

  it('raise_error refuses and allow_duplicates creates a user whose e-mail does not sign in', async () => {
    const em = emulator();
    await withDemoConfig(em, { oauth_account_merge_strategy: 'raise_error' }, async () => {
      const flow = await runFlow(em, { email: 'demo@authbroker.dev' });
      expect(flow.finalUrl.searchParams.get('errorCode')).toBe('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
    });
    await withDemoConfig(em, { oauth_account_merge_strategy: 'allow_duplicates' }, async () => {
      const { tokens } = await oauthSignIn(em, { email: 'demo@authbroker.dev' });
      expect(tokens.is_new_user).toBe(true);
      const server = await api(em, 'GET', '/users/me', { access: 'server', accessToken: tokens.access_token });
      expect(server.body).toMatchObject({ primary_email: 'demo@authbroker.dev', primary_email_auth_enabled: false });
    });
  });

  it('sign-up needs sign_up_enabled, but known accounts still sign in', async () => {
    const em = emulator();
    const known = uniqueEmail('gh');
    await oauthSignIn(em, { email: known });
    await withDemoConfig(em, { sign_up_enabled: false }, async () => {
      const flow = await runFlow(em, { email: uniqueEmail('gh') });
      expect(flow.finalUrl.searchParams.get('errorCode')).toBe('SIGN_UP_NOT_ENABLED');
      expect((await oauthSignIn(em, { email: known })).tokens.is_new_user).toBe(false);
    });
  });
});
