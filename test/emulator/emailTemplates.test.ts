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
    expect(templates.map((t) => t.type)).toEqual(['email_verification', 'password_reset', 'magic_link', 'team_invitation']);
    for (const template of templates) {
      expect(template.is_default).toBe(true);
      expect(template.subject).toBe(DEFAULT_SUBJECTS[template.type]);
      expect(template.content).not.toBeNull();
    }
  });

  it('is admin-only and knows only the four types', async () => {
    const em = emulator();
    const client = await raw(em, 'GET', '/api/v1/email-templates', { headers: keyHeaders(em, 'client') });
    expect(client.json()).toMatchObject({ code: 'INSUFFICIENT_ACCESS_TYPE', details: { allowed_access_types: ['admin'] } });
    const unknown = await raw(em, 'GET', '/api/v1/email-templates/welcome', { headers: keyHeaders(em, 'admin') });
    expect(unknown.status).toBe(400);
    expect(unknown.json<{ error: string }>().error).toContain('params.type must be one of the following values: email_verification, password_reset, magic_link, team_invitation');
    const post = await raw(em, 'POST', '/api/v1/email-templates', { headers: keyHeaders(em, 'admin'), json: {} });
    expect(post.status).toBe(405);
  });

  it('refuses updates with the shared e-mail config, with the exact text', async () => {
    const em = emulator();
    const error = await rejection(endpoints.updateEmailTemplate(transportFor(em, 'admin', { project: 'internal' }), 'magic_link', { subject: 'x' }));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 400, body: 'Cannot update email templates in shared email config. Set up a custom email config to update email templates.' });
  });

  it('refuses null content with the exact text', async () => {
    const em = emulator();
    const error = await rejection(endpoints.updateEmailTemplate(transportFor(em, 'admin'), 'password_reset', { content: null }));
    expect(error).toMatchObject({ status: 400, body: 'Invalid email template content' });
    expect((await endpoints.getEmailTemplate(transportFor(em, 'admin'), 'password_reset')).is_default).toBe(true);
  });

  it('upserts with fallbacks, and the mailbox uses the custom template', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const defaultContent = (await endpoints.getEmailTemplate(admin, 'email_verification')).content;

    const subjectOnly = await endpoints.updateEmailTemplate(admin, 'email_verification', { subject: 'Welcome to {{ projectDisplayName }}!' });
    expect(subjectOnly).toEqual({ type: 'email_verification', subject: 'Welcome to {{ projectDisplayName }}!', content: defaultContent, is_default: false });

    const contentOnly = await endpoints.updateEmailTemplate(admin, 'email_verification', { content: 'Click {{ emailVerificationLink }} now' });
    expect(contentOnly).toEqual({ type: 'email_verification', subject: 'Welcome to {{ projectDisplayName }}!', content: 'Click {{ emailVerificationLink }} now', is_default: false });
    expect(await endpoints.getEmailTemplate(admin, 'email_verification')).toEqual(contentOnly);
    const listed = await endpoints.listEmailTemplates(admin);
    expect(listed.find((t) => t.type === 'email_verification')).toEqual(contentOnly);
    expect(listed.filter((t) => t.is_default)).toHaveLength(3);

    const email = uniqueEmail('template');
    await endpoints.signUpWithPassword(transportFor(em, 'client'), { email, password: 'correct horse', verification_callback_url: 'http://localhost:5173/handler/email-verification' });
    const [mail] = em.env.mailbox.list(email);
    expect(mail?.subject).toBe('Welcome to Authbroker Demo!');
    expect(mail?.text).toMatch(/^Click http:\/\/localhost:5173\/handler\/email-verification\?code=[0-9a-z]{45} now$/);
  });

  it('accepts any non-null JSON content', async () => {
    const em = emulator();
    const content = { schemaVersion: 1, blocks: [{ type: 'text', text: 'Hi {{ userDisplayName }}' }], body: 'Reset: {{ passwordResetLink }}' };
    const updated = await endpoints.updateEmailTemplate(transportFor(em, 'admin'), 'password_reset', { content });
    expect(updated.content).toEqual(content);
    expect(updated.subject).toBe(DEFAULT_SUBJECTS.password_reset);
  });

  it('resets on DELETE, then answers a plain 404', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    await endpoints.updateEmailTemplate(admin, 'team_invitation', { subject: 'Join {{ teamDisplayName }}' });
    expect(await endpoints.resetEmailTemplate(admin, 'team_invitation')).toEqual({ success: true });
    expect(await endpoints.getEmailTemplate(admin, 'team_invitation')).toMatchObject({ subject: DEFAULT_SUBJECTS.team_invitation, is_default: true });
    const again = await rejection(endpoints.resetEmailTemplate(admin, 'team_invitation'));
    expect(again).not.toBeInstanceOf(KnownError);
    expect(again).toMatchObject({ status: 404, body: 'Email template not found' });
  });
});
