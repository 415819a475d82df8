import type { Json, Millis } from './common.js';
import type { ServerUser } from './user.js';

/** An API key set as listed (secrets reduced to their last four characters). */
export interface ApiKeySet {
  id: string;
  description: string;
  created_at_millis: Millis;
  expires_at_millis: Millis;
  manually_revoked_at_millis?: Millis;
  publishable_client_key?: { last_four: string };
  secret_server_key?: { last_four: string };
  super_secret_admin_key?: { last_four: string };
}

/** `POST /internal/api-keys` answers 200 with the full secrets, shown this once. */
export interface ApiKeySetWithSecrets extends Omit<
  ApiKeySet,
  'publishable_client_key' | 'secret_server_key' | 'super_secret_admin_key'
> {
  publishable_client_key?: string;
  secret_server_key?: string;
  super_secret_admin_key?: string;
}

/** What creating an API key set takes: a description, an expiry, and which keys it holds. */
export interface ApiKeySetCreate {
  description: string;
  expires_at_millis: Millis;
  has_publishable_client_key: boolean;
  has_secret_server_key: boolean;
  has_super_secret_admin_key: boolean;
}

/** Revocation is `{ revoked: true }`; `false` is rejected by the service. */
export interface ApiKeySetUpdate {
  description?: string;
  revoked?: true;
}

/** The e-mails a project sends, each with a template. */
export const emailTemplateTypes = ['email_verification', 'password_reset', 'magic_link', 'team_invitation'] as const;
/** One of {@link emailTemplateTypes}. */
export type EmailTemplateType = (typeof emailTemplateTypes)[number];

/** An e-mail template of the project (wire form). */
export interface EmailTemplate {
  type: EmailTemplateType;
  subject: string;
  /** The template document: the service's e-mail builder blocks by id, read from the `root` block. */
  content: Json;
  is_default: boolean;
}

/** What may change in an e-mail template. */
export interface EmailTemplateUpdate {
  subject?: string;
  /**
   * A template document like `EmailTemplate.content`; anything else is refused (plain 400 `Invalid email template
   * content`).
   */
  content?: Json;
}

/** `GET /internal/emails` item. */
export interface SentEmail {
  id: string;
  subject: string;
  sent_at_millis: Millis;
  to: string[];
  sender_config: {
    type: string;
    host?: string;
    port?: number;
    username?: string;
    sender_name?: string;
    sender_email?: string;
  };
  error?: Json;
}

/** A test e-mail and the SMTP configuration to send it through. */
export interface SendTestEmailRequest {
  recipient_email: string;
  email_config: {
    host: string;
    port: number;
    username: string;
    password: string;
    sender_name: string;
    sender_email: string;
  };
}

/** Whether the test e-mail went, and the SMTP server's error if not. */
export interface SendTestEmailResult {
  success: boolean;
  error_message?: string;
}

/** A token for the project's webhook dashboard. */
export interface SvixToken {
  token: string;
}

/** One day of a project's activity figures. */
export interface DailyActivity {
  date: string;
  activity: number;
}

/** `GET /internal/metrics`; recently_* hold server users. */
export interface ProjectMetrics<U = ServerUser> {
  total_users: number;
  daily_users: DailyActivity[];
  daily_active_users: DailyActivity[];
  users_by_country: Record<string, number>;
  recently_registered: U[];
  recently_active: U[];
  login_methods: Array<{ method: string; count: number }>;
}
