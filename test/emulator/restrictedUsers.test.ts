/**
 * Restricted users as the service has them: with the project's `onboarding.requireEmailVerification`, a user whose
 * primary e-mail is not verified is restricted (`email_not_verified`): its tokens have the restricted audience and
 * issuer, count only with `x-stack-allow-restricted-user`, and it is left out of the user list and may not join teams.
 */
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { api, APP, PASSWORD, withDemoConfig } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });
const ALLOW = { 'x-stack-allow-restricted-user': 'true' };

async function restrictedSignUp() {
  const em = emulator();
  const response = await api(em, 'POST', '/auth/password/sign-up', {
    body: { email: uniqueEmail('restricted'), password: PASSWORD, verification_callback_url: `${APP}/verify` },
  });
  return response.body as { access_token: string; user_id: string };
}

describe('restricted users (e-mail verification required)', () => {
  it('an unverified user is restricted; its token counts only when restricted users are allowed', () =>
    withDemoConfig(emulator(), { require_email_verification: true }, async () => {
      const em = emulator();
      const user = await restrictedSignUp();
      const refused = await api(em, 'GET', '/users/me', { accessToken: user.access_token });
      expect({ status: refused.status, body: refused.body }).toMatchObject({
        status: 403,
        body: { code: 'RESTRICTED_USER_NOT_ALLOWED', details: { restricted_reason: { type: 'email_not_verified' } } },
      });
      const allowed = await api(em, 'GET', '/users/me', { accessToken: user.access_token, headers: ALLOW });
      expect(allowed.body).toMatchObject({ is_restricted: true, restricted_reason: { type: 'email_not_verified' } });
    }));

  it('its tokens have the restricted audience and issuer, and the key set with restricted keys verifies them', () =>
    withDemoConfig(emulator(), { require_email_verification: true }, async () => {
      const em = emulator();
      const user = await restrictedSignUp();
      const claims = decodeJwt(user.access_token);
      expect(claims).toMatchObject({
        aud: `${em.projects.demo.id}:restricted`,
        is_restricted: true,
        restricted_reason: { type: 'email_not_verified' },
      });
      expect(claims.iss).toMatch(new RegExp(`/api/v1/projects-restricted-users/${em.projects.demo.id}$`));
      const jwks = await api(
        em,
        'GET',
        `/projects/${em.projects.demo.id}/.well-known/jwks.json?include_restricted=true`,
        {
          access: null,
        },
      );
      await expect(jwtVerify(user.access_token, createLocalJWKSet(jwks.body as never))).resolves.toBeDefined();
    }));

  it('is left out of the user list unless asked for, and may not accept a team invitation', () =>
    withDemoConfig(emulator(), { require_email_verification: true }, async () => {
      const em = emulator();
      const user = await restrictedSignUp();
      const ids = async (query: string) =>
        (
          (await api(em, 'GET', `/users?${query}`, { access: 'server' })).body as { items: Array<{ id: string }> }
        ).items.map((u) => u.id);
      expect(await ids('')).not.toContain(user.user_id);
      expect(await ids('include_restricted=true')).toContain(user.user_id);
      const accepted = await api(em, 'POST', `/team-invitations/${crypto.randomUUID()}/accept?user_id=me`, {
        accessToken: user.access_token,
        headers: ALLOW,
      });
      expect(accepted.body).toMatchObject({
        code: 'TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED',
        details: { restricted_reason: { type: 'email_not_verified' } },
      });
    }));

  it('without the requirement, the same user is not restricted', () =>
    withDemoConfig(emulator(), { require_email_verification: false }, async () => {
      const em = emulator();
      const user = await restrictedSignUp();
      const me = await api(em, 'GET', '/users/me', { accessToken: user.access_token });
      expect(me.body).toMatchObject({ is_restricted: false, restricted_reason: null });
      expect(decodeJwt(user.access_token).aud).toBe(em.projects.demo.id);
    }));
});
