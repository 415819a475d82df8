import type { RestrictedReason } from '../../protocol/resources/user.js';
import type { ProjectRecord, UserRecord } from './model.js';
import { primaryChannel } from './users.js';

/**
 * Why a user is restricted, as the service decides it (null: not restricted). Anonymous users always are; with the
 * project's `onboarding.requireEmailVerification`, so is a user whose primary e-mail is not verified (or who has none).
 * The emulator keeps no restriction by an administrator.
 */
export function restrictedReasonOf(p: ProjectRecord, user: UserRecord): RestrictedReason | null {
  if (user.is_anonymous === true) return { type: 'anonymous' };
  if (p.config.require_email_verification === true && primaryChannel(p, user.id)?.is_verified !== true)
    return { type: 'email_not_verified' };
  return null;
}
