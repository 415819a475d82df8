import type { BrokerApi } from '../../contract/api.js';
import { sessionEnd } from '../../contract/state.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { camelize, snakeize } from '../../protocol/models.js';
import type { ClientUserUpdate } from '../../protocol/resources/user.js';
import { required } from './auth.js';
import type { ApiContext } from './context.js';

/** Standard base64, as the service reads a TOTP secret. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

type AccountMethods =
  | 'updateUser'
  | 'setSelectedTeam'
  | 'deleteUser'
  | 'createContactChannel'
  | 'updateContactChannel'
  | 'deleteContactChannel'
  | 'sendContactChannelVerification'
  | 'verifyEmail'
  | 'checkEmailVerificationCode'
  | 'revokeSession'
  | 'getConnectedAccountAccessToken'
  | 'updateNotificationPreference';

/** The signed-in user's own account. */
export function accountMethods({
  transports,
  queries,
  session,
  clock,
}: Pick<ApiContext, 'transports' | 'queries' | 'session' | 'clock'>): Pick<BrokerApi, AccountMethods> {
  const t = transports.client;
  /** Channel changes can change the user's primary e-mail too, and which invitations reach them (verified ones). */
  const channelsChanged = () => {
    queries.invalidate({ kind: 'contactChannels' });
    queries.invalidate({ kind: 'currentUser' });
    queries.invalidate({ kind: 'receivedTeamInvitations' });
  };
  return {
    async updateUser({ totpSecret, ...update }) {
      const wire = snakeize({
        ...update,
        ...(totpSecret === undefined ? {} : { totpSecretBase64: totpSecret === null ? null : base64(totpSecret) }),
      }) as ClientUserUpdate;
      const user = camelize(await endpoints.updateCurrentUser(t, wire));
      // Every tab sees the new user at once, from this answer (no refetch).
      queries.setQueryData({ kind: 'currentUser' }, user);
      return user;
    },
    async setSelectedTeam(teamId) {
      const user = camelize(await endpoints.updateCurrentUser(t, { selected_team_id: teamId }));
      queries.setQueryData({ kind: 'currentUser' }, user);
      return user;
    },
    async deleteUser() {
      const key = session.sessionKey;
      await endpoints.deleteCurrentUser(t);
      await session.end(sessionEnd('user-deleted', clock.now()), key ?? undefined);
    },
    async createContactChannel({ email, usedForAuth, isPrimary }) {
      const channel = await endpoints.createContactChannel(t, {
        user_id: 'me',
        type: 'email',
        value: email,
        used_for_auth: usedForAuth,
        ...(isPrimary === undefined ? {} : { is_primary: isPrimary }),
      });
      channelsChanged();
      return camelize(channel);
    },
    async updateContactChannel(channelId, { email, usedForAuth, isPrimary }) {
      const channel = await endpoints.updateContactChannel(t, 'me', channelId, {
        ...(email === undefined ? {} : { value: email }),
        ...(usedForAuth === undefined ? {} : { used_for_auth: usedForAuth }),
        ...(isPrimary === undefined ? {} : { is_primary: isPrimary }),
      });
      channelsChanged();
      return camelize(channel);
    },
    async deleteContactChannel(channelId) {
      await endpoints.deleteContactChannel(t, 'me', channelId);
      channelsChanged();
    },
    async sendContactChannelVerification(channelId, callbackUrl) {
      await endpoints.sendContactChannelVerificationCode(t, 'me', channelId, required(callbackUrl));
    },
    async verifyEmail(code) {
      await endpoints.verifyContactChannel(t, code);
      channelsChanged();
    },
    async checkEmailVerificationCode(code) {
      await endpoints.checkContactChannelVerificationCode(t, code);
    },
    async revokeSession(sessionId) {
      await endpoints.deleteSession(t, sessionId, 'me');
      queries.invalidate({ kind: 'sessions' });
    },
    async getConnectedAccountAccessToken(providerId, options = {}) {
      const scope = options.scopes === undefined || options.scopes.length === 0 ? undefined : options.scopes.join(' ');
      const { access_token } = await endpoints.getConnectedAccountAccessToken(t, 'me', providerId, {
        ...(scope === undefined ? {} : { scope }),
        ...(options.providerAccountId === undefined ? {} : { providerAccountId: options.providerAccountId }),
      });
      return { accessToken: access_token };
    },
    async updateNotificationPreference(categoryId, { enabled }) {
      const preference = camelize(await endpoints.updateNotificationPreference(t, 'me', categoryId, { enabled }));
      // The list holds every category: it is read again rather than patched here.
      queries.invalidate({ kind: 'notificationPreferences' });
      return preference;
    },
  };
}
