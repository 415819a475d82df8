import * as api from '../../../../protocol/endpoints/index.js';
import { codeFromMail, type Flow } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

export const userFlow: Flow = {
  name: 'user',
  covers: 'the user object for each access type, updating it, listing and deleting users',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const email = ctx.email('user');
    const signedUp = await ctx.step('sign-up', () =>
      api.signUpWithPassword(client, { email, password: PASSWORD, verification_callback_url: CALLBACK }),
    );
    if (!signedUp) return;
    const me = ctx.client(signedUp);
    await ctx.step('users/me (client)', () => api.getCurrentUser(me));
    await ctx.step('users/me (server, with the token)', () => api.getCurrentUser(ctx.server(signedUp)));
    await ctx.step('update me (client)', () =>
      api.updateCurrentUser(me, { display_name: 'Ada', client_metadata: { theme: 'dark' } }),
    );
    await ctx.raw('update me with a server-only field (client)', {
      method: 'PATCH',
      path: '/users/me',
      headers: ctx.headers('client', { 'x-stack-access-token': signedUp.access_token }),
      body: { server_metadata: { x: 1 } },
    });
    await ctx.raw('update me with a bad profile image (client)', {
      method: 'PATCH',
      path: '/users/me',
      headers: ctx.headers('client', { 'x-stack-access-token': signedUp.access_token }),
      body: { profile_image_url: 'https://example.com/x.png' },
    });
    await ctx.step('select a team that does not exist', () => api.updateCurrentUser(me, { selected_team_id: NOBODY }));

    const server = ctx.server();
    const created = await ctx.step('create a user (server)', () =>
      api.createUser(server, {
        primary_email: ctx.email('made'),
        primary_email_auth_enabled: true,
        password: PASSWORD,
        display_name: 'Made',
        server_metadata: { n: 1 },
      }),
    );
    await ctx.step('create a user with a taken e-mail', () =>
      api.createUser(server, { primary_email: email, primary_email_auth_enabled: true }),
    );
    await ctx.step('create a user with no fields', () => api.createUser(server, {}));
    if (created) {
      await ctx.step('get a user (server)', () => api.getUser(server, created.id));
      await ctx.step('update a user (server)', () =>
        api.updateUser(server, created.id, {
          display_name: 'Renamed',
          client_read_only_metadata: { plan: 'pro' },
          primary_email_verified: true,
        }),
      );
      await ctx.step('get a user (admin)', () => api.getUser(ctx.admin(), created.id));
    }
    await ctx.step('get an unknown user', () => api.getUser(server, NOBODY));
    await ctx.raw('get a user (client)', {
      method: 'GET',
      path: `/users/${created?.id ?? NOBODY}`,
      headers: ctx.headers('client'),
    });
    const page = await ctx.step('list users, one a page', () => api.listUsers(server, { limit: 1 }));
    const cursor = page?.pagination.next_cursor;
    if (cursor) await ctx.step('list users, next page', () => api.listUsers(server, { limit: 1, cursor }));
    await ctx.step('list users, search', () => api.listUsers(server, { query: 'Renamed' }));
    await ctx.step('list users, newest first', () => api.listUsers(server, { order_by: 'signed_up_at', desc: true }));
    await ctx.step('list users, all', () => api.listUsers(server));
    if (created) {
      await ctx.step('delete a user (server)', () => api.deleteUser(server, created.id));
      await ctx.step('delete a user again', () => api.deleteUser(server, created.id));
    }
    await ctx.step('delete me (client)', () => api.deleteCurrentUser(me));
    await ctx.step('users/me after deleting me', () => api.getCurrentUser(me));
  },
};

export const contactChannelFlow: Flow = {
  name: 'contact-channel',
  covers: 'contact channels: create, list, read, update, verify by e-mail, delete',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const client = ctx.client();
    const signedUp = await ctx.step('sign-up', () =>
      api.signUpWithPassword(client, {
        email: ctx.email('cc'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    if (!signedUp) return;
    const me = ctx.client(signedUp);
    const second = ctx.email('second');
    const channel = await ctx.step('create a channel (client)', () =>
      api.createContactChannel(me, { user_id: 'me', type: 'email', value: second, used_for_auth: false }),
    );
    await ctx.step('create the same channel again', () =>
      api.createContactChannel(me, { user_id: 'me', type: 'email', value: second, used_for_auth: false }),
    );
    await ctx.step('create a channel for someone else (client)', () =>
      api.createContactChannel(me, { user_id: NOBODY, type: 'email', value: ctx.email('else'), used_for_auth: false }),
    );
    await ctx.step('list my channels', () => api.listContactChannels(me, { userId: 'me' }));
    const user = await ctx.step('users/me', () => api.getCurrentUser(me));
    if (user)
      await ctx.step('list channels (server)', () => api.listContactChannels(ctx.server(), { userId: user.id }));
    if (!channel) return;
    await ctx.step('get a channel', () => api.getContactChannel(me, 'me', channel.id));
    await ctx.step('get an unknown channel', () => api.getContactChannel(me, 'me', NOBODY));
    await ctx.step('update a channel', () => api.updateContactChannel(me, 'me', channel.id, { used_for_auth: true }));
    await ctx.step('send the verification code', () =>
      api.sendContactChannelVerificationCode(me, 'me', channel.id, CALLBACK),
    );
    const mail = await ctx.mail(second, /verif/i);
    const code = codeFromMail(mail);
    await ctx.step('check the code', () => api.checkContactChannelVerificationCode(client, code ?? 'x'.repeat(45)));
    await ctx.step('verify', () => api.verifyContactChannel(client, code ?? 'x'.repeat(45)));
    await ctx.step('send the code for a verified channel', () =>
      api.sendContactChannelVerificationCode(me, 'me', channel.id, CALLBACK),
    );
    await ctx.step('make it primary', () => api.updateContactChannel(me, 'me', channel.id, { is_primary: true }));
    await ctx.step('users/me with the new primary e-mail', () => api.getCurrentUser(me));
    await ctx.step('send the primary e-mail verification (old path)', () =>
      api.sendPrimaryEmailVerificationCode(me, { email: second, callback_url: CALLBACK }),
    );
    await ctx.step('delete a channel', () => api.deleteContactChannel(me, 'me', channel.id));
    await ctx.step('delete it again', () => api.deleteContactChannel(me, 'me', channel.id));
  },
};
