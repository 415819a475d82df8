import type { EmailTemplateType } from '../protocol/resources/admin.js';
import type { Json } from '../protocol/resources/common.js';
import type { EmailConfig } from '../protocol/resources/project.js';
import type { ProjectRecord, SentEmailRecord } from './state/model.js';

/** An e-mail the service would have sent; every one lands here instead. */
export interface MailboxItem {
  id: string;
  project_id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  sent_at_millis: number;
  /** The template it was made from, or `test` for send-test-email. */
  template: EmailTemplateType | 'test';
  /** The link in the e-mail, when it has one (tests read it instead of parsing text). */
  link: string | null;
}

/** Default subjects (PROTOCOL.md §12.3); variables use `{{ name }}`. */
export const defaultEmailTemplates: Record<EmailTemplateType, { subject: string; body: string }> = {
  email_verification: {
    subject: 'Verify your email at {{ projectDisplayName }}',
    body: 'Hi {{ userDisplayName }},\n\nPlease verify your e-mail address for {{ projectDisplayName }} by opening this link:\n{{ emailVerificationLink }}',
  },
  password_reset: {
    subject: 'Reset your password at {{ projectDisplayName }}',
    body: 'Hi {{ userDisplayName }},\n\nTo reset your password for {{ projectDisplayName }}, open this link:\n{{ passwordResetLink }}',
  },
  magic_link: {
    subject: 'Sign in to {{ projectDisplayName }}: Your code is {{ otp }}',
    body: 'Your sign-in code for {{ projectDisplayName }} is {{ otp }}.\n\nOr sign in with this link:\n{{ magicLink }}',
  },
  team_invitation: {
    subject: 'You have been invited to join {{ teamDisplayName }}',
    body: 'You have been invited to join {{ teamDisplayName }} on {{ projectDisplayName }}. Accept with this link:\n{{ teamInvitationLink }}',
  },
};

export function renderTemplate(template: string, variables: Record<string, string>): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, name: string) => variables[name] ?? '');
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A custom template's body: its `content` when it is a string, else its `body`/`text` field, else the default. */
function bodyTemplate(type: EmailTemplateType, content: Json | undefined): string {
  if (typeof content === 'string') return content;
  if (content && typeof content === 'object' && !Array.isArray(content)) {
    const candidate = content.body ?? content.text;
    if (typeof candidate === 'string') return candidate;
  }
  return defaultEmailTemplates[type].body;
}

/** The e-mail configuration as `GET /internal/emails` shows it: never the password. */
export function senderConfigOf(config: EmailConfig): NonNullable<SentEmailRecord['sender_config']> {
  if (config.type === 'shared') return { type: 'shared' };
  return { type: 'standard', host: config.host, port: config.port, username: config.username, sender_name: config.sender_name, sender_email: config.sender_email };
}

/** Keeps the project's e-mail log for `GET /internal/emails`, which shows at most the last 100. */
export function recordSentEmail(p: ProjectRecord, record: Omit<SentEmailRecord, 'id'>): void {
  p.sent_emails.push({ id: crypto.randomUUID(), ...record });
  if (p.sent_emails.length > 100) p.sent_emails.splice(0, p.sent_emails.length - 100);
}

export class Mailbox {
  private items: MailboxItem[] = [];
  private nextId = 1;

  constructor(private readonly now: () => number) {}

  /** Renders a project's template (custom or default) and delivers it. */
  sendTemplate(p: ProjectRecord, type: EmailTemplateType, to: string, variables: Record<string, string>, link: string | null): MailboxItem {
    const custom = p.email_templates[type];
    const vars = { projectDisplayName: p.display_name, userDisplayName: '', ...variables };
    const subject = renderTemplate(custom?.subject ?? defaultEmailTemplates[type].subject, vars);
    const textBody = renderTemplate(bodyTemplate(type, custom?.content), vars);
    const htmlBody = `<p>${escapeHtml(textBody).replace(/\n/g, '<br>')}</p>${link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : ''}`;
    const delivered = this.deliver({ project_id: p.id, to, subject, text: textBody, html: htmlBody, template: type, link });
    recordSentEmail(p, { subject, to: [to], sent_at_millis: delivered.sent_at_millis, error: null, sender_config: senderConfigOf(p.config.email_config) });
    return delivered;
  }

  deliver(item: Omit<MailboxItem, 'id' | 'sent_at_millis'>): MailboxItem {
    const stored: MailboxItem = { ...item, id: `mail-${this.nextId++}`, sent_at_millis: this.now() };
    this.items.push(stored);
    // Bounded, so a long-running dev emulator does not grow without end.
    if (this.items.length > 1000) this.items.splice(0, this.items.length - 1000);
    return stored;
  }

  /** Newest last; `to` matches case-insensitively. */
  list(to?: string): MailboxItem[] {
    return to === undefined ? [...this.items] : this.items.filter((m) => m.to.toLowerCase() === to.toLowerCase());
  }

  clear(): void {
    this.items = [];
  }
}
