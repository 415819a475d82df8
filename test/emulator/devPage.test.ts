import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { raw } from './httpSupport.js';

const emulator = useEmulator();

describe('GET /emulator', () => {
  it('shows projects with the last four of their keys, users, the mailbox newest first and statistics', async () => {
    const em = emulator();
    const email = uniqueEmail('page');
    await endpoints.signUpWithPassword(transportFor(em, 'client'), {
      email,
      password: 'correct horse',
      verification_callback_url: 'http://localhost:3000/verify',
    });
    const demo = em.env.store.project(em.projects.demo.id)!;
    em.env.mailbox.sendTemplate(
      demo,
      'magic_link',
      'otp-reader@example.com',
      { otp: 'QX7PLM', magicLink: 'http://localhost:3000/magic?code=abc' },
      'http://localhost:3000/magic?code=abc',
    );

    const page = await raw(em, 'GET', '/emulator');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = page.text;
    expect(html).toContain(em.projects.demo.id);
    expect(html).toContain(`pck_…${em.projects.demo.publishableClientKey.slice(-4)}`);
    expect(html).not.toContain(em.projects.demo.publishableClientKey);
    expect(html).not.toContain(em.projects.demo.secretServerKey);
    expect(html).toContain('demo@authbroker.dev');
    expect(html).toContain(email);
    expect(html).toMatch(/<b class="otp">QX7PLM<\/b>/);
    expect(html).toContain('<a href="http://localhost:3000/magic?code=abc">');
    // Newest first: the magic-link e-mail was sent after the verification e-mail.
    expect(html.indexOf('otp-reader@example.com')).toBeLessThan(html.indexOf(`Verify your email at Authbroker Demo`));
    expect(html).toMatch(/\d+ requests/);
    // No external assets; the empty data: favicon only stops browsers asking for /favicon.ico.
    expect(html.replace('<link rel="icon" href="data:,">', '')).not.toMatch(/<(script|link|img)\b/i);
  });

  it('escapes stored data and keeps non-web links inert', async () => {
    const em = emulator();
    const demo = em.env.store.project(em.projects.demo.id)!;
    const user = Object.values(demo.users)[0]!;
    const saved = user.display_name;
    user.display_name = '<script>alert(1)</script>';
    em.env.mailbox.deliver({
      project_id: demo.id,
      to: '"><img src=x>@example.com',
      subject: '<b>hi</b>',
      text: '',
      html: '',
      template: 'test',
      link: 'javascript:alert(1)',
    });
    try {
      const html = (await raw(em, 'GET', '/emulator')).text;
      expect(html).not.toContain('<script>alert(1)</script>');
      expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
      expect(html).not.toContain('<img src=x>');
      expect(html).not.toContain('<b>hi</b>');
      expect(html).not.toContain('href="javascript:');
    } finally {
      user.display_name = saved;
    }
  });
});
