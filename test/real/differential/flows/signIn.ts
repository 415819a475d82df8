import * as api from '../../../../protocol/endpoints/index.js';
import { refreshAccessToken } from '../../../../protocol/tokenGrant.js';
import { codeFromMail, type Flow } from '../flow.js';
import { CALLBACK, createFlowProject, PASSWORD } from './project.js';

const NEW_PASSWORD = 'An0ther-secret-passw0rd!';

export const passwordFlow: Flow = {
  name: 'password',
  covers: 'password sign-up, sign-in, the verification e-mail, password update, set and reset',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const email = ctx.email('pw');
    const signedUp = await ctx.step('sign-up', () =>
      api.signUpWithPassword(client, { email, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    await ctx.step('sign-up again (same e-mail)', () =>
      api.signUpWithPassword(client, { email, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    await ctx.raw('sign-up with a short password', {
      method: 'POST',
      path: '/auth/password/sign-up',
      headers: ctx.headers('client'),
      body: { email: ctx.email('short'), password: 'abc', verification_callback_url: CALLBACK },
    });
    await ctx.raw('sign-up without e-mail', {
      method: 'POST',
      path: '/auth/password/sign-up',
      headers: ctx.headers('client'),
      body: { password: PASSWORD },
    });
    await ctx.raw('sign-up with an untrusted callback', {
      method: 'POST',
      path: '/auth/password/sign-up',
      headers: ctx.headers('client'),
      body: { email: ctx.email('cb'), password: PASSWORD, verification_callback_url: 'https://evil.example/cb' },
    });
    await ctx.step('sign-in', () => api.signInWithPassword(client, { email, password: PASSWORD }));
    await ctx.step('sign-in, wrong password', () =>
      api.signInWithPassword(client, { email, password: 'wrong-password-1' }),
    );
    await ctx.step('sign-in, unknown e-mail', () =>
      api.signInWithPassword(client, { email: ctx.email('nobody'), password: PASSWORD }),
    );
    if (!signedUp) return;
    const me = ctx.client(signedUp);
    await ctx.step('users/me after sign-up', () => api.getCurrentUser(me));

    // The verification e-mail the sign-up sent.
    const verification = await ctx.mail(email, /verif/i);
    const code = codeFromMail(verification);
    await ctx.step('verification code: check', () =>
      api.checkContactChannelVerificationCode(client, code ?? 'x'.repeat(45)),
    );
    await ctx.step('verification code: verify', () => api.verifyContactChannel(client, code ?? 'x'.repeat(45)));
    await ctx.step('verification code: verify again', () => api.verifyContactChannel(client, code ?? 'x'.repeat(45)));

    await ctx.step('update password, wrong old one', () =>
      api.updatePassword(ctx.client(signedUp), { old_password: 'wrong-password-1', new_password: NEW_PASSWORD }),
    );
    await ctx.step('update password', () =>
      api.updatePassword(ctx.client(signedUp), { old_password: PASSWORD, new_password: NEW_PASSWORD }),
    );
    await ctx.step('set password when there is one', () =>
      api.setPassword(ctx.client(signedUp), { password: PASSWORD }),
    );
    await ctx.step('sign-in with the new password', () =>
      api.signInWithPassword(client, { email, password: NEW_PASSWORD }),
    );

    await ctx.step('send reset code', () =>
      api.sendPasswordResetCode(client, { email, callback_url: 'http://localhost:5173/handler/password-reset' }),
    );
    const reset = await ctx.mail(email, /reset/i);
    const resetCode = codeFromMail(reset);
    await ctx.step('reset code: check', () => api.checkPasswordResetCode(client, resetCode ?? 'y'.repeat(45)));
    await ctx.step('reset code: check a wrong one', () => api.checkPasswordResetCode(client, 'y'.repeat(45)));
    await ctx.step('reset password', () =>
      api.resetPassword(client, { code: resetCode ?? 'y'.repeat(45), password: PASSWORD }),
    );
    await ctx.step('reset password, code used', () =>
      api.resetPassword(client, { code: resetCode ?? 'y'.repeat(45), password: PASSWORD }),
    );
    await ctx.step('sign-in after reset', () => api.signInWithPassword(client, { email, password: PASSWORD }));
  },
};

export const otpFlow: Flow = {
  name: 'otp',
  covers: 'the magic link / one-time code sign-in through the e-mail',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const email = ctx.email('otp');
    const sent = await ctx.step('send sign-in code (new user)', () =>
      api.sendOtpSignInCode(client, { email, callback_url: 'http://localhost:5173/handler/magic-link-callback' }),
    );
    const mail = await ctx.mail(email, /sign in|code/i);
    const linkCode = codeFromMail(mail);
    const typed = /\b([A-Z0-9]{6})\b/.exec(mail?.subject ?? '')?.[1];
    await ctx.step('check the code of the link', () => api.checkOtpCode(client, linkCode ?? 'z'.repeat(45)));
    const code = typed && sent?.nonce ? api.otpCodeFromTyped(typed, sent.nonce) : linkCode;
    const signedIn = await ctx.step('sign in with the typed code', () =>
      api.signInWithOtp(client, code ?? 'z'.repeat(45)),
    );
    await ctx.step('sign in with the code again', () => api.signInWithOtp(client, code ?? 'z'.repeat(45)));
    await ctx.step('sign in with a wrong code', () => api.signInWithOtp(client, 'z'.repeat(45)));
    if (signedIn) await ctx.step('users/me after OTP sign-up', () => api.getCurrentUser(ctx.client(signedIn)));
    await ctx.step('send sign-in code (existing user)', () =>
      api.sendOtpSignInCode(client, { email, callback_url: 'http://localhost:5173/handler/magic-link-callback' }),
    );
    await ctx.raw('send sign-in code without callback', {
      method: 'POST',
      path: '/auth/otp/send-sign-in-code',
      headers: ctx.headers('client'),
      body: { email },
    });
  },
};

export const sessionFlow: Flow = {
  name: 'session',
  covers: 'renewing tokens (token endpoint and session endpoint), listing and ending sessions, signing out',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const email = ctx.email('session');
    const first = await ctx.step('sign-up', () =>
      api.signUpWithPassword(client, { email, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    const second = await ctx.step('sign-in (a second session)', () =>
      api.signInWithPassword(client, { email, password: PASSWORD }),
    );
    if (!first || !second) return;
    const tokenOptions = {
      baseUrl: ctx.side.baseUrl,
      projectId: ctx.project.projectId,
      publishableClientKey: ctx.project.publishableClientKey,
      fetch: ctx.recorder.fetch,
      attemptTimeoutMillis: 600_000,
    };
    await ctx.step('renew at the token endpoint', () => refreshAccessToken(tokenOptions, first.refresh_token));
    await ctx.step('renew at the token endpoint, unknown refresh token', () =>
      refreshAccessToken(tokenOptions, 'not-a-refresh-token'),
    );
    await ctx.step('renew at the session endpoint', () => api.refreshViaSessionEndpoint(ctx.client(first)));
    await ctx.raw('renew at the session endpoint, no refresh token', {
      method: 'POST',
      path: '/auth/sessions/current/refresh',
      headers: ctx.headers('client'),
      body: {},
    });
    await ctx.raw('token endpoint, wrong client secret', {
      method: 'POST',
      path: '/auth/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: ctx.project.projectId,
        client_secret: 'pck_wrong',
      }).toString(),
    });
    await ctx.raw('token endpoint, unsupported grant', {
      method: 'POST',
      path: '/auth/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: ctx.project.projectId,
        client_secret: ctx.project.publishableClientKey,
      }).toString(),
    });
    const me = await ctx.step('users/me', () => api.getCurrentUser(ctx.client(first)));
    const userId = me?.id ?? '00000000-0000-4000-8000-000000000000';
    const sessions = await ctx.step('list my sessions (client)', () => api.listSessions(ctx.client(first), 'me'));
    await ctx.step('list sessions (server)', () => api.listSessions(ctx.server(), userId));
    await ctx.step("list another user's sessions (client)", () =>
      api.listSessions(ctx.client(first), '00000000-0000-4000-8000-000000000000'),
    );
    const created = await ctx.step('create a session (server)', () =>
      api.createSession(ctx.server(), { user_id: userId }),
    );
    const current = sessions?.find((s) => s.is_current_session);
    const other = sessions?.find((s) => !s.is_current_session);
    if (current)
      await ctx.step('delete the current session', () => api.deleteSession(ctx.client(first), current.id, 'me'));
    if (other) await ctx.step('delete another session', () => api.deleteSession(ctx.client(first), other.id, 'me'));
    await ctx.step('sign out', () => api.signOutCurrentSession(ctx.client(first), { maxAttempts: 1 }));
    await ctx.step('renew after sign-out', () => refreshAccessToken(tokenOptions, first.refresh_token));
    await ctx.step('sign out again', () => api.signOutCurrentSession(ctx.client(first), { maxAttempts: 1 }));
    if (created) await ctx.step('users/me with the server-made session', () => api.getCurrentUser(ctx.client(created)));
    await ctx.step('users/me signed out', () => api.getCurrentUser(ctx.client()));
  },
};
