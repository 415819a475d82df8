import * as api from '../../../../protocol/endpoints/index.js';
import type { Flow } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

/** The service's two notification categories, the same in every project. */
const TRANSACTIONAL = '7bb82d33-2f54-4a3d-9d23-82739e0d66ef';
const MARKETING = '4f6f8873-3d04-46bd-8bef-18338b1a1b4c';

export const notificationPreferenceFlow: Flow = {
  name: 'notification-preference',
  covers: "a user's notification preferences: listing and changing them, as the user and the server, and the refusals",
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const server = ctx.server();
    const signedUp = await ctx.step('sign-up', () =>
      api.signUpWithPassword(ctx.client(), {
        email: ctx.email('notify'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    if (!signedUp) return;
    const me = ctx.client(signedUp);
    const userId = signedUp.user_id;
    await ctx.step('list mine', () => api.listNotificationPreferences(me, 'me'));
    await ctx.step('list mine by id', () => api.listNotificationPreferences(me, userId));
    await ctx.step('list (server)', () => api.listNotificationPreferences(server, userId));
    await ctx.step('turn marketing off', () =>
      api.updateNotificationPreference(me, 'me', MARKETING, { enabled: false }),
    );
    await ctx.step('turn transactional off', () =>
      api.updateNotificationPreference(me, 'me', TRANSACTIONAL, { enabled: false }),
    );
    await ctx.step('turn marketing on (server)', () =>
      api.updateNotificationPreference(server, userId, MARKETING, { enabled: true }),
    );
    await ctx.step('list mine after', () => api.listNotificationPreferences(me, 'me'));

    await ctx.step("list another user's (client)", () => api.listNotificationPreferences(me, NOBODY));
    await ctx.step("change another user's (client)", () =>
      api.updateNotificationPreference(me, NOBODY, MARKETING, { enabled: false }),
    );
    await ctx.step('change an unknown category', () =>
      api.updateNotificationPreference(me, 'me', NOBODY, { enabled: false }),
    );
    await ctx.step('list an unknown user (server)', () => api.listNotificationPreferences(server, NOBODY));
    await ctx.step('change an unknown user and category (server)', () =>
      api.updateNotificationPreference(server, NOBODY, NOBODY, { enabled: true }),
    );
    await ctx.step('change an unknown user (server)', () =>
      api.updateNotificationPreference(server, NOBODY, MARKETING, { enabled: true }),
    );
    const path = `/emails/notification-preference/me/${MARKETING}`;
    const withSession = ctx.headers('client', { 'x-stack-access-token': signedUp.access_token });
    await ctx.raw('change with no body', { method: 'PATCH', path, headers: withSession });
    await ctx.raw('change with an empty body', { method: 'PATCH', path, headers: withSession, body: {} });
    await ctx.raw('change with enabled not a boolean', {
      method: 'PATCH',
      path,
      headers: withSession,
      body: { enabled: 'no' },
    });
    await ctx.raw('change with an unknown field', {
      method: 'PATCH',
      path,
      headers: withSession,
      body: { enabled: true, extra: 1 },
    });
    await ctx.raw('list mine without a session', {
      method: 'GET',
      path: '/emails/notification-preference/me',
      headers: ctx.headers('client'),
    });
  },
};

export const connectedAccountFlow: Flow = {
  name: 'connected-account',
  covers: "listing a user's connected (linked provider) accounts, as the user and the server, and the refusals",
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const server = ctx.server();
    // The provider configuration, in today's shape (no `enabled`; the list replaces the old one).
    const admin = ctx.admin();
    await ctx.raw('offer a provider the v2.7 way (enabled)', {
      method: 'PATCH',
      path: '/internal/projects/current',
      headers: ctx.headers('admin'),
      body: { config: { oauth_providers: [{ id: 'github', type: 'shared', enabled: true }] } },
    });
    await ctx.raw('offer a standard provider without credentials', {
      method: 'PATCH',
      path: '/internal/projects/current',
      headers: ctx.headers('admin'),
      body: { config: { oauth_providers: [{ id: 'discord', type: 'standard' }] } },
    });
    await ctx.step('offer GitHub and Discord (shared keys)', () =>
      api.updateCurrentProject(admin, {
        config: {
          oauth_providers: [
            { id: 'github', type: 'shared' },
            { id: 'discord', type: 'shared' },
          ],
        },
      }),
    );
    await ctx.step('offer GitHub only (Discord left out)', () =>
      api.updateCurrentProject(admin, { config: { oauth_providers: [{ id: 'github', type: 'shared' }] } }),
    );
    await ctx.step('the providers in the client view', () => api.getCurrentProject(ctx.client()));
    const email = ctx.email('linked');
    const linked = await ctx.step('create a user with a linked GitHub account (server)', () =>
      api.createUser(server, {
        primary_email: email,
        primary_email_auth_enabled: true,
        password: PASSWORD,
        oauth_providers: [{ id: 'github', account_id: `gh-${ctx.email('account').split('@')[0]}`, email }],
      }),
    );
    if (!linked) return;
    const session = await ctx.step('a session for it (server)', () =>
      api.createSession(server, { user_id: linked.id }),
    );
    if (session) {
      const me = ctx.client(session);
      await ctx.step('list mine', () => api.listConnectedAccounts(me, 'me'));
      await ctx.step('list mine by id', () => api.listConnectedAccounts(me, linked.id));
      await ctx.step("list another user's (client)", () => api.listConnectedAccounts(me, NOBODY));
      // No provider token step: for a shared provider the development backend asks its mock OAuth server
      // (STACK_OAUTH_MOCK_URL, port 8214), which the lane does not run; "not connected" is in the misc flow.
    }
    await ctx.step('list (server)', () => api.listConnectedAccounts(server, linked.id));
    const plain = await ctx.step('create a user without links (server)', () =>
      api.createUser(server, { primary_email: ctx.email('unlinked') }),
    );
    if (plain) await ctx.step('list a user without links (server)', () => api.listConnectedAccounts(server, plain.id));
    await ctx.step('list an unknown user (server)', () => api.listConnectedAccounts(server, NOBODY));
    await ctx.raw('list mine without a session', {
      method: 'GET',
      path: '/connected-accounts/me',
      headers: ctx.headers('client'),
    });
    await ctx.raw('list a user id that is not one (server)', {
      method: 'GET',
      path: '/connected-accounts/not-an-id',
      headers: ctx.headers('server'),
    });
  },
};
