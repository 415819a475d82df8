import * as api from '../../../../protocol/endpoints/index.js';
import { codeFromMail, type Flow } from '../flow.js';
import { CALLBACK, createFlowProject, PASSWORD } from './project.js';

export const anonymousFlow: Flow = {
  name: 'anonymous',
  covers: 'anonymous sign-up, what its tokens may do, and upgrading it by a password or an OTP sign-up',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const server = ctx.server();
    const guest = await ctx.step('anonymous sign-up', () => api.signUpAnonymously(client));
    if (!guest) return;
    const asGuest = ctx.client(guest);
    await ctx.step('users/me (anonymous)', () => api.getCurrentUser(asGuest));
    await ctx.raw('users/me (anonymous) without the allow header', {
      method: 'GET',
      path: '/users/me',
      headers: ctx.headers('client', { 'x-stack-access-token': guest.access_token }),
    });
    await ctx.step('update me (anonymous)', () =>
      api.updateCurrentUser(asGuest, { client_metadata: { cart: ['book'] } }),
    );
    await ctx.step('users/me (server, anonymous token)', () => api.getCurrentUser(ctx.server(guest)));
    await ctx.step('get the anonymous user (server)', () => api.getUser(server, guest.user_id));
    await ctx.step('list users (server)', () => api.listUsers(server));
    await ctx.step('list users with anonymous ones (server)', () => api.listUsers(server, { include_anonymous: true }));
    await ctx.step('a second anonymous sign-up', () => api.signUpAnonymously(client));

    // A sign-up that does not carry the anonymous token makes another user; one that does upgrades it.
    const email = ctx.email('upgrade');
    await ctx.step('sign-up without the anonymous token', () =>
      api.signUpWithPassword(asGuest, {
        email: ctx.email('separate'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    const upgraded = await ctx.step('sign-up with the anonymous token (upgrade)', () =>
      api.signUpWithPassword(
        asGuest,
        { email, password: PASSWORD, verification_callback_url: CALLBACK },
        { user: 'optional' },
      ),
    );
    if (upgraded) await ctx.step('users/me after the upgrade', () => api.getCurrentUser(ctx.client(upgraded)));
    await ctx.raw('renew with the anonymous refresh token after the upgrade', {
      method: 'POST',
      path: '/auth/sessions/current/refresh',
      headers: ctx.headers('client', { 'x-stack-refresh-token': guest.refresh_token }),
      body: {},
    });
    await ctx.step('sign-in as the upgraded user', () => api.signInWithPassword(client, { email, password: PASSWORD }));

    // An e-mail taken already leaves the anonymous user as it is.
    const other = await ctx.step('another anonymous sign-up', () => api.signUpAnonymously(client));
    if (!other) return;
    await ctx.step('upgrade to a taken e-mail', () =>
      api.signUpWithPassword(
        ctx.client(other),
        { email, password: PASSWORD, verification_callback_url: CALLBACK },
        { user: 'optional' },
      ),
    );

    // The magic link's code, redeemed with the anonymous token.
    const otpEmail = ctx.email('otp-upgrade');
    await ctx.step('send a sign-in code to a new e-mail', () =>
      api.sendOtpSignInCode(client, {
        email: otpEmail,
        callback_url: 'http://localhost:5173/handler/magic-link-callback',
      }),
    );
    const code = codeFromMail(await ctx.mail(otpEmail, /sign.?in|code|link/i)) ?? 'o'.repeat(45);
    const viaOtp = await ctx.step('OTP sign-in with the anonymous token (upgrade)', () =>
      api.signInWithOtp(ctx.client(other), code, { user: 'optional' }),
    );
    if (viaOtp) await ctx.step('users/me after the OTP upgrade', () => api.getCurrentUser(ctx.client(viaOtp)));
  },
};
