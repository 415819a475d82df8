import * as api from '../../../../protocol/endpoints/index.js';
import type { Flow, FlowContext, Tokens } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

/** A user of the flow's project with a verified address, and a session for it (both made by the server). */
async function verifiedUser(
  ctx: FlowContext,
  prefix: string,
  extra: Parameters<typeof api.createUser>[1] = {},
): Promise<{ id: string; email: string; session: Tokens } | undefined> {
  const email = ctx.email(prefix);
  const user = await ctx.step(`create ${prefix} (server)`, () =>
    api.createUser(ctx.server(), {
      primary_email: email,
      primary_email_verified: true,
      primary_email_auth_enabled: true,
      password: PASSWORD,
      ...extra,
    }),
  );
  if (!user) return undefined;
  const session = await ctx.step(`a session for ${prefix} (server)`, () =>
    api.createSession(ctx.server(), { user_id: user.id }),
  );
  return session ? { id: user.id, email, session } : undefined;
}

export const oauthProviderFlow: Flow = {
  name: 'oauth-provider',
  covers:
    "a user's OAuth providers: listing, reading, switching sign-in and connected-account use, several accounts of a provider, removing, and the refusals",
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    await ctx.step('offer GitHub (shared) and GitLab (own keys)', () =>
      api.updateCurrentProject(ctx.admin(), {
        config: {
          oauth_providers: [
            { id: 'github', type: 'shared' },
            { id: 'gitlab', type: 'standard', client_id: 'differential', client_secret: 'not-a-secret' },
          ],
        },
      }),
    );
    const accountId = `gl-${ctx.email('account').split('@')[0]}`;
    const user = await verifiedUser(ctx, 'provider', {
      oauth_providers: [{ id: 'gitlab', account_id: accountId, email: ctx.email('gitlab') }],
    });
    if (!user) return;
    const me = ctx.client(user.session);
    const server = ctx.server();
    const [listed] = (await ctx.step('list mine', () => api.listOAuthProviders(me, 'me'))) ?? [];
    await ctx.step('list mine by id', () => api.listOAuthProviders(me, user.id));
    await ctx.step('list (server)', () => api.listOAuthProviders(server, user.id));
    await ctx.step('list every user’s (server)', () => api.listOAuthProviders(server));
    const second = await ctx.step('link a second GitLab account without sign-in (server)', () =>
      api.createOAuthProvider(server, {
        user_id: user.id,
        provider_config_id: 'gitlab',
        account_id: `${accountId}-2`,
        email: ctx.email('second'),
        allow_sign_in: false,
        allow_connected_accounts: true,
      }),
    );
    await ctx.step('link the same account again (server)', () =>
      api.createOAuthProvider(server, {
        user_id: user.id,
        provider_config_id: 'gitlab',
        account_id: `${accountId}-2`,
        allow_sign_in: false,
        allow_connected_accounts: true,
      }),
    );
    await ctx.step('link a provider the project does not offer (server)', () =>
      api.createOAuthProvider(server, {
        user_id: user.id,
        provider_config_id: 'bitbucket',
        account_id: 'x',
        allow_sign_in: false,
        allow_connected_accounts: true,
      }),
    );
    await ctx.step('connected accounts with two of a provider', () => api.listConnectedAccounts(me, 'me'));
    await ctx.step('a token of one account (none yet)', () =>
      api.getConnectedAccountAccessToken(me, 'me', 'gitlab', { providerAccountId: `${accountId}-2` }),
    );
    await ctx.step('a token of an account not linked', () =>
      api.getConnectedAccountAccessToken(me, 'me', 'gitlab', { providerAccountId: 'not-linked' }),
    );
    if (second) {
      await ctx.step('let the second sign in too', () =>
        api.updateOAuthProvider(me, 'me', second.id, { allow_sign_in: true }),
      );
      await ctx.step('stop its connected-account use', () =>
        api.updateOAuthProvider(me, 'me', second.id, { allow_connected_accounts: false }),
      );
      await ctx.step('change its account id (server)', () =>
        api.updateOAuthProvider(server, user.id, second.id, { account_id: `${accountId}-3`, email: ctx.email('c') }),
      );
      await ctx.step('read it (server)', () => api.getOAuthProvider(server, user.id, second.id));
      await ctx.step('remove it', () => api.deleteOAuthProvider(me, 'me', second.id));
      await ctx.step('remove it again', () => api.deleteOAuthProvider(me, 'me', second.id));
    }
    if (listed) {
      await ctx.step('read mine', () => api.getOAuthProvider(me, 'me', listed.id));
      await ctx.step('stop its sign-in', () => api.updateOAuthProvider(me, 'me', listed.id, { allow_sign_in: false }));
      await ctx.raw('change the account id as a client', {
        method: 'PATCH',
        path: `/oauth-providers/me/${listed.id}`,
        headers: ctx.headers('client', { 'x-stack-access-token': user.session.access_token }),
        body: { account_id: 'mine' },
      });
    }
    await ctx.step('read an unknown one', () => api.getOAuthProvider(me, 'me', NOBODY));
    await ctx.step("list another user's (client)", () => api.listOAuthProviders(me, NOBODY));
    await ctx.step('list an unknown user (server)', () => api.listOAuthProviders(server, NOBODY));
    await ctx.raw('list mine without a session', {
      method: 'GET',
      path: '/oauth-providers?user_id=me',
      headers: ctx.headers('client'),
    });
    await ctx.raw('link one as a client', {
      method: 'POST',
      path: '/oauth-providers',
      headers: ctx.headers('client', { 'x-stack-access-token': user.session.access_token }),
      body: {
        user_id: 'me',
        provider_config_id: 'gitlab',
        account_id: 'x',
        allow_sign_in: false,
        allow_connected_accounts: true,
      },
    });
    await ctx.raw('read an id that is not one', {
      method: 'GET',
      path: '/oauth-providers/me/not-an-id',
      headers: ctx.headers('client', { 'x-stack-access-token': user.session.access_token }),
    });
  },
};

