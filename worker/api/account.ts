import { requireNonEmptyString, requireSegment, requireUrl, requireUuid } from '../../protocol/args.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { ClientUserUpdate } from '../../protocol/resources/user.js';
import type { BrokerCore } from '../core.js';
import { camelize, snakeize } from '../models.js';
import { sessionEnd } from '../session.js';
import { optionalBoolean, optionalJson, optionalNullableString, optionalString, requireInput } from './args.js';
import type { BrokerApi } from './types.js';

const USER_FIELDS = ['displayName', 'profileImageUrl', 'clientMetadata', 'otpAuthEnabled', 'passkeyAuthEnabled', 'totpSecretBase64', 'selectedTeamId'] as const;

export function accountMethods(core: BrokerCore): Pick<
  BrokerApi,
  | 'updateUser'
  | 'deleteUser'
  | 'createContactChannel'
  | 'updateContactChannel'
  | 'deleteContactChannel'
  | 'sendContactChannelVerification'
  | 'verifyEmail'
  | 'checkEmailVerificationCode'
  | 'revokeSession'
  | 'getConnectedAccountAccessToken'
> {
  const t = core.client;
  /** Channel changes can change the user's primary e-mail too. */
  const channelsChanged = () => {
    core.invalidate({ kind: 'contactChannels' });
    core.invalidate({ kind: 'currentUser' });
  };
  return {
    async updateUser(update) {
      const u = requireInput(update, 'update', USER_FIELDS);
      optionalNullableString(u.displayName, 'update.displayName');
      optionalNullableString(u.profileImageUrl, 'update.profileImageUrl');
      optionalBoolean(u.otpAuthEnabled, 'update.otpAuthEnabled');
      if (u.passkeyAuthEnabled !== undefined && u.passkeyAuthEnabled !== false) {
        throw new InvalidArgumentError('update.passkeyAuthEnabled', 'passkeyAuthEnabled can only be set to false (register a passkey to enable it).');
      }
      optionalNullableString(u.totpSecretBase64, 'update.totpSecretBase64');
      if (u.selectedTeamId !== undefined && u.selectedTeamId !== null) requireUuid(u.selectedTeamId, 'update.selectedTeamId');
      const body = snakeize({ ...u, clientMetadata: optionalJson(u.clientMetadata, 'update.clientMetadata') }) as ClientUserUpdate;
      const user = camelize(await endpoints.updateCurrentUser(t, body));
      // Every tab sees the new user at once, from this answer (no refetch).
      core.setQueryData({ kind: 'currentUser' }, user);
      return user;
    },
    async deleteUser() {
      const key = core.session.sessionKey;
      await endpoints.deleteCurrentUser(t);
      await core.session.end(sessionEnd('user-deleted', core.clock.now()), key ?? undefined);
    },
    async createContactChannel(input) {
      const i = requireInput(input, 'input', ['email', 'usedForAuth', 'isPrimary']);
      const channel = await endpoints.createContactChannel(t, {
        user_id: 'me',
        type: 'email',
        value: requireNonEmptyString(i.email, 'email'),
        used_for_auth: optionalBoolean(i.usedForAuth, 'usedForAuth') ?? false,
        ...(i.isPrimary === undefined ? {} : { is_primary: optionalBoolean(i.isPrimary, 'isPrimary')! }),
      });
      channelsChanged();
      return camelize(channel);
    },
    async updateContactChannel(channelId, update) {
      const u = requireInput(update, 'update', ['email', 'usedForAuth', 'isPrimary']);
      const channel = await endpoints.updateContactChannel(t, 'me', requireUuid(channelId, 'channelId'), {
        ...(u.email === undefined ? {} : { value: optionalString(u.email, 'update.email')! }),
        ...(u.usedForAuth === undefined ? {} : { used_for_auth: optionalBoolean(u.usedForAuth, 'update.usedForAuth')! }),
        ...(u.isPrimary === undefined ? {} : { is_primary: optionalBoolean(u.isPrimary, 'update.isPrimary')! }),
      });
      channelsChanged();
      return camelize(channel);
    },
    async deleteContactChannel(channelId) {
      await endpoints.deleteContactChannel(t, 'me', requireUuid(channelId, 'channelId'));
      channelsChanged();
    },
    async sendContactChannelVerification(channelId, callbackUrl) {
      await endpoints.sendContactChannelVerificationCode(t, 'me', requireUuid(channelId, 'channelId'), requireUrl(callbackUrl, 'callbackUrl'));
    },
    async verifyEmail(code) {
      await endpoints.verifyContactChannel(t, requireNonEmptyString(code, 'code'));
      channelsChanged();
    },
    async checkEmailVerificationCode(code) {
      await endpoints.checkContactChannelVerificationCode(t, requireNonEmptyString(code, 'code'));
    },
    async revokeSession(sessionId) {
      await endpoints.deleteSession(t, requireUuid(sessionId, 'sessionId'), 'me');
      core.invalidate({ kind: 'sessions' });
    },
    async getConnectedAccountAccessToken(providerId, options = {}) {
      const o = requireInput(options, 'options', ['scope']);
      const scope = optionalString(o.scope, 'options.scope');
      const { access_token } = await endpoints.getConnectedAccountAccessToken(t, 'me', requireSegment(providerId, 'providerId'), scope === undefined ? {} : { scope });
      return { accessToken: access_token };
    },
  };
}
