import type { BrokerApi } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { required } from './auth.js';
import type { ApiContext } from './context.js';

export function passwordMethods({
  transports,
  queries,
}: Pick<ApiContext, 'transports' | 'queries'>): Pick<
  BrokerApi,
  'sendPasswordResetEmail' | 'checkPasswordResetCode' | 'resetPassword' | 'updatePassword' | 'setPassword'
> {
  const t = transports.client;
  return {
    async sendPasswordResetEmail({ email, callbackUrl }) {
      await endpoints.sendPasswordResetCode(t, { email, callback_url: required(callbackUrl) });
    },
    async checkPasswordResetCode(code) {
      await endpoints.checkPasswordResetCode(t, code);
    },
    async resetPassword({ code, password }) {
      await endpoints.resetPassword(t, { code, password });
    },
    async updatePassword({ oldPassword, newPassword }) {
      await endpoints.updatePassword(t, { old_password: oldPassword, new_password: newPassword });
      queries.invalidate({ kind: 'sessions' });
    },
    async setPassword({ password }) {
      await endpoints.setPassword(t, { password });
      queries.invalidate({ kind: 'currentUser' });
    },
  };
}
