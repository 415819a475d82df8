import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { endpoints, isKnownError, type AnyKnownError } from '../../protocol/index.js';
import {
  advanceClock,
  api,
  APP,
  codeOf,
  emulatorNow,
  expectKnownError,
  latestMail,
  PASSWORD,
  signUp,
  userTransport,
} from '../support/authFlows.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

/** RFC 6238 with the service's parameters, computed independently of the emulator. */
function totpAt(secretBase64: string, timestamp: number): string {
  const bytes = Buffer.from(secretBase64, 'base64');
  return TOTP.generate({
    secret: new Secret({ buffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp,
  });
}

/**
 * Moves the emulator clock to 2 s into a fresh 30-second period and returns that time, so a code
 * computed for it stays current for the next requests.
 */
async function freshPeriod(): Promise<number> {
  const em = emulator();
  const now = await emulatorNow(em);
  return advanceClock(em, 30_000 - (now % 30_000) + 2_000);
}

/** A password user with TOTP enabled through `PATCH /users/me`. */
async function totpUser() {
  const em = emulator();
  const user = await signUp(em);
  const secret = randomBytes(20).toString('base64');
  const updated = await endpoints.updateCurrentUser(userTransport(em, user), { totp_secret_base64: secret });
  expect(updated.requires_totp_mfa).toBe(true);
  return { ...user, secret };
}

async function attemptCode(email: string): Promise<string> {
  const em = emulator();
  const error = await endpoints.signInWithPassword(transportFor(em, 'client'), { email, password: PASSWORD }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED')).toBe(true);
  const attempt = (error as AnyKnownError & { code: 'MULTI_FACTOR_AUTHENTICATION_REQUIRED' }).details.attempt_code;
  expect(attempt).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
  return attempt;
}

const mfa = (code: string, totp: string) =>
  api(emulator(), 'POST', '/auth/mfa/sign-in', { body: { code, type: 'totp', totp } });

describe('TOTP multi-factor sign-in', () => {
  it('password sign-in asks for the second factor, which then signs in', async () => {
    const em = emulator();
    const user = await totpUser();
    const attempt = await attemptCode(user.email);
    const now = await freshPeriod();
    const result = await endpoints.signInWithMfa(transportFor(em, 'client'), {
      attempt_code: attempt,
      totp: totpAt(user.secret, now),
    });
    expect(result).toMatchObject({ user_id: user.user_id, is_new_user: false });
    expect(Object.keys(result).sort()).toEqual(['access_token', 'is_new_user', 'refresh_token', 'user_id']);
    expect((await endpoints.getCurrentUser(userTransport(em, result)))?.id).toBe(user.user_id);
  });

  it('a wrong code is INVALID_TOTP_CODE and leaves the attempt code usable', async () => {
    const user = await totpUser();
    const attempt = await attemptCode(user.email);
    const now = await freshPeriod();
    const right = totpAt(user.secret, now);
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await mfa(attempt, wrong);
    expectKnownError(refused, 'INVALID_TOTP_CODE', 400);
    expect((refused.body as { error: string }).error).toBe('The TOTP code is invalid. Please try again.');
    // Only the current period counts: the previous period's code is refused too.
    expectKnownError(await mfa(attempt, totpAt(user.secret, now - 30_000)), 'INVALID_TOTP_CODE', 400);
    expect((await mfa(attempt, right)).status).toBe(200);
    expectKnownError(await mfa(attempt, right), 'VERIFICATION_CODE_ALREADY_USED', 409);
  });

  it('wrong codes count as attempts: the 21st try is refused even when right', async () => {
    const user = await totpUser();
    const attempt = await attemptCode(user.email);
    const now = await freshPeriod();
    const right = totpAt(user.secret, now);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 20; i++) expectKnownError(await mfa(attempt, wrong), 'INVALID_TOTP_CODE', 400);
    expectKnownError(await mfa(attempt, right), 'VERIFICATION_CODE_MAX_ATTEMPTS_REACHED', 400);
  });

  it('the attempt code expires after 5 minutes', async () => {
    const em = emulator();
    const user = await totpUser();
    const attempt = await attemptCode(user.email);
    await advanceClock(em, 5 * 60 * 1000 + 1000);
    const now = await freshPeriod();
    expectKnownError(await mfa(attempt, totpAt(user.secret, now)), 'VERIFICATION_CODE_EXPIRED', 400);
  });

  it('OTP sign-in of a TOTP user also asks, and carries its is_new_user', async () => {
    const em = emulator();
    const email = uniqueEmail();
    const client = transportFor(em, 'client');
    await endpoints.sendOtpSignInCode(client, { email, callback_url: `${APP}/cb` });
    const first = await endpoints.signInWithOtp(client, codeOf((await latestMail(em, email)).link));
    const secret = randomBytes(20).toString('base64');
    await endpoints.updateCurrentUser(userTransport(em, first), { totp_secret_base64: secret });
    await endpoints.sendOtpSignInCode(client, { email, callback_url: `${APP}/cb` });
    const gated = await api(em, 'POST', '/auth/otp/sign-in', {
      body: { code: codeOf((await latestMail(em, email)).link) },
    });
    expectKnownError(gated, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400);
    const attempt = (gated.body as { details: { attempt_code: string } }).details.attempt_code;
    const now = await freshPeriod();
    const result = await mfa(attempt, totpAt(secret, now));
    expect(result.body).toMatchObject({ user_id: first.user_id, is_new_user: false });
  });

  it('disabling TOTP ends the second step', async () => {
    const em = emulator();
    const user = await totpUser();
    const signedIn = await endpoints.signInWithMfa(transportFor(em, 'client'), {
      attempt_code: await attemptCode(user.email),
      totp: totpAt(user.secret, await freshPeriod()),
    });
    const updated = await endpoints.updateCurrentUser(userTransport(em, signedIn), { totp_secret_base64: null });
    expect(updated.requires_totp_mfa).toBe(false);
    expect(
      (await endpoints.signInWithPassword(transportFor(em, 'client'), { email: user.email, password: PASSWORD }))
        .user_id,
    ).toBe(user.user_id);
  });

  it('validates the request', async () => {
    const em = emulator();
    const user = await totpUser();
    const attempt = await attemptCode(user.email);
    expectKnownError(
      await api(em, 'POST', '/auth/mfa/sign-in', { body: { code: attempt, type: 'sms', totp: '123456' } }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/mfa/sign-in', { body: { code: attempt, type: 'totp' } }),
      'SCHEMA_ERROR',
      400,
    );
    expectKnownError(
      await api(em, 'POST', '/auth/mfa/sign-in', {
        access: null,
        body: { code: attempt, type: 'totp', totp: '123456' },
      }),
      'ACCESS_TYPE_REQUIRED',
      400,
    );
    expectKnownError(await mfa('b'.repeat(45), '123456'), 'VERIFICATION_CODE_NOT_FOUND', 404);
    // There is no check-code for MFA.
    expect((await api(em, 'POST', '/auth/mfa/sign-in/check-code', { body: { code: attempt } })).status).toBe(404);
  });
});
