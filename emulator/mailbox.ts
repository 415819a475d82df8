import type { EmailTemplateType } from '../protocol/resources/admin.js';
import type { Json } from '../protocol/resources/common.js';
import type { EmailConfig } from '../protocol/resources/project.js';
import type { ProjectRecord, SentEmailRecord } from './state/model.js';
import { defaultTemplateDocuments, documentText, isTemplateDocument } from './templateDocument.js';

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
export const defaultEmailSubjects: Readonly<Record<EmailTemplateType, string>> = {
  email_verification: 'Verify your email at {{ projectDisplayName }}',
  password_reset: 'Reset your password at {{ projectDisplayName }}',
  magic_link: 'Sign in to {{ projectDisplayName }}: Your code is {{ otp }}',
  team_invitation: 'You have been invited to join {{ teamDisplayName }}',
};

/**
 * Fills `{{ name }}` and the one Handlebars block the default templates need, `{{#if name}}…{{/if}}`
 * (not nested, no else); unknown names become empty.
 */
export function renderTemplate(template: string, variables: Record<string, string>): string {
  const value = (name: string) => (Object.hasOwn(variables, name) ? variables[name]! : '');
  return template
    .replace(/\{\{#if\s+([A-Za-z0-9_]+)\s*\}\}([\s\S]*?)\{\{\/if\}\}/g, (_, name: string, inner: string) =>
      value(name) === '' ? '' : inner,
    )
    .replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, name: string) => value(name));
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A template's text before its variables are filled: a document's words in reading order. Plain
 * text content (kept by emulators before templates were documents) is used as it is.
 */
function bodyTemplate(type: EmailTemplateType, content: Json | undefined): string {
  if (typeof content === 'string') return content;
  return documentText(isTemplateDocument(content) ? content : defaultTemplateDocuments[type]);
}

/** The e-mail configuration as `GET /internal/emails` shows it: never the password. */
export function senderConfigOf(config: EmailConfig): NonNullable<SentEmailRecord['sender_config']> {
  if (config.type === 'shared') return { type: 'shared' };
  return {
    type: 'standard',
    host: config.host,
    port: config.port,
    username: config.username,
    sender_name: config.sender_name,
    sender_email: config.sender_email,
  };
}

/**
 * The sender an e-mail of this project shows (`Name <address>`): its own server's sender, or for the
 * shared server the project's name and the development service's sender address.
 */
export function senderOf(p: ProjectRecord): string {
  const config = p.config.email_config;
  return config.type === 'standard'
    ? `${config.sender_name} <${config.sender_email}>`
    : `${p.display_name} <${SHARED_SENDER_ADDRESS}>`;
}

/** What the service in development sends the shared server's mail as (its `STACK_EMAIL_SENDER`). */
const SHARED_SENDER_ADDRESS = 'noreply@example.com';

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
  sendTemplate(
    p: ProjectRecord,
    type: EmailTemplateType,
    to: string,
    variables: Record<string, string>,
    link: string | null,
  ): MailboxItem {
    const custom = p.email_templates[type];
    const vars = { projectDisplayName: p.display_name, userDisplayName: '', ...variables };
    const subject = renderTemplate(custom?.subject ?? defaultEmailSubjects[type], vars);
    const textBody = renderTemplate(bodyTemplate(type, custom?.content), vars);
    // One paragraph per block of the text, so that a code on a line of its own is a paragraph of its own.
    const paragraphs = textBody
      .split(/\n{2,}/)
      .map((block) => `<p>${escapeHtml(block).replace(/\n/g, '<br>')}</p>`)
      .join('');
    const htmlBody = `${paragraphs}${link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : ''}`;
    const delivered = this.deliver({
      project_id: p.id,
      to,
      subject,
      text: textBody,
      html: htmlBody,
      template: type,
      link,
    });
    recordSentEmail(p, {
      subject,
      to: [to],
      sent_at_millis: delivered.sent_at_millis,
      error: null,
      sender_config: senderConfigOf(p.config.email_config),
    });
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

  /** Deletes the items `which` picks; returns how many. */
  remove(which: (item: MailboxItem) => boolean): number {
    const before = this.items.length;
    this.items = this.items.filter((item) => !which(item));
    return before - this.items.length;
  }
}
