import type { RestrictedReason } from '../../protocol/resources/user.js';
import type { ProjectRecord, UserRecord } from './model.js';
import { primaryChannel } from './users.js';

/**
 * Why a user is restricted, as the service decides it (null: not restricted). Anonymous users always are; with the
 * project's `onboarding.requireEmailVerification`, so is a user whose primary e-mail is not verified (or who has none);
 * then one an administrator restricted (the reason the user can act on comes first).
 */
export function restrictedReasonOf(p: ProjectRecord, user: UserRecord): RestrictedReason | null {
  if (user.is_anonymous === true) return { type: 'anonymous' };
  if (p.config.require_email_verification === true && primaryChannel(p, user.id)?.is_verified !== true)
    return { type: 'email_not_verified' };
  if (user.restricted_by_admin === true) return { type: 'restricted_by_administrator' };
  return null;
}

/** What a server writes of a restriction by an administrator (the three fields of `/users`). */
export interface AdminRestrictionWrite {
  restricted_by_admin?: boolean | undefined;
  restricted_by_admin_reason?: string | null | undefined;
  restricted_by_admin_private_details?: string | null | undefined;
}

/** Restricts a user or lifts it, as the server writes it: a lifted restriction keeps no reason or details. */
export function writeAdminRestriction(user: UserRecord, write: AdminRestrictionWrite): void {
  if (write.restricted_by_admin !== undefined) user.restricted_by_admin = write.restricted_by_admin;
  if (user.restricted_by_admin !== true) {
    user.restricted_by_admin_reason = null;
    user.restricted_by_admin_private_details = null;
    return;
  }
  if (write.restricted_by_admin_reason !== undefined)
    user.restricted_by_admin_reason = write.restricted_by_admin_reason || null;
  if (write.restricted_by_admin_private_details !== undefined)
    user.restricted_by_admin_private_details = write.restricted_by_admin_private_details || null;
}
