import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError } from '../../protocol/index.js';
import {
  advanceClock,
  api,
  APP,
  codeOf,
  expectKnownError,
  expectPlainError,
  latestMail,
  mailCount,
  signUp,
  userTransport,
  withDemoConfig,
} from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const CALLBACK = `${APP}/handler/magic-link-callback`;

async function sendCode(email: string) {
  const em = emulator();
  const { nonce } = await endpoints.sendOtpSignInCode(transportFor(em, 'client'), { email, callback_url: CALLBACK });
  const mail = await latestMail(em, email);
  const code = codeOf(mail.link);
  return { nonce, mail, code, otp: code.slice(0, 6).toUpperCase() };
}

describe('sending a sign-in code', () => {
  it('e-mails a link and a 6-character code; the answer is the rest of the code', async () => {
    const email = uniqueEmail();
    const { nonce, mail, code, otp } = await sendCode(email);
    expect(nonce).toHaveLength(39);
    expect(code.slice(6)).toBe(nonce);
    expect(mail.subject).toBe(`Sign in to Authbroker Demo: Your code is ${otp}`);
    expect(mail.link).toBe(`${CALLBACK}?code=${code}`);
    expect(mail.text).toContain(otp);
    expect(mail.template).toBe('magic_link');
  });

  it('keeps the callback URL query and refuses untrusted URLs', async () => {
    const em = emulator();
    const email = uniqueEmail();
    await endpoints.sendOtpSignInCode(transportFor(em, 'client'), {
      email,
      callback_url: `${CALLBACK}?after=%2Fdashboard`,
    });
    const link = new URL((await latestMail(em, email)).link!);
    expect(link.searchParams.get('after')).toBe('/dashboard');
    const untrusted = await api(em, 'POST', '/auth/otp/send-sign-in-code', {
      body: { email: uniqueEmail(), callback_url: 'https://evil.example.com/cb' },
    });
    expectKnownError(untrusted, 'REDIRECT_URL_NOT_WHITELISTED', 400);
  });

  it('answers its documented errors', async () => {
    const em = emulator();
    const send = (email: string) =>
      api(em, 'POST', '/auth/otp/send-sign-in-code', { body: { email, callback_url: CALLBACK } });
    await withDemoConfig(em, { magic_link_enabled: false }, async () => {
      expectPlainError(await send(uniqueEmail()), 403, 'OTP sign-in is not enabled for this project');
    });
    await withDemoConfig(em, { sign_up_enabled: false }, async () => {
      expectKnownError(await send(uniqueEmail()), 'SIGN_UP_NOT_ENABLED', 400);
      // Existing users may still sign in.
      expect((await send('demo@authbroker.dev')).status).toBe(200);
    });
    // An unverified e-mail (password sign-up) must not be taken over by whoever types it.
    const unverified = await signUp(em);
    expectKnownError(await send(unverified.email), 'USER_EMAIL_ALREADY_EXISTS', 409);
    expectKnownError(await send('.leading-dot@example.com'), 'SCHEMA_ERROR', 400);
    expectKnownError(
      await api(em, 'POST', '/auth/otp/send-sign-in-code', {
        access: null,
        body: { email: uniqueEmail(), callback_url: CALLBACK },
      }),
      'ACCESS_TYPE_REQUIRED',
      400,
    );
  });
});

