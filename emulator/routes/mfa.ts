import { Secret, TOTP } from 'otpauth';
import { createKnownError } from '../../protocol/errors/create.js';
import { issueTokens } from '../auth/issue.js';
import { redeemCode } from '../codes.js';
import { constantTimeEqual } from '../crypto.js';
import { requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { code45, obj, validate, yup } from '../http/validate.js';
import { findUser } from '../state/users.js';

/**
 * RFC 6238 as the service checks it: 30-second period, 6 digits, HMAC-SHA1, the secret being the
 * bytes of `totp_secret_base64`, and only the current period (no skew window).
 */
export function totpMatches(secretBase64: string, submitted: string, now: number): boolean {
  const bytes = Buffer.from(secretBase64, 'base64');
  if (bytes.length === 0) return false;
  const secret = new Secret({ buffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  const expected = TOTP.generate({ secret, algorithm: 'SHA1', digits: 6, period: 30, timestamp: now });
  return constantTimeEqual(expected, submitted);
}

/** MFA sign-in (PROTOCOL.md §5.2, §6.7). */
export function registerMfaRoutes(router: Router): void {
  router.add('POST', '/auth/mfa/sign-in', async (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        code: code45().defined(),
        type: yup.string().oneOf(['totp']).defined(),
        totp: yup.string().defined(),
      }).defined(),
    });
    const p = auth.project;
    // The TOTP check is the redemption's pre-check: a wrong one counts an attempt and leaves the code usable.
    const attempt = redeemCode(p, 'mfa_attempt', body.code, req.now, 'use', (record) => {
      const user = findUser(p, String(record.data.user_id));
      if (!user?.totp_secret_base64 || !totpMatches(user.totp_secret_base64, body.totp, req.now))
        throw createKnownError('INVALID_TOTP_CODE');
    });
    const user = findUser(p, String(attempt.data.user_id));
    if (!user) throw createKnownError('USER_NOT_FOUND');
    const tokens = await issueTokens(req.env, p, user, req.now);
    return json({
      refresh_token: tokens.refresh_token,
      access_token: tokens.access_token,
      is_new_user: attempt.data.is_new_user === true,
      user_id: user.id,
    });
  });
}
