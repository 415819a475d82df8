import { afterEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw } from './httpSupport.js';

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

describe('the dev page’s fault and clock controls (issue 40: the banner promised them)', () => {
  /** Posts one of the page's forms as a browser does, without following the redirect. */
  async function submit(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    const em = emulator();
    const response = await fetch(`${em.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: response.status, location: response.headers.get('location'), text: await response.text() };
  }
  const currentProject = () =>
    raw(emulator(), 'GET', '/api/v1/projects/current', { headers: keyHeaders(emulator(), 'client') });

  afterEach(async () => {
    await raw(emulator(), 'DELETE', '/emulator/faults');
  });

  it('has forms for both, under a policy that allows its data: favicon and posting to itself only', async () => {
    const page = await raw(emulator(), 'GET', '/emulator');
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toMatch(/(^|; )img-src data:(;|$)/);
    expect(policy).toMatch(/(^|; )form-action 'self'(;|$)/);
    expect(policy).toContain("default-src 'none'");
    expect(page.text).toContain('<link rel="icon" href="data:,">');
    expect(page.text).toMatch(/<h2 id="faults">Faults<\/h2>/);
    expect(page.text).toMatch(/<form method="post" action="\/emulator\/page\/faults"/);
    expect(page.text).toMatch(/<h2 id="clock">Clock<\/h2>/);
    expect(page.text).toMatch(
      /<form method="post" action="\/emulator\/page\/time"[^>]*><button name="advance_seconds" value="60">/,
    );
    expect(page.text).toContain('No rules: every request is answered normally.');
  });

  it('adds a rule that the API then answers with, lists it, and removes every rule', async () => {
    const added = await submit('/emulator/page/faults', {
      path: '/api/v1/projects/*',
      method: 'GET',
      effect: '503',
      count: '2',
      percent: '',
    });
    expect(added).toMatchObject({ status: 303, location: '/emulator#faults' });
    expect((await raw(emulator(), 'GET', '/emulator/faults')).json()).toEqual({
      rules: [
        {
          id: expect.any(String),
          path: '/api/v1/projects/*',
          method: 'GET',
          count: 2,
          effect: { type: 'status', status: 503 },
          injected: 0,
        },
      ],
    });
    expect((await currentProject()).status).toBe(503);
    const page = (await raw(emulator(), 'GET', '/emulator')).text;
    expect(page).toMatch(
      /<td>GET<\/td><td><code>\/api\/v1\/projects\/\*<\/code><\/td><td>503<\/td><td>the next 1 request<\/td><td>1<\/td>/,
    );

    expect(await submit('/emulator/page/faults/clear', {})).toMatchObject({
      status: 303,
      location: '/emulator#faults',
    });
    expect((await raw(emulator(), 'GET', '/emulator/faults')).json()).toEqual({ rules: [] });
    expect((await currentProject()).status).toBe(200);
  });

  it('offers every kind of fault: a delay for a share of requests, a dropped connection, any method for ever', async () => {
    await submit('/emulator/page/faults', {
      path: '/api/v1/users/me',
      method: '',
      effect: 'latency',
      ms: '1500',
      count: '',
      percent: '25',
    });
    await submit('/emulator/page/faults', {
      path: '/api/v1/*',
      method: 'POST',
      effect: 'drop-after',
      count: '',
      percent: '',
    });
    await submit('/emulator/page/faults', {
      path: '/api/v1/teams',
      method: '',
      effect: '429',
      count: '1',
      percent: '50',
    });
    const { rules } = (await raw(emulator(), 'GET', '/emulator/faults')).json<{ rules: object[] }>();
    expect(rules).toMatchObject([
      { path: '/api/v1/users/me', probability: 0.25, effect: { type: 'latency', ms: 1500 } },
      { path: '/api/v1/*', method: 'POST', probability: 1, effect: { type: 'drop', phase: 'after' } },
      { path: '/api/v1/teams', count: 1, probability: 0.5, effect: { type: 'status', status: 429, retry_after: '1' } },
    ]);
    expect(rules[0]).not.toHaveProperty('method');
    const page = (await raw(emulator(), 'GET', '/emulator')).text;
    expect(page).toContain('<td>1500 ms delay</td><td>25% of requests</td>');
    expect(page).toContain('<td>the next 1 request, of them 50% of requests</td>');
  });

  it('shows the page again with why when a form’s values are wrong, and changes nothing', async () => {
    for (const [fields, message] of [
      [{ path: '', effect: '503' }, 'form.path must be a non-empty path pattern.'],
      [{ path: '/api/v1/*', effect: 'teapot' }, 'Choose what the rule answers with.'],
      [{ path: '/api/v1/*', effect: '503', percent: '150' }, 'form.probability must be a number from 0 to 1.'],
      [{ path: '/api/v1/*', effect: 'latency', ms: 'soon' }, 'ms must be a number.'],
    ] as const) {
      const answer = await submit('/emulator/page/faults', fields);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(`<p class="error" role="alert">${message}</p>`);
      expect(answer.text).toMatch(/<h2 id="faults">Faults<\/h2><p class="error"/);
    }
    expect((await raw(emulator(), 'GET', '/emulator/faults')).json()).toEqual({ rules: [] });
  });

  it('moves the clock forward by a step or a number of seconds, and never back', async () => {
    const before = (await raw(emulator(), 'GET', '/emulator/time')).json<{ offset_millis: number }>().offset_millis;
    expect(await submit('/emulator/page/time', { advance_seconds: '3600' })).toMatchObject({
      status: 303,
      location: '/emulator#clock',
    });
    expect(await submit('/emulator/page/time', { advance_seconds: '1.5' })).toMatchObject({ status: 303 });
    const after = (await raw(emulator(), 'GET', '/emulator/time')).json<{ offset_millis: number }>().offset_millis;
    expect(after - before).toBe(3_601_500);
    expect((await raw(emulator(), 'GET', '/emulator')).text).toMatch(/\(advanced by (\d+ d )?1 h (\d+ min )?\d+ s\)/);

    for (const value of ['-60', '', 'tomorrow']) {
      const refused = await submit('/emulator/page/time', { advance_seconds: value });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('<p class="error" role="alert">Advance by a number of seconds, 0 or more.</p>');
    }
    expect((await raw(emulator(), 'GET', '/emulator/time')).json<{ offset_millis: number }>().offset_millis).toBe(
      after,
    );
  });

  it('takes its forms from the emulator’s own page only', async () => {
    const em = emulator();
    const elsewhere = await submit(
      '/emulator/page/faults',
      { path: '/api/v1/*', effect: '503' },
      { origin: 'https://evil.example' },
    );
    expect(elsewhere.status).toBe(403);
    const own = await submit(
      '/emulator/page/faults',
      { path: '/api/v1/*', effect: '503', count: '1' },
      { origin: em.url },
    );
    expect(own.status).toBe(303);
    expect((await raw(em, 'GET', '/emulator/faults')).json<{ rules: object[] }>().rules).toHaveLength(1);
  });
});
