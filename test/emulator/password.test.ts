import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError, refreshAccessToken } from '../../protocol/index.js';
import {
  api,
  APP,
  codeOf,
  expectKnownError,
  expectPlainError,
  latestMail,
  mailCount,
  PASSWORD,
  signUp,
  userTransport,
  withDemoConfig,
} from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

// The service stalls 2–3 s for unknown e-mails; the emulator's stall is shortened for tests.
const emulator = useEmulator({ unknownEmailDelayMillis: 150 });

function refresh(refreshToken: string) {
  const em = emulator();
  return refreshAccessToken(
    { baseUrl: em.url, projectId: em.projects.demo.id, publishableClientKey: em.projects.demo.publishableClientKey },
    refreshToken,
  );
}

const refreshFails = (refreshToken: string) =>
  expect(refresh(refreshToken)).rejects.toSatisfy((e) => isKnownError(e, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'));

/** A user without a password: signed up with a magic link. */
async function otpUser() {
  const em = emulator();
  const email = uniqueEmail('otp');
  const client = transportFor(em, 'client');
  await endpoints.sendOtpSignInCode(client, { email, callback_url: `${APP}/handler/magic-link-callback` });
  const signedIn = await endpoints.signInWithOtp(client, codeOf((await latestMail(em, email)).link));
  return { email, ...signedIn };
}

describe('password sign-up', () => {
  it('signs the user in and e-mails a verification link with a code', async () => {
    const em = emulator();
    const user = await signUp(em);
    expect(user.refresh_token).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
    const me = await endpoints.getCurrentUser(userTransport(em, user));
    expect(me).toMatchObject({
      id: user.user_id,
      primary_email: user.email,
      primary_email_verified: false,
      has_password: true,
    });
    const mail = await latestMail(em, user.email);
    expect(mail.subject).toBe('Verify your email at Authbroker Demo');
    expect(mail.link).toMatch(new RegExp(`^${APP}/handler/email-verification\\?code=`));
    expect(mail.text).toContain(mail.link);
    codeOf(mail.link);
  });

  it('refuses an untrusted verification URL before making the user (v2.7 signed up and sent no e-mail)', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const result = await api(em, 'POST', '/auth/password/sign-up', {
      body: { email, password: PASSWORD, verification_callback_url: 'https://evil.example.com/verify' },
    });
    expectKnownError(result, 'REDIRECT_URL_NOT_WHITELISTED', 400);
    expect(await mailCount(em, email)).toBe(0);
    // Nobody was made: the same e-mail signs up with a trusted URL.
    const ok = await api(em, 'POST', '/auth/password/sign-up', {
      body: { email, password: PASSWORD, verification_callback_url: `${APP}/verify` },
    });
    expect(Object.keys(ok.body as object).sort()).toEqual(['access_token', 'refresh_token', 'user_id']);
  });

  it('answers every documented error', async () => {
    const em = emulator();
    const body = (over: Record<string, unknown> = {}) => ({
      email: uniqueEmail(),
      password: PASSWORD,
      verification_callback_url: `${APP}/v`,
      ...over,
    });
    expectKnownError(
      await api(em, 'POST', '/auth/password/sign-up', { body: body({ password: 'short' }) }),
      'PASSWORD_TOO_SHORT',
      400,
    );
    const tooLong = await api(em, 'POST', '/auth/password/sign-up', { body: body({ password: 'x'.repeat(71) }) });
    expectKnownError(tooLong, 'SCHEMA_ERROR', 400);
    expectKnownError(
      await api(em, 'POST', '/auth/password/sign-up', { body: body({ email: '.dot@example.com' }) }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/sign-up', { body: body({ email: 'DEMO@authbroker.dev' }) }),
      'USER_EMAIL_ALREADY_EXISTS',
      409,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/sign-up', { access: null, body: body() }),
      'ACCESS_TYPE_REQUIRED',
      400,
    );
    await withDemoConfig(em, { sign_up_enabled: false }, async () => {
      expectKnownError(await api(em, 'POST', '/auth/password/sign-up', { body: body() }), 'SIGN_UP_NOT_ENABLED', 400);
    });
    await withDemoConfig(em, { credential_enabled: false }, async () => {
      // Checked first: even a short password reports the disabled method.
      expectKnownError(
        await api(em, 'POST', '/auth/password/sign-up', { body: body({ password: 'short' }) }),
        'PASSWORD_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });
});

describe('password sign-in', () => {
  it('signs in with the right password and refuses anything else the same way', async () => {
    const em = emulator();
    const user = await signUp(em);
    const client = transportFor(em, 'client');
    const signedIn = await endpoints.signInWithPassword(client, {
      email: user.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(signedIn.user_id).toBe(user.user_id);
    expect(signedIn.refresh_token).not.toBe(user.refresh_token);
    for (const attempt of [
      { email: user.email, password: 'wrong password' },
      { email: uniqueEmail('nobody'), password: PASSWORD },
    ]) {
      expectKnownError(
        await api(em, 'POST', '/auth/password/sign-in', { body: attempt }),
        'EMAIL_PASSWORD_MISMATCH',
        400,
      );
    }
    // A user without a password cannot sign in with one.
    const otp = await otpUser();
    expectKnownError(
      await api(em, 'POST', '/auth/password/sign-in', { body: { email: otp.email, password: PASSWORD } }),
      'EMAIL_PASSWORD_MISMATCH',
      400,
    );
    await withDemoConfig(em, { credential_enabled: false }, async () => {
      expectKnownError(
        await api(em, 'POST', '/auth/password/sign-in', { body: { email: user.email, password: PASSWORD } }),
        'PASSWORD_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });
});

describe('password reset', () => {
  it('resets through the e-mailed link and revokes every session', async () => {
    const em = emulator();
    const user = await signUp(em);
    const client = transportFor(em, 'client');
    const second = await endpoints.signInWithPassword(client, { email: user.email, password: PASSWORD });
    const sent = await endpoints.sendPasswordResetCode(client, {
      email: user.email,
      callback_url: `${APP}/handler/password-reset`,
    });
    expect(sent).toEqual({ success: 'maybe, only if user with e-mail exists' });
    const mail = await latestMail(em, user.email);
    expect(mail.subject).toBe('Reset your password at Authbroker Demo');
    expect(mail.link).toMatch(new RegExp(`^${APP}/handler/password-reset\\?code=`));
    const code = codeOf(mail.link);

    expect(await endpoints.checkPasswordResetCode(client, code)).toEqual({ is_code_valid: true });
    expect(await endpoints.resetPassword(client, { code, password: 'a brand new password' })).toEqual({
      success: true,
    });
    await refreshFails(user.refresh_token);
    await refreshFails(second.refresh_token);
    await expect(endpoints.signInWithPassword(client, { email: user.email, password: PASSWORD })).rejects.toSatisfy(
      (e) => isKnownError(e, 'EMAIL_PASSWORD_MISMATCH'),
    );
    expect(
      (await endpoints.signInWithPassword(client, { email: user.email, password: 'a brand new password' })).user_id,
    ).toBe(user.user_id);
    const again = await api(em, 'POST', '/auth/password/reset', { body: { code, password: 'yet another password' } });
    expectKnownError(again, 'VERIFICATION_CODE_ALREADY_USED', 409);
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset/check-code', { body: { code } }),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
  });

  it('burns the code even when the new password is too short', async () => {
    const em = emulator();
    const user = await signUp(em);
    await endpoints.sendPasswordResetCode(transportFor(em, 'client'), {
      email: user.email,
      callback_url: `${APP}/reset`,
    });
    const code = codeOf((await latestMail(em, user.email)).link);
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset', { body: { code, password: 'short' } }),
      'PASSWORD_TOO_SHORT',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset', { body: { code, password: 'long enough now' } }),
      'VERIFICATION_CODE_ALREADY_USED',
      409,
    );
    // The old password still works, and the session was not revoked.
    expect((await refresh(user.refresh_token)).access_token).toMatch(/^ey/);
  });

  it('gives a password to a user who never had one', async () => {
    const em = emulator();
    const otp = await otpUser();
    const client = transportFor(em, 'client');
    await endpoints.sendPasswordResetCode(client, { email: otp.email, callback_url: `${APP}/reset` });
    await endpoints.resetPassword(client, { code: codeOf((await latestMail(em, otp.email)).link), password: PASSWORD });
    expect((await endpoints.signInWithPassword(client, { email: otp.email, password: PASSWORD })).user_id).toBe(
      otp.user_id,
    );
  });

  it('answers the documented errors of send-reset-code and the code endpoints', async () => {
    const em = emulator();
    const user = await signUp(em);
    expectKnownError(
      await api(em, 'POST', '/auth/password/send-reset-code', {
        body: { email: user.email, callback_url: 'https://evil.example.com/reset' },
      }),
      'REDIRECT_URL_NOT_WHITELISTED',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset/check-code', { body: { code: 'a'.repeat(45) } }),
      'VERIFICATION_CODE_NOT_FOUND',
      404,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset', { body: { code: 'short', password: PASSWORD } }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/reset', {
        access: null,
        body: { code: 'a'.repeat(45), password: PASSWORD },
      }),
      'ACCESS_TYPE_REQUIRED',
      400,
    );
    await withDemoConfig(em, { credential_enabled: false }, async () => {
      expectKnownError(
        await api(em, 'POST', '/auth/password/send-reset-code', {
          body: { email: user.email, callback_url: `${APP}/r` },
        }),
        'PASSWORD_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });

  it('answers the same for an unknown e-mail, after a delay, without checking the URL', async () => {
    const em = emulator();
    const started = Date.now();
    const result = await api(em, 'POST', '/auth/password/send-reset-code', {
      body: { email: uniqueEmail('nobody'), callback_url: 'https://evil.example.com/reset' },
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ success: 'maybe, only if user with e-mail exists' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('password update and set', () => {
  it('update keeps the session named by the refresh token and revokes the others', async () => {
    const em = emulator();
    const user = await signUp(em);
    const other = await endpoints.signInWithPassword(transportFor(em, 'client'), {
      email: user.email,
      password: PASSWORD,
    });
    const asUser = userTransport(em, user);
    expect(
      await endpoints.updatePassword(asUser, { old_password: PASSWORD, new_password: 'the new password' }),
    ).toEqual({ success: true });
    expect((await refresh(user.refresh_token)).access_token).toMatch(/^ey/);
    await refreshFails(other.refresh_token);
    // Access tokens live on until they expire, so the signed-in user keeps working.
    expect((await endpoints.getCurrentUser(asUser))?.id).toBe(user.user_id);
  });

  it('update without the refresh-token header revokes every session', async () => {
    const em = emulator();
    const user = await signUp(em);
    const result = await api(em, 'POST', '/auth/password/update', {
      accessToken: user.access_token,
      body: { old_password: PASSWORD, new_password: 'the new password' },
    });
    expect(result.status).toBe(200);
    await refreshFails(user.refresh_token);
  });

  it('update answers its errors in order', async () => {
    const em = emulator();
    const user = await signUp(em);
    const update = (body: unknown, accessToken?: string) =>
      api(em, 'POST', '/auth/password/update', { body, ...(accessToken ? { accessToken } : {}) });
    const noUser = await update({ old_password: PASSWORD, new_password: 'whatever password' });
    expectKnownError(noUser, 'SCHEMA_ERROR', 400);
    expect((noUser.body as { error: string }).error).toContain('auth.user must be defined');
    expectKnownError(
      await update({ old_password: PASSWORD, new_password: 'short' }, user.access_token),
      'PASSWORD_TOO_SHORT',
      400,
    );
    expectKnownError(
      await update({ old_password: 'not the password', new_password: 'whatever password' }, user.access_token),
      'PASSWORD_CONFIRMATION_MISMATCH',
      400,
    );
    const otp = await otpUser();
    expectKnownError(
      await update({ old_password: PASSWORD, new_password: 'whatever password' }, otp.access_token),
      'USER_DOES_NOT_HAVE_PASSWORD',
      400,
    );
    await withDemoConfig(em, { credential_enabled: false }, async () => {
      expectKnownError(
        await update({ old_password: PASSWORD, new_password: 'short' }, user.access_token),
        'PASSWORD_AUTHENTICATION_NOT_ENABLED',
        400,
      );
    });
  });

  it('set gives a password to a user without one, once, keeping sessions', async () => {
    const em = emulator();
    const otp = await otpUser();
    const asUser = userTransport(em, otp);
    expect(await endpoints.setPassword(asUser, { password: PASSWORD })).toEqual({ success: true });
    expect((await refresh(otp.refresh_token)).access_token).toMatch(/^ey/);
    expect(
      (await endpoints.signInWithPassword(transportFor(em, 'client'), { email: otp.email, password: PASSWORD }))
        .user_id,
    ).toBe(otp.user_id);
    expectPlainError(
      await api(em, 'POST', '/auth/password/set', {
        accessToken: otp.access_token,
        body: { password: 'another password' },
      }),
      400,
      'User already has a password set.',
    );
    expectKnownError(
      await api(em, 'POST', '/auth/password/set', { body: { password: PASSWORD } }),
      'SCHEMA_ERROR',
      400,
    );
    const fresh = await otpUser();
    expectKnownError(
      await api(em, 'POST', '/auth/password/set', { accessToken: fresh.access_token, body: { password: 'short' } }),
      'PASSWORD_TOO_SHORT',
      400,
    );
  });
});
