import * as api from '../../../../protocol/endpoints/index.js';
import type { Flow, FlowContext } from '../flow.js';
import { CALLBACK, createFlowProject, PASSWORD } from './project.js';

export const adminFlow: Flow = {
  name: 'admin',
  covers: 'the admin calls of our client: e-mail templates, sent e-mails, test e-mail, metrics, the webhook token',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const admin = ctx.admin();
    await ctx.step('list e-mail templates', () => api.listEmailTemplates(admin));
    await ctx.step('get an e-mail template', () => api.getEmailTemplate(admin, 'magic_link'));
    await ctx.step('update an e-mail template', () =>
      api.updateEmailTemplate(admin, 'magic_link', { subject: 'Your code' }),
    );
    await ctx.step('reset an e-mail template', () => api.resetEmailTemplate(admin, 'magic_link'));
    await ctx.step('list sent e-mails', () => api.listSentEmails(admin));
    await ctx.step('send a test e-mail', () =>
      api.sendTestEmail(admin, {
        recipient_email: ctx.email('test-mail'),
        email_config: {
          host: '127.0.0.1',
          port: 8129,
          username: 'user',
          password: 'password',
          sender_name: 'Differential',
          sender_email: 'noreply@example.com',
        },
      }),
    );
    await ctx.step('project metrics', () => api.getProjectMetrics(admin));
    await ctx.step('webhook (svix) token', () => api.createSvixToken(admin));
    await ctx.raw('metrics with a client key', {
      method: 'GET',
      path: '/internal/metrics',
      headers: ctx.headers('client'),
    });
  },
};

