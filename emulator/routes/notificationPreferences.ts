import { createKnownError } from '../../protocol/errors/create.js';
import type { NotificationPreference } from '../../protocol/resources/notificationPreference.js';
import type { AuthContext } from '../auth/authenticate.js';
import { requireAccess, resolveUserId } from '../http/access.js';
import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { obj, userIdOrMe, uuid, validate, yup } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';
import { notificationPreferences } from '../state/projectFeatures.js';
import { findUser } from '../state/users.js';

/** The service's categories, fixed in its code (the same ids in every project). */
export const NOTIFICATION_CATEGORIES = [
  { id: '7bb82d33-2f54-4a3d-9d23-82739e0d66ef', name: 'Transactional', defaultEnabled: true, canDisable: false },
  { id: '4f6f8873-3d04-46bd-8bef-18338b1a1b4c', name: 'Marketing', defaultEnabled: true, canDisable: true },
] as const;

type Category = (typeof NOTIFICATION_CATEGORIES)[number];

function view(p: ProjectRecord, userId: string, category: Category): NotificationPreference {
  const chosen = notificationPreferences(p).find((n) => n.user_id === userId && n.category_id === category.id);
  return {
    notification_category_id: category.id,
    notification_category_name: category.name,
    enabled: chosen?.enabled ?? category.defaultEnabled,
    can_disable: category.canDisable,
  };
}

/** Whose preferences: a client only its own (403 otherwise), and the user must exist. */
function ownerOf(auth: AuthContext, userIdParam: string, verb: 'view' | 'manage'): string {
  const userId = resolveUserId(auth, userIdParam);
  if (auth.type === 'client' && userId !== auth.user?.id)
    throw new StatusError(403, `You can only ${verb} your own notification preferences`);
  if (!findUser(auth.project, userId)) throw createKnownError('USER_NOT_FOUND');
  return userId;
}

/** Notification preferences (newer than PROTOCOL.md; the service's behaviour of 2026-04). */
export function registerNotificationPreferenceRoutes(router: Router): void {
  router.add('GET', '/emails/notification-preference/:user_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: obj({ user_id: userIdOrMe().defined() }).defined() });
    const userId = ownerOf(auth, params.user_id, 'view');
    return json({ items: NOTIFICATION_CATEGORIES.map((c) => view(auth.project, userId, c)), is_paginated: false });
  });

  router.add('PATCH', '/emails/notification-preference/:user_id/:notification_category_id', (req) => {
    const auth = requireAccess(req);
    const { params, body } = validate(req, {
      params: obj({ user_id: userIdOrMe().defined(), notification_category_id: uuid().defined() }).defined(),
      body: obj({ enabled: yup.boolean().defined() }).defined(),
    });
    // `me` needs a user before anything else; then the service looks the category up before the user.
    resolveUserId(auth, params.user_id);
    const category = NOTIFICATION_CATEGORIES.find((c) => c.id === params.notification_category_id);
    if (!category) throw new StatusError(404, 'Notification category not found');
    const userId = ownerOf(auth, params.user_id, 'manage');
    const p = auth.project;
    // Kept even for a category that cannot be turned off, as the service does (its mail is sent anyway).
    const list = notificationPreferences(p);
    const existing = list.find((n) => n.user_id === userId && n.category_id === category.id);
    if (existing) existing.enabled = body.enabled;
    else list.push({ user_id: userId, category_id: category.id, enabled: body.enabled });
    return json(view(p, userId, category));
  });
}