export const ownedApiKeyFlow: Flow = {
  name: 'owned-api-key',
  covers:
    "users' and teams' own API keys: made (whole once), listed, renamed, revoked, checked by the server, $manage_api_keys, the project's switches",
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const user = await verifiedUser(ctx, 'keys');
    if (!user) return;
    const me = ctx.client(user.session);
    await ctx.step('make a user key while they are off', () =>
      api.createUserApiKey(me, { user_id: 'me', description: 'off', expires_at_millis: null }),
    );
    await ctx.step('list user keys while they are off', () => api.listUserApiKeys(me, 'me'));
    await ctx.step('allow user and team keys', () =>
      api.updateCurrentProject(ctx.admin(), { config: { allow_user_api_keys: true, allow_team_api_keys: true } }),
    );
    const key = await ctx.step('make a user key', () =>
      api.createUserApiKey(me, { user_id: 'me', description: 'CI', expires_at_millis: null }),
    );
    const expired = await ctx.step('make an expired public user key', () =>
      api.createUserApiKey(me, { user_id: user.id, description: 'old', expires_at_millis: 1, is_public: true }),
    );
    await ctx.step("make another user's key (client)", () =>
      api.createUserApiKey(me, { user_id: NOBODY, description: 'theirs', expires_at_millis: null }),
    );
    await ctx.step('list my keys', () => api.listUserApiKeys(me, 'me'));
    await ctx.step('list my keys (server)', () => api.listUserApiKeys(ctx.server(), user.id));
    if (key) {
      await ctx.step('check it (server)', () => api.checkUserApiKey(ctx.server(), key.value));
      await ctx.step('check it as a team key (server)', () => api.checkTeamApiKey(ctx.server(), key.value));
      await ctx.step('rename it', () => api.updateUserApiKey(me, 'me', key.id, { description: 'CI deploys' }));
      await ctx.step('revoke it', () => api.updateUserApiKey(me, 'me', key.id, { revoked: true }));
      await ctx.step('revoke it again', () => api.updateUserApiKey(me, 'me', key.id, { revoked: true }));
      await ctx.step('check it revoked (server)', () => api.checkUserApiKey(ctx.server(), key.value));
    }
    if (expired)
      await ctx.step('check an expired key (server)', () => api.checkUserApiKey(ctx.server(), expired.value));
    await ctx.step('check an unknown key (server)', () => api.checkUserApiKey(ctx.server(), 'sk_unknown'));

    const member = await verifiedUser(ctx, 'member');
    const team = await ctx.step('a team of the user (server)', () =>
      api.createTeam(ctx.server(), { display_name: 'Keyholders', creator_user_id: user.id }),
    );
    if (!team) return;
    if (member) await ctx.step('add a member (server)', () => api.addTeamMember(ctx.server(), team.id, member.id));
    const teamKey = await ctx.step('make a team key', () =>
      api.createTeamApiKey(me, { team_id: team.id, description: 'team', expires_at_millis: null }),
    );
    await ctx.step('list team keys', () => api.listTeamApiKeys(me, team.id));
    if (member) {
      const asMember = ctx.client(member.session);
      await ctx.step('list team keys without $manage_api_keys', () => api.listTeamApiKeys(asMember, team.id));
      await ctx.step('make a team key without $manage_api_keys', () =>
        api.createTeamApiKey(asMember, { team_id: team.id, description: 'no', expires_at_millis: null }),
      );
    }
    if (teamKey) {
      await ctx.step('check the team key (server)', () => api.checkTeamApiKey(ctx.server(), teamKey.value));
      await ctx.step('revoke the team key', () => api.updateTeamApiKey(me, team.id, teamKey.id, { revoked: true }));
    }
  },
};

