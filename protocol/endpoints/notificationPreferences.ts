import { requireBoolean, requireObject, requireUserId, requireUuid, seg } from '../args.js';
import type { ListResponse } from '../resources/common.js';
import type { NotificationPreference, NotificationPreferenceUpdate } from '../resources/notificationPreference.js';
import type { Transport } from '../transport.js';

/** Every notification category with whether the user gets its e-mails. Clients: only `me`. */
export async function listNotificationPreferences(t: Transport, userId: string): Promise<NotificationPreference[]> {
  return (
    await t.request<ListResponse<NotificationPreference>>({
      method: 'GET',
      path: `/emails/notification-preference/${seg(requireUserId(userId))}`,
    })
  ).items;
}

/**
 * Turns a category's e-mails on or off for the user. The service keeps the choice even for a
 * category with `can_disable: false` (its transactional mail is sent regardless).
 */
export function updateNotificationPreference(
  t: Transport,
  userId: string,
  categoryId: string,
  update: NotificationPreferenceUpdate,
): Promise<NotificationPreference> {
  const enabled = requireBoolean(requireObject(update, 'update').enabled, 'enabled');
  return t.request({
    method: 'PATCH',
    path: `/emails/notification-preference/${seg(requireUserId(userId))}/${requireUuid(categoryId, 'categoryId')}`,
    body: { enabled },
  });
}
