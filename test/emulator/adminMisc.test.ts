import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw } from './httpSupport.js';

const emulator = useEmulator();
const DAY = 24 * 3600 * 1000;
const smtp = {
  host: 'smtp.example.com',
  port: 587,
  username: 'user',
  password: 'secret-password',
  sender_name: 'Sender',
  sender_email: 'sender@example.com',
};

async function emulatorNow(url: string): Promise<number> {
  return ((await (await fetch(`${url}/emulator/time`)).json()) as { now_millis: number }).now_millis;
}

describe('POST /webhooks/svix-token', () => {
  it('answers 201 with a token for an empty object body', async () => {
    const em = emulator();
    const response = await raw(em, 'POST', '/api/v1/webhooks/svix-token', {
      headers: keyHeaders(em, 'admin'),
      json: {},
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.json())).toEqual(['token']);
    expect(response.json<{ token: string }>().token).toMatch(/^\S{20,}$/);
    expect((await endpoints.createSvixToken(transportFor(em, 'admin'))).token).toEqual(expect.any(String));
  });

  it('needs the body and admin access', async () => {
    const em = emulator();
    const noBody = await raw(em, 'POST', '/api/v1/webhooks/svix-token', { headers: keyHeaders(em, 'admin') });
    expect(noBody.json<{ error: string }>().error).toContain('body must be defined');
    const server = await raw(em, 'POST', '/api/v1/webhooks/svix-token', {
      headers: keyHeaders(em, 'server'),
      json: {},
    });
    expect(server.json()).toMatchObject({ code: 'INSUFFICIENT_ACCESS_TYPE' });
  });
});

describe('POST /internal/send-test-email and GET /internal/emails', () => {
  it('delivers a test e-mail to the mailbox and logs it without the password', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const to = uniqueEmail('test-mail');
    expect(await endpoints.sendTestEmail(admin, { recipient_email: to, email_config: smtp })).toEqual({
      success: true,
    });
    const [mail] = em.env.mailbox.list(to);
    expect(mail).toMatchObject({
      to,
      subject: 'Test Email from Stack Auth',
      template: 'test',
      project_id: em.projects.demo.id,
    });
    const [logged] = await endpoints.listSentEmails(admin);
    expect(logged).toMatchObject({ subject: 'Test Email from Stack Auth', to: [to], error: null });
    expect(logged?.sender_config).toEqual({
      type: 'standard',
      host: 'smtp.example.com',
      port: 587,
      username: 'user',
      sender_name: 'Sender',
      sender_email: 'sender@example.com',
    });
    expect(JSON.stringify(logged)).not.toContain('secret-password');
  });

  it('reports an unusable configuration as success: false, never as an HTTP error', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const to = uniqueEmail('unusable');
    for (const email_config of [
      { ...smtp, host: '' },
      { ...smtp, port: 0 },
    ]) {
      const result = await endpoints.sendTestEmail(admin, { recipient_email: to, email_config });
      expect(result.success).toBe(false);
      expect(result.error_message).toEqual(expect.stringMatching(/\S/));
    }
    expect(em.env.mailbox.list(to)).toEqual([]);
  });

  it('validates the body', async () => {
    const em = emulator();
    const response = await raw(em, 'POST', '/api/v1/internal/send-test-email', {
      headers: keyHeaders(em, 'admin'),
      json: { recipient_email: 'not-an-email', email_config: { host: 'h' } },
    });
    expect(response.status).toBe(400);
    const error = response.json<{ error: string }>().error;
    expect(error).toContain('body.recipient_email must be a valid email');
    expect(error).toContain('body.email_config.port must be defined');
  });

  it('logs template e-mails too, newest first, at most 100', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const email = uniqueEmail('logged');
    await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email,
      password: 'correct horse',
      verification_callback_url: 'http://localhost:3000/verify',
    });
    const [newest] = await endpoints.listSentEmails(admin);
    expect(newest).toMatchObject({ subject: 'Verify your email at Authbroker Demo', to: [email] });
    expect(newest?.sender_config).toMatchObject({ type: 'standard', host: 'mailbox.emulator.invalid' });

    await Promise.all(
      Array.from({ length: 101 }, (_, i) =>
        endpoints.sendTestEmail(admin, { recipient_email: `bulk-${i}@example.com`, email_config: smtp }),
      ),
    );
    const last = uniqueEmail('last');
    await endpoints.sendTestEmail(admin, { recipient_email: last, email_config: smtp });
    const listed = await endpoints.listSentEmails(admin);
    expect(listed).toHaveLength(100);
    expect(listed[0]?.to).toEqual([last]);
    const times = listed.map((e) => e.sent_at_millis);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('keeps each project to its own log', async () => {
    const em = emulator();
    expect(await endpoints.listSentEmails(transportFor(em, 'admin', { project: 'internal' }))).toEqual([]);
  });
});

