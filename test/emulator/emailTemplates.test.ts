import { describe, expect, it } from 'vitest';
import { endpoints, HttpStatusError, KnownError } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw, rejection } from './httpSupport.js';

const emulator = useEmulator();

const DEFAULT_SUBJECTS = {
  email_verification: 'Verify your email at {{ projectDisplayName }}',
  password_reset: 'Reset your password at {{ projectDisplayName }}',
  magic_link: 'Sign in to {{ projectDisplayName }}: Your code is {{ otp }}',
  team_invitation: 'You have been invited to join {{ teamDisplayName }}',
};

describe('/email-templates', () => {
  it('always lists the four types, defaults marked is_default with the §12.3 subjects', async () => {
    const em = emulator();
    const templates = await endpoints.listEmailTemplates(transportFor(em, 'admin', { project: 'internal' }));
    expect(templates.map((t) => t.type)).toEqual([
      'email_verification',
      'password_reset',
      'magic_link',
      'team_invitation',
    ]);
    for (const template of templates) {
      expect(template.is_default).toBe(true);
      expect(template.subject).toBe(DEFAULT_SUBJECTS[template.type]);
      // The content is the service's template document: blocks by id, read from an EmailLayout root.
      expect(template.content).toMatchObject({
        root: { type: 'EmailLayout', data: { childrenIds: expect.any(Array) } },
      });
      const document = template.content as Record<string, { type: string; data: { props?: { url?: string } } }>;
      const button = Object.values(document).find((block) => block.type === 'Button');
      expect(button?.data.props?.url).toMatch(/^\{\{ \w+Link \}\}$/);
    }
    // One template reads the same alone and in the list.
    const one = await endpoints.getEmailTemplate(transportFor(em, 'admin', { project: 'internal' }), 'magic_link');
    expect(one).toEqual(templates.find((t) => t.type === 'magic_link'));
  });

  it('is admin-only and knows only the four types', async () => {
    const em = emulator();
    const client = await raw(em, 'GET', '/api/v1/email-templates', { headers: keyHeaders(em, 'client') });
    expect(client.json()).toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
      details: { allowed_access_types: ['admin'] },
    });
    const unknown = await raw(em, 'GET', '/api/v1/email-templates/welcome', { headers: keyHeaders(em, 'admin') });
    expect(unknown.status).toBe(400);
    expect(unknown.json<{ error: string }>().error).toContain(
      'params.type must be one of the following values: email_verification, password_reset, magic_link, team_invitation',
    );
    const post = await raw(em, 'POST', '/api/v1/email-templates', { headers: keyHeaders(em, 'admin'), json: {} });
    expect(post.status).toBe(405);
  });

  it('refuses updates with the shared e-mail config, with the exact text', async () => {
    const em = emulator();
    const error = await rejection(
      endpoints.updateEmailTemplate(transportFor(em, 'admin', { project: 'internal' }), 'magic_link', { subject: 'x' }),
    );
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({
      status: 400,
      body: 'Cannot update email templates in shared email config. Set up a custom email config to update email templates.',
    });
  });

  it('refuses content that is not a template document, with the exact text', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const text = { type: 'Text', data: { props: { text: 'Hi' } } };
    const refused = [
      null,
      'Click {{ emailVerificationLink }}',
      ['a'],
      { root: 'EmailLayout' },
      { block: { type: 'Marquee', data: {} } },
      { block: { type: 'Text' } },
      { block: { ...text, data: { props: { text: 42 } } } },
      { block: { ...text, data: { style: { color: 'red' } } } },
      { block: { ...text, data: { style: { padding: { top: 1 } } } } },
      { root: { type: 'EmailLayout', data: { childrenIds: 'block' } } },
    ];
    for (const content of refused) {
      const error = await rejection(
        endpoints.updateEmailTemplate(admin, 'password_reset', { content: content as never }),
      );
      expect(error, JSON.stringify(content)).toMatchObject({ status: 400, body: 'Invalid email template content' });
    }
    expect((await endpoints.getEmailTemplate(admin, 'password_reset')).is_default).toBe(true);
    // Fields the builder does not know are ignored, as its schemas ignore them.
    const accepted = await endpoints.updateEmailTemplate(admin, 'password_reset', {
      content: { block: { ...text, data: { props: { text: 'Hi' }, extra: true } } },
    });
    expect(accepted.is_default).toBe(false);
    await endpoints.resetEmailTemplate(admin, 'password_reset');
  });

  it('upserts with fallbacks, and the mailbox uses the custom template', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const defaultContent = (await endpoints.getEmailTemplate(admin, 'email_verification')).content;

    const subjectOnly = await endpoints.updateEmailTemplate(admin, 'email_verification', {
      subject: 'Welcome to {{ projectDisplayName }}!',
    });
    expect(subjectOnly).toEqual({
      type: 'email_verification',
      subject: 'Welcome to {{ projectDisplayName }}!',
      content: defaultContent,
      is_default: false,
    });

    const document = {
      root: { type: 'EmailLayout', data: { childrenIds: ['intro', 'go'] } },
      intro: {
        type: 'Text',
        data: { props: { text: 'Hello{{#if userDisplayName}} {{ userDisplayName }}{{/if}}, welcome.' } },
      },
      go: { type: 'Button', data: { props: { text: 'Click', url: '{{ emailVerificationLink }}' } } },
      unused: { type: 'Text', data: { props: { text: 'not reachable from the root' } } },
    };
    const contentOnly = await endpoints.updateEmailTemplate(admin, 'email_verification', { content: document });
    expect(contentOnly).toEqual({
      type: 'email_verification',
      subject: 'Welcome to {{ projectDisplayName }}!',
      content: document,
      is_default: false,
    });
    expect(await endpoints.getEmailTemplate(admin, 'email_verification')).toEqual(contentOnly);
    const listed = await endpoints.listEmailTemplates(admin);
    expect(listed.find((t) => t.type === 'email_verification')).toEqual(contentOnly);
    expect(listed.filter((t) => t.is_default)).toHaveLength(3);

    const email = uniqueEmail('template');
    await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email,
      password: 'correct horse',
      verification_callback_url: 'http://localhost:5173/handler/email-verification',
    });
    const [mail] = em.env.mailbox.list(email);
    expect(mail?.subject).toBe('Welcome to Authbroker Demo!');
    // The document's words in reading order from the root; the {{#if}} block drops out without a name.
    expect(mail?.text).toMatch(
      /^Hello, welcome\.\n\nClick: http:\/\/localhost:5173\/handler\/email-verification\?code=[0-9a-z]{45}$/,
    );
  });

  it('sends the default documents with their links and codes', async () => {
    const em = emulator();
    const email = uniqueEmail('default');
    await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email,
      password: 'correct horse',
      verification_callback_url: 'http://localhost:5173/handler/email-verification',
    });
    const [mail] = em.env.mailbox.list(email);
    expect(mail?.link).toMatch(/^http:\/\/localhost:5173\/handler\/email-verification\?code=/);
    expect(mail?.text).toContain(mail!.link!);
    expect(mail?.text).not.toContain('{{');
  });

  it('keeps a document as written', async () => {
    const em = emulator();
    const content = {
      root: {
        type: 'EmailLayout',
        data: { backdropColor: '#EEEEEE', fontFamily: 'BOOK_SERIF', childrenIds: ['text'] },
      },
      text: {
        type: 'Text',
        data: {
          style: { color: '#112233', padding: { top: 1, bottom: 2, right: 3, left: 4 } },
          props: { text: 'Reset: {{ passwordResetLink }}' },
        },
      },
    };
    const updated = await endpoints.updateEmailTemplate(transportFor(em, 'admin'), 'password_reset', { content });
    expect(updated.content).toEqual(content);
    expect(updated.subject).toBe(DEFAULT_SUBJECTS.password_reset);
  });

  it('resets on DELETE, then answers a plain 404', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    await endpoints.updateEmailTemplate(admin, 'team_invitation', { subject: 'Join {{ teamDisplayName }}' });
    expect(await endpoints.resetEmailTemplate(admin, 'team_invitation')).toEqual({ success: true });
    expect(await endpoints.getEmailTemplate(admin, 'team_invitation')).toMatchObject({
      subject: DEFAULT_SUBJECTS.team_invitation,
      is_default: true,
    });
    const again = await rejection(endpoints.resetEmailTemplate(admin, 'team_invitation'));
    expect(again).not.toBeInstanceOf(KnownError);
    expect(again).toMatchObject({ status: 404, body: 'Email template not found' });
  });
});
