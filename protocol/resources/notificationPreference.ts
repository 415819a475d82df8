/**
 * Whether a user gets the e-mails of a notification category (`/emails/notification-preference`).
 * The service has two fixed categories, `Transactional` and `Marketing`; newer than PROTOCOL.md (2.7).
 */
export interface NotificationPreference {
  notification_category_id: string;
  /** `Transactional` or `Marketing` today. */
  notification_category_name: string;
  /** Whether the user gets this category's e-mails (the category's default until the user chooses). */
  enabled: boolean;
  /** False for categories the user cannot turn off (transactional mail). */
  can_disable: boolean;
}

/** `PATCH /emails/notification-preference/{user_id}/{category_id}`. */
export interface NotificationPreferenceUpdate {
  enabled: boolean;
}