export const miscFlow: Flow = {
  name: 'misc',
  covers:
    'the API root, version and feature checks, the key set, CLI login, MFA and passkey entry points, connected accounts',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    await ctx.step('API root', () => api.getApiInfo(client));
    await ctx.step('check version (current)', () => api.checkVersion(client, 'js @stackframe/js@2.8.86'));
    await ctx.step('check version (old)', () => api.checkVersion(client, 'js @stackframe/js@1.0.0'));
    await ctx.step('check feature support', () =>
      api.checkFeatureSupport(client, { feature_name: 'authbroker-differential' }),
    );
    await ctx.step('project key set (JWKS)', () =>
      api.getProjectJwks(ctx.side.baseUrl, ctx.project.projectId, ctx.recorder.fetch),
    );
    await ctx.step('project key set, unknown project', () =>
      api.getProjectJwks(ctx.side.baseUrl, '00000000-0000-4000-8000-000000000000', ctx.recorder.fetch),
    );
    await ctx.step("project key set with restricted users' keys", () =>
      api.getProjectJwks(ctx.side.baseUrl, ctx.project.projectId, ctx.recorder.fetch, { restricted: true }),
    );
    await ctx.step("project key set with anonymous users' keys", () =>
      api.getProjectJwks(ctx.side.baseUrl, ctx.project.projectId, ctx.recorder.fetch, { anonymous: true }),
    );
    await ctx.raw('project key set, include_anonymous not a boolean', {
      method: 'GET',
      path: `/projects/${ctx.project.projectId}/.well-known/jwks.json?include_anonymous=yes`,
      headers: {},
    });

    const signedUp = await ctx.step('sign-up', () =>
      api.signUpWithPassword(client, {
        email: ctx.email('misc'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    const cli = await ctx.step('CLI login: start', () => api.startCliLogin(client));
    if (cli) {
      await ctx.step('CLI login: poll, waiting', () => api.pollCliLogin(client, cli.polling_code));
      if (signedUp)
        await ctx.step('CLI login: complete', () =>
          api.completeCliLogin(ctx.client(signedUp), {
            login_code: cli.login_code,
            refresh_token: signedUp.refresh_token,
          }),
        );
      await ctx.step('CLI login: poll, done', () => api.pollCliLogin(client, cli.polling_code));
      await ctx.step('CLI login: poll, used', () => api.pollCliLogin(client, cli.polling_code));
    }
    await ctx.step('CLI login: poll an unknown code', () => api.pollCliLogin(client, 'no-such-polling-code'));
    await cliGuestSteps(ctx, signedUp?.refresh_token);

    await ctx.step('MFA sign-in with an unknown attempt', () =>
      api.signInWithMfa(client, { attempt_code: 'm'.repeat(45), totp: '123456' }),
    );
    if (signedUp) {
      const me = ctx.client(signedUp);
      await ctx.step('passkey registration: options', () => api.initiatePasskeyRegistration(me));
      await ctx.step('passkey registration: a bad credential', () =>
        api.registerPasskey(me, {
          credential: { id: 'x', rawId: 'x', type: 'public-key', response: {} },
          code: 'p'.repeat(45),
        }),
      );
      await ctx.step('connected account token, not connected', () =>
        api.getConnectedAccountAccessToken(me, 'me', 'github', { scope: 'repo' }),
      );
      await ctx.step('MFA: enable TOTP', () =>
        api.updateCurrentUser(me, { totp_secret_base64: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }),
      );
    }
    await ctx.step('passkey authentication: options', () => api.initiatePasskeyAuthentication(client));
    await ctx.step('passkey sign-in with a bad response', () =>
      api.signInWithPasskey(client, { authentication_response: { id: 'x' }, code: 'p'.repeat(45) }),
    );
    await ctx.raw('OAuth authorize, unknown provider', {
      method: 'GET',
      path: `/auth/oauth/authorize/no-such-provider?client_id=${ctx.project.projectId}&client_secret=${ctx.project.publishableClientKey}&redirect_uri=${encodeURIComponent('http://localhost:5173/handler/oauth-callback')}&scope=legacy&state=s&grant_type=authorization_code&code_challenge=${'c'.repeat(43)}&code_challenge_method=S256&response_type=code&type=authenticate`,
    });
  },
};

/**
 * CLI login with the CLI's own anonymous user: the browser asks whether there is one, takes it over
 * once, and the service's refusals (no refresh token, an unknown one, a non-anonymous user's).
 */
async function cliGuestSteps(ctx: FlowContext, userRefreshToken: string | undefined): Promise<void> {
  const client = ctx.client();
  const complete = (label: string, body: Record<string, unknown>) =>
    ctx.raw(label, { method: 'POST', path: '/auth/cli/complete', headers: ctx.headers('client'), body });
  const guest = await ctx.step('CLI login: an anonymous CLI user', () => api.signUpAnonymously(client));
  if (guest) {
    const cli = await ctx.step('CLI login: start with the anonymous user', () =>
      api.startCliLogin(client, { anon_refresh_token: guest.refresh_token }),
    );
    if (cli) {
      await ctx.step('CLI login: check, anonymous', () => api.checkCliLogin(client, cli.login_code));
      await ctx.step('CLI login: claim the anonymous session', () =>
        api.claimCliAnonymousSession(client, cli.login_code),
      );
      await ctx.step('CLI login: claim again', () => api.claimCliAnonymousSession(client, cli.login_code));
      await ctx.step('CLI login: check after the claim', () => api.checkCliLogin(client, cli.login_code));
      await complete('CLI login: complete without a refresh token', { login_code: cli.login_code });
      await complete('CLI login: complete with an unknown refresh token', {
        login_code: cli.login_code,
        refresh_token: 'no-such-refresh-token',
      });
    }
  }
  await ctx.raw('CLI login: start with an unknown anonymous token', {
    method: 'POST',
    path: '/auth/cli',
    headers: ctx.headers('client'),
    body: { anon_refresh_token: 'no-such-refresh-token' },
  });
  if (userRefreshToken !== undefined)
    await ctx.raw("CLI login: start with a signed-up user's token as the anonymous one", {
      method: 'POST',
      path: '/auth/cli',
      headers: ctx.headers('client'),
      body: { anon_refresh_token: userRefreshToken },
    });
}