describe('GET /internal/metrics', () => {
  it('has exactly the §4.14 shape with 31 days ending today', async () => {
    const em = emulator();
    const metrics = await endpoints.getProjectMetrics(transportFor(em, 'admin'));
    expect(Object.keys(metrics).sort()).toEqual([
      'daily_active_users',
      'daily_users',
      'login_methods',
      'recently_active',
      'recently_registered',
      'total_users',
      'users_by_country',
    ]);
    const today = new Date(await emulatorNow(em.url)).toISOString().slice(0, 10);
    for (const series of [metrics.daily_users, metrics.daily_active_users]) {
      expect(series).toHaveLength(31);
      expect(series.at(-1)?.date).toBe(today);
      expect(series[0]?.date).toBe(new Date(Date.parse(today) - 30 * DAY).toISOString().slice(0, 10));
      for (let i = 1; i < 31; i++) expect(Date.parse(series[i]!.date) - Date.parse(series[i - 1]!.date)).toBe(DAY);
    }
    expect(metrics.users_by_country).toEqual({});
    expect(metrics.total_users).toBe(Object.keys(em.env.store.project(em.projects.demo.id)!.users).length);
  });

  it('counts sign-ups and active users per day, recent users and login methods', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const before = await endpoints.getProjectMetrics(admin);
    const emails = [uniqueEmail('m1'), uniqueEmail('m2')];
    for (const email of emails) {
      await endpoints.signUpWithPassword(transportFor(em, 'client'), {
        email,
        password: 'correct horse',
        verification_callback_url: 'http://localhost:3000/verify',
      });
    }
    const after = await endpoints.getProjectMetrics(admin);
    expect(after.total_users).toBe(before.total_users + 2);
    expect(after.daily_users.at(-1)!.activity).toBe(before.daily_users.at(-1)!.activity + 2);
    expect(after.daily_active_users.at(-1)!.activity).toBeGreaterThanOrEqual(2);
    expect(after.recently_registered.length).toBeLessThanOrEqual(5);
    expect(after.recently_registered[0]?.primary_email).toBe(emails[1]);
    expect(after.recently_registered[0]).toHaveProperty('server_metadata');
    expect(after.recently_active.length).toBeLessThanOrEqual(5);
    expect(after.recently_active.map((u) => u.primary_email)).toContain(emails[1]);
    const password = after.login_methods.find((m) => m.method === 'password');
    expect(password?.count).toBe((before.login_methods.find((m) => m.method === 'password')?.count ?? 0) + 2);

    // A day later, today's sign-ups are yesterday's and an active user shows up today.
    await raw(em, 'POST', '/emulator/time', { json: { advance_millis: DAY } });
    await endpoints.signInWithPassword(transportFor(em, 'client'), { email: emails[0]!, password: 'correct horse' });
    const nextDay = await endpoints.getProjectMetrics(admin);
    expect(nextDay.daily_users[29]).toEqual(after.daily_users[30]);
    expect(nextDay.daily_users[30]!.activity).toBe(0);
    expect(nextDay.daily_active_users[30]!.activity).toBe(1);
    expect(nextDay.recently_active[0]?.primary_email).toBe(emails[0]);
  });

  it('is admin-only', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/internal/metrics', { headers: keyHeaders(em, 'server') });
    expect(response.json()).toMatchObject({
      code: 'INSUFFICIENT_ACCESS_TYPE',
      details: { allowed_access_types: ['admin'] },
    });
  });
});