describe('signing in with the code', () => {
  it('by link: signs a new user up with a verified e-mail and OTP enabled', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const { code } = await sendCode(email);
    const result = await endpoints.signInWithOtp(transportFor(em, 'client'), code);
    expect(result.is_new_user).toBe(true);
    expect(Object.keys(result).sort()).toEqual(['access_token', 'is_new_user', 'refresh_token', 'user_id']);
    const me = await endpoints.getCurrentUser(userTransport(em, result));
    expect(me).toMatchObject({
      id: result.user_id,
      primary_email: email,
      primary_email_verified: true,
      otp_auth_enabled: true,
      has_password: false,
    });
  });

  it('by typed code: OTP plus nonce, in any case, for an existing verified user', async () => {
    const em = emulator();
    const { nonce, otp } = await sendCode('demo@authbroker.dev');
    const typed = `${otp}${nonce.toUpperCase()}`;
    const result = await endpoints.signInWithOtp(transportFor(em, 'client'), typed);
    expect(result.is_new_user).toBe(false);
    const me = await endpoints.getCurrentUser(userTransport(em, result));
    expect(me?.primary_email).toBe('demo@authbroker.dev');
    expect(endpoints.otpCodeFromTyped(otp, nonce)).toBe(`${otp}${nonce}`.toLowerCase());
  });

  it('checks without consuming, then refuses reuse', async () => {
    const em = emulator();
    const { code } = await sendCode(uniqueEmail());
    const client = transportFor(em, 'client');
    expect(await endpoints.checkOtpCode(client, code)).toEqual({ is_code_valid: true });
    expect(await endpoints.checkOtpCode(client, code)).toEqual({ is_code_valid: true });
    await endpoints.signInWithOtp(client, code);
    expectKnownError(
      await api(em, 'POST', '/auth/otp/sign-in', { body: { code } }),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/otp/sign-in/check-code', { body: { code } }),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
  });

  it('after 20 wrong codes for a nonce, refuses even the right one', async () => {
    const em = emulator();
    const { nonce, otp } = await sendCode(uniqueEmail());
    const wrongOtp = otp === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
    for (let i = 0; i < 20; i++) {
      expectKnownError(
        await api(em, 'POST', '/auth/otp/sign-in', { body: { code: `${wrongOtp}${nonce}` } }),
        'VERIFICATION_CODE_NOT_FOUND',
        404,
      );
    }
    const right = await api(em, 'POST', '/auth/otp/sign-in', { body: { code: `${otp}${nonce}` } });
    expectKnownError(right, 'VERIFICATION_CODE_MAX_ATTEMPTS_REACHED', 400);
    expect((right.body as { error: string }).error).toBe(
      'The verification code nonce has reached the maximum number of attempts. This code is not valid anymore.',
    );
  });

  it('19 wrong codes still leave the right one usable', async () => {
    const em = emulator();
    const { nonce, otp } = await sendCode(uniqueEmail());
    for (let i = 0; i < 19; i++)
      await api(em, 'POST', '/auth/otp/sign-in/check-code', {
        body: { code: `${otp === 'ZZZZZZ' ? 'YYYYYY' : 'ZZZZZZ'}${nonce}` },
      });
    expect((await api(em, 'POST', '/auth/otp/sign-in', { body: { code: `${otp}${nonce}` } })).status).toBe(200);
  });

  it('expires after 7 days (emulator clock)', async () => {
    const em = emulator();
    const { code } = await sendCode(uniqueEmail());
    await advanceClock(em, 7 * 24 * 3600 * 1000 - 60_000);
    expect(await endpoints.checkOtpCode(transportFor(em, 'client'), code)).toEqual({ is_code_valid: true });
    await advanceClock(em, 61_000);
    expectKnownError(await api(em, 'POST', '/auth/otp/sign-in', { body: { code } }), 'VERIFICATION_CODE_EXPIRED', 400);
  });

  it('decides whom a code is for when it is used: a second sign-up code signs in the user the first one made', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const first = await sendCode(email);
    const second = await sendCode(email);
    expect(second.code).not.toBe(first.code);
    const signedUp = await endpoints.signInWithOtp(transportFor(em, 'client'), first.code);
    expect(signedUp.is_new_user).toBe(true);
    const again = await endpoints.signInWithOtp(transportFor(em, 'client'), second.code);
    expect(again).toMatchObject({ user_id: signedUp.user_id, is_new_user: false });
  });

  it('a code whose user was deleted since signs a new user up', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const signedIn = await endpoints.signInWithOtp(transportFor(em, 'client'), (await sendCode(email)).code);
    const { code } = await sendCode(email);
    await endpoints.deleteCurrentUser(userTransport(em, signedIn));
    const again = await endpoints.signInWithOtp(transportFor(em, 'client'), code);
    expect(again.is_new_user).toBe(true);
    expect(again.user_id).not.toBe(signedIn.user_id);
  });

  it('treats codes of another kind, or malformed ones, as not found / invalid', async () => {
    const em = emulator();
    const user = await signUp(em);
    const verification = codeOf((await latestMail(em, user.email)).link);
    expectKnownError(
      await api(em, 'POST', '/auth/otp/sign-in', { body: { code: verification } }),
      'VERIFICATION_CODE_NOT_FOUND',
      404,
    );
    expectKnownError(await api(em, 'POST', '/auth/otp/sign-in', { body: { code: 'abc' } }), 'SCHEMA_ERROR', 400);
    expectKnownError(
      await api(em, 'POST', '/auth/otp/sign-in', { access: null, body: { code: verification } }),
      'ACCESS_TYPE_REQUIRED',
      400,
    );
  });

  it('works for a verified password user, who then has both methods', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const viaOtp = await endpoints.signInWithOtp(transportFor(em, 'client'), (await sendCode(email)).code);
    await endpoints.setPassword(userTransport(em, viaOtp), { password: 'correct horse battery' });
    const again = await endpoints.signInWithOtp(transportFor(em, 'client'), (await sendCode(email)).code);
    expect(again).toMatchObject({ user_id: viaOtp.user_id, is_new_user: false });
    expect(await mailCount(em, email)).toBe(2);
    await expect(endpoints.signInWithOtp(transportFor(em, 'client'), 'x'.repeat(45))).rejects.toSatisfy((e) =>
      isKnownError(e, 'VERIFICATION_ERROR'),
    );
  });
});