export const receivedInvitationFlow: Flow = {
  name: 'received-invitation',
  covers: 'the invitations a user received: listed by verified address, accepted by id, and the refusals',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const server = ctx.server();
    const user = await verifiedUser(ctx, 'invitee');
    const team = await ctx.step('a team (server)', () => api.createTeam(server, { display_name: 'Inviting' }));
    if (!user || !team) return;
    const sent = await ctx.step('invite the user (server)', () =>
      api.sendTeamInvitation(server, { team_id: team.id, email: user.email, callback_url: CALLBACK }),
    );
    const me = ctx.client(user.session);
    await ctx.step('list mine', () => api.listReceivedTeamInvitations(me, 'me'));
    await ctx.step('list (server)', () => api.listReceivedTeamInvitations(server, user.id));
    await ctx.step("list another user's (client)", () => api.listReceivedTeamInvitations(me, NOBODY));
    await ctx.raw('list with both filters', {
      method: 'GET',
      path: `/team-invitations?team_id=${team.id}&user_id=me`,
      headers: ctx.headers('client', { 'x-stack-access-token': user.session.access_token }),
    });
    await ctx.raw('list with no filter', {
      method: 'GET',
      path: '/team-invitations',
      headers: ctx.headers('client', { 'x-stack-access-token': user.session.access_token }),
    });
    await ctx.step('accept an unknown one', () => api.acceptTeamInvitationById(me, NOBODY));
    if (sent) {
      await ctx.step('accept for another user (client)', () => api.acceptTeamInvitationById(me, sent.id, NOBODY));
      await ctx.step('accept it', () => api.acceptTeamInvitationById(me, sent.id));
      await ctx.step('accept it again', () => api.acceptTeamInvitationById(me, sent.id));
    }
    await ctx.step('list mine after', () => api.listReceivedTeamInvitations(me, 'me'));
    const unverified = ctx.email('unverified');
    const other = await ctx.step('a user with an unverified address (server)', () =>
      api.createUser(server, { primary_email: unverified, primary_email_auth_enabled: true, password: PASSWORD }),
    );
    const invited = await ctx.step('invite the unverified address (server)', () =>
      api.sendTeamInvitation(server, { team_id: team.id, email: unverified, callback_url: CALLBACK }),
    );
    if (other) {
      await ctx.step('list an unverified user’s (server)', () => api.listReceivedTeamInvitations(server, other.id));
      if (invited)
        await ctx.step('accept for the unverified user (server)', () =>
          api.acceptTeamInvitationById(server, invited.id, other.id),
        );
    }
  },
};
