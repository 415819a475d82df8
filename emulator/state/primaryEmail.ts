import { createKnownError } from '../../protocol/errors/create.js';
import { StatusError } from '../errors.js';
import type { ContactChannelRecord, ProjectRecord } from './model.js';
import { channelsOf, primaryChannel, sameEmail } from './users.js';

/** The primary-e-mail fields of a user update. */
export interface PrimaryEmailWrite {
  primary_email?: string | null | undefined;
  primary_email_verified?: boolean | undefined;
  primary_email_auth_enabled?: boolean | undefined;
}

/** An address as the service stores a user's primary e-mail: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function requireEmailFlags(primaryEmail: string | null, authEnabled: boolean, verified: boolean): void {
  if (primaryEmail === null && authEnabled)
    throw new StatusError(400, 'primary_email_auth_enabled cannot be true without primary_email');
  if (primaryEmail === null && verified)
    throw new StatusError(400, 'primary_email_verified cannot be true without primary_email');
}

/** Only one channel in the project may sign in with an e-mail. */
export function requireEmailFreeForAuth(p: ProjectRecord, value: string): void {
  const taken = Object.values(p.contact_channels).some(
    (c) => c.used_for_auth && c.type === 'email' && sameEmail(c.value, value),
  );
  if (taken)
    throw createKnownError('USER_EMAIL_ALREADY_EXISTS', { email: value, would_work_if_email_was_verified: false });
}

function demoteEmails(p: ProjectRecord, userId: string): void {
  for (const c of channelsOf(p, userId)) if (c.type === 'email') c.is_primary = false;
}

/**
 * A user's primary e-mail as the service changes it today. A new address becomes the primary channel (an existing
 * channel of the user's with that address is promoted, keeping its verification unless one is given; otherwise a new,
 * unverified one is made) and the old one stays as a non-primary channel; `null` demotes the primary channel without
 * deleting it. The flags not given keep the old channel's, and removing the address clears both. Everything is checked
 * first; the returned function makes the change.
 */
export function preparePrimaryEmailWrite(
  p: ProjectRecord,
  userId: string,
  write: PrimaryEmailWrite,
  now: number,
): () => void {
  const old = primaryChannel(p, userId);
  const newEmail = typeof write.primary_email === 'string' ? normalizeEmail(write.primary_email) : write.primary_email;
  const effective = newEmail !== undefined ? newEmail : (old?.value ?? null);
  const removing = newEmail === null;
  const authEnabled = removing ? false : (write.primary_email_auth_enabled ?? old?.used_for_auth ?? false);
  const verified = removing ? false : (write.primary_email_verified ?? old?.is_verified ?? false);
  requireEmailFlags(effective, authEnabled, verified);
  if (effective !== null && authEnabled && (old === undefined || !sameEmail(old.value, effective)))
    requireEmailFreeForAuth(p, effective);
  return () => {
    if (newEmail === null) return demoteEmails(p, userId);
    if (newEmail === undefined) {
      if (old && write.primary_email_verified !== undefined) old.is_verified = write.primary_email_verified;
      if (old && write.primary_email_auth_enabled !== undefined) old.used_for_auth = authEnabled;
      return;
    }
    const existing = channelsOf(p, userId).find((c) => c.type === 'email' && sameEmail(c.value, newEmail));
    demoteEmails(p, userId);
    if (existing) {
      existing.is_primary = true;
      existing.used_for_auth = authEnabled;
      if (write.primary_email_verified !== undefined) existing.is_verified = write.primary_email_verified;
      return;
    }
    const channel: ContactChannelRecord = {
      id: crypto.randomUUID(),
      user_id: userId,
      type: 'email',
      value: newEmail,
      is_primary: true,
      is_verified: write.primary_email_verified ?? false,
      used_for_auth: authEnabled,
      created_at_millis: now,
    };
    p.contact_channels[channel.id] = channel;
  };
}
