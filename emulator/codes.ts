import { createKnownError } from '../protocol/errors/create.js';
import type { Json } from '../protocol/resources/common.js';
import { randomToken } from './crypto.js';
import type { ProjectRecord, VerificationCodeRecord, VerificationCodeType } from './state/model.js';

export const DAY = 24 * 3600 * 1000;
/** Lifetimes of PROTOCOL.md §7. */
export const codeLifetimes: Record<VerificationCodeType, number> = {
  otp: 7 * DAY,
  password_reset: 7 * DAY,
  contact_channel_verification: 7 * DAY,
  team_invitation: 7 * DAY,
  mfa_attempt: 5 * 60 * 1000,
  passkey_registration: 65 * 1000,
  passkey_authentication: 65 * 1000,
};
export const MAX_CODE_ATTEMPTS = 20;

export function createCode(
  p: ProjectRecord,
  type: VerificationCodeType,
  data: Record<string, Json>,
  now: number,
): VerificationCodeRecord {
  const record: VerificationCodeRecord = {
    id: crypto.randomUUID(),
    type,
    code: randomToken(),
    data,
    created_at_millis: now,
    expires_at_millis: now + codeLifetimes[type],
    used_at_millis: null,
    attempt_count: 0,
  };
  p.verification_codes[record.id] = record;
  return record;
}

/**
 * The redemption algorithm of PROTOCOL.md §7, shared by "use", "check-code" and "details":
 * 1. look the code up; 2. count an attempt against every code sharing its last 39 characters
 * (so wrong OTPs count against the real code with that nonce); 3. judge with the values read
 * before counting; 4. an optional endpoint check (MFA's TOTP); 5. mark used for "use".
 * Synchronous on purpose: the whole redemption happens without interruption.
 */
export function redeemCode(
  p: ProjectRecord,
  type: VerificationCodeType,
  submitted: string,
  now: number,
  variant: 'use' | 'check' | 'details',
  preCheck?: (record: VerificationCodeRecord) => void,
): VerificationCodeRecord {
  const code = submitted.toLowerCase();
  const found = Object.values(p.verification_codes).find((c) => c.type === type && c.code === code);
  const before = found
    ? { expired: found.expires_at_millis <= now, used: found.used_at_millis !== null, attempts: found.attempt_count }
    : null;
  const nonce = code.slice(-39);
  if (nonce.length === 39)
    for (const c of Object.values(p.verification_codes)) if (c.code.slice(-39) === nonce) c.attempt_count++;
  if (!found || !before) throw createKnownError('VERIFICATION_CODE_NOT_FOUND');
  if (before.expired) throw createKnownError('VERIFICATION_CODE_EXPIRED');
  if (before.used) throw createKnownError('VERIFICATION_CODE_ALREADY_USED');
  if (before.attempts >= MAX_CODE_ATTEMPTS) throw createKnownError('VERIFICATION_CODE_MAX_ATTEMPTS_REACHED');
  preCheck?.(found);
  if (variant === 'use') found.used_at_millis = now;
  return found;
}

/** `callback_url` with `code` added, keeping its other query parameters. */
export function linkWithCode(callbackUrl: string, code: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('code', code);
  return url.toString();
}

/** Drops codes long past use, so a long-running emulator stays small. */
export function pruneCodes(p: ProjectRecord, now: number): void {
  for (const [id, c] of Object.entries(p.verification_codes))
    if (c.expires_at_millis + DAY < now) delete p.verification_codes[id];
}
