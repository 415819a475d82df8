/**
 * User fields the service takes today: `is_anonymous`, `country_code` and `risk_scores` from the server, the primary
 * e-mail from the user itself, the anonymous-user filters of the list, the sign-up country from a browser's proxy
 * headers, and the create answer given before the personal team exists.
 */
import { describe, expect, it } from 'vitest';
import {
  api,
  APP,
  expectKnownError,
  expectPlainError,
  PASSWORD,
  signUp,
  withDemoConfig,
} from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });

type User = Record<string, unknown> & { id: string };

async function createUser(body: Record<string, unknown>) {
  return api(emulator(), 'POST', '/users', { access: 'server', body });
}

describe('server-set user fields', () => {
  it('makes an anonymous user, and makes it a regular one (signed up anew, its personal team renamed)', () =>
    withDemoConfig(emulator(), { create_team_on_sign_up: true }, async () => {
      const em = emulator();
      const created = await createUser({ is_anonymous: true });
      expect(created.status).toBe(201);
      const guest = created.body as User;
      expect(guest).toMatchObject({
        is_anonymous: true,
        is_restricted: true,
        restricted_reason: { type: 'anonymous' },
      });
      const upgraded = await api(em, 'PATCH', `/users/${guest.id}`, {
        access: 'server',
        body: { is_anonymous: false, display_name: 'Ada' },
      });
      expect(upgraded.body).toMatchObject({ is_anonymous: false, is_restricted: false, restricted_reason: null });
      expect((upgraded.body as User).selected_team).toMatchObject({ display_name: "Ada's Team" });
      expect((upgraded.body as User).signed_up_at_millis).toBeGreaterThanOrEqual(guest.signed_up_at_millis as number);
    }));

  it('never makes a regular user anonymous', async () => {
    const user = (await createUser({})).body as User;
    const response = await api(emulator(), 'PATCH', `/users/${user.id}`, {
      access: 'server',
      body: { is_anonymous: true },
    });
    expectKnownError(response, 'SCHEMA_ERROR', 400);
    expect((response.body as { error: string }).error).toContain(
      'body.is_anonymous must be one of the following values: false',
    );
  });

  it('keeps a country code (normalised) and risk scores', async () => {
    const created = await createUser({
      country_code: ' ca ',
      risk_scores: { sign_up: { bot: 12, free_trial_abuse: 3 } },
    });
    expect(created.body).toMatchObject({
      country_code: 'CA',
      risk_scores: { sign_up: { bot: 12, free_trial_abuse: 3 } },
    });
    const bad = await createUser({ country_code: 'CAN' });
    expectKnownError(bad, 'SCHEMA_ERROR', 400);
    expect((bad.body as { error: string }).error).toContain('body.country_code must be a 2-letter country code');
  });

  it('answers the create before the personal team is made; reads show it', () =>
    withDemoConfig(emulator(), { create_team_on_sign_up: true }, async () => {
      const created = (await createUser({ display_name: 'Team Owner' })).body as User;
      expect(created).toMatchObject({ selected_team: null, selected_team_id: null });
      const read = await api(emulator(), 'GET', `/users/${created.id}`, { access: 'server' });
      expect(read.body).toMatchObject({ selected_team: { display_name: "Team Owner's Team" } });
    }));
});

describe('listing anonymous users', () => {
  it('only_anonymous needs include_anonymous, and then lists only them', async () => {
    const em = emulator();
    expectPlainError(
      await api(em, 'GET', '/users?only_anonymous=true', { access: 'server' }),
      400,
      'only_anonymous=true requires include_anonymous=true',
    );
    await createUser({ is_anonymous: true });
    const only = await api(em, 'GET', '/users?only_anonymous=true&include_anonymous=true', { access: 'server' });
    const items = (only.body as { items: User[] }).items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((u) => u.is_anonymous === true)).toBe(true);
    const restricted = await api(em, 'GET', '/users?include_restricted=true', { access: 'server' });
    expect((restricted.body as { items: User[] }).items.some((u) => u.is_anonymous === true)).toBe(false);
  });
});

describe('the user’s own primary e-mail', () => {
  it('a client may change its primary e-mail', async () => {
    const em = emulator();
    const user = await signUp(em);
    const email = uniqueEmail('moved');
    const response = await api(em, 'PATCH', '/users/me', {
      accessToken: user.access_token,
      body: { primary_email: email },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ primary_email: email });
  });
});

describe('the sign-up country', () => {
  const browser = { 'user-agent': 'Mozilla/5.0', 'x-forwarded-for': '127.0.0.70', 'x-vercel-ip-country': 'ca' };

  it('is taken from a browser request’s proxy headers at password sign-up, and not without an IP', async () => {
    const em = emulator();
    const signUpWith = async (headers: Record<string, string>) => {
      const response = await api(em, 'POST', '/auth/password/sign-up', {
        headers,
        body: { email: uniqueEmail('geo'), password: PASSWORD, verification_callback_url: `${APP}/verify` },
      });
      const { user_id } = response.body as { user_id: string };
      return ((await api(em, 'GET', `/users/${user_id}`, { access: 'server' })).body as User).country_code;
    };
    expect(await signUpWith(browser)).toBe('CA');
    expect(await signUpWith({ 'user-agent': 'Mozilla/5.0', 'x-vercel-ip-country': 'CA' })).toBeNull();
    expect(await signUpWith({ ...browser, 'user-agent': 'curl/8' })).toBeNull();
  });
});
